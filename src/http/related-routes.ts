import type { Request, Response, Router } from 'express';
import { effectiveSettings } from '../settings/effective-settings.js';
import { z } from 'zod';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { edgePage, editorialEdges, resolvePredicate, resolveResource, type EdgeAccess, type EdgeDirection } from '../content/edges.js';
import { summaryItem, toIso } from '../content/summaries.js';
import { agentRoute, methodNotAllowed } from './agent-route.js';
import { withBudget } from './budget.js';
import { badRequest, notFound } from './errors.js';
import { answerRouteError } from './route-errors.js';
import type { OperationSpec } from './operations.js';
import { resourceExposure } from '../content/visibility.js';
import { pagedResult as pagedEnvelope, pageScope, pageWindow } from './paging.js';
import {
  CANDIDATE_LIMIT,
  integerParam,
  languageParam,
  pagingShape,
  parsePairs,
  parseQuery,
  parseValues,
  resourceRef,
  withCandidateBound,
} from './parameters.js';
import { API_ROBOTS, setNoSniff } from './representation.js';
import { pagedResult, relatedItem } from './result-schemas.js';
import { callFromRequest, type FacadeCall } from './facade-call.js';

/** Default and largest `limit` of the compatibility model API. */
export const COMPAT_DEFAULT_LIMIT = 20;
export const COMPAT_MAX_LIMIT = 100;

/**
 * The compatibility API answers with the caller's own permissions, so a response may differ per
 * caller: no shared cache may keep it, and no ETag is offered.
 */
export const COMPAT_CACHE_CONTROL = 'private, no-store';

/** The compatibility forms: which side the path's id is on, and what each edge becomes. */
const COMPAT_FORMS = {
  o: { direction: 'out', props: false },
  s: { direction: 'in', props: false },
  o_props: { direction: 'out', props: true },
  s_props: { direction: 'in', props: true },
} as const satisfies Record<string, { direction: EdgeDirection; props: boolean }>;

type CompatForm = keyof typeof COMPAT_FORMS;

const RELATED_PATH = '/api/agent/related/:id';
const compatPath = (form: CompatForm) => `/api/model/edge/get/${form}/:id/:predicate`;

/** An edge as the `_props` forms list it. */
export const edgeProps = z.object({
  id: z.number().int(),
  subject_id: z.number().int(),
  predicate_id: z.number().int(),
  object_id: z.number().int(),
  seq: z.number().int().describe('Editorial position; the list is ordered by seq, then id.'),
  created: z.string().describe('UTC ISO-8601 timestamp'),
});

/** The parameter schemas of the related read and the compatibility reads: they validate and feed OpenAPI. */
export function relatedSchemas(options: ResolvedOptions) {
  return {
    related: z
      .object({
        direction: z
          .enum(['out', 'in'], { error: 'expected out or in' })
          .optional()
          .default('out')
          .describe('out: edges from this resource (endpoint = object); in: edges to it (endpoint = subject).'),
        predicate: resourceRef.optional().describe('Only edges of this predicate (id or name); unknown or not public: 404.'),
        language: languageParam(options.languages, options.defaultLanguage),
        ...pagingShape,
      })
      .strict(),
    idPath: z.object({ id: resourceRef }),
    compat: z
      .object({
        offset: integerParam(0, CANDIDATE_LIMIT).optional().describe('Edges to skip (default 0 when limit is given).'),
        limit: integerParam(1, COMPAT_MAX_LIMIT)
          .optional()
          .describe(`Edges to return (default ${COMPAT_DEFAULT_LIMIT}, at most ${COMPAT_MAX_LIMIT} when offset is given).`),
      })
      .strict()
      .superRefine((v, ctx) => {
        if ((v.offset ?? 0) + (v.limit ?? COMPAT_DEFAULT_LIMIT) > CANDIDATE_LIMIT) {
          ctx.addIssue({ code: 'custom', path: ['offset'], message: `offset + limit must be at most ${CANDIDATE_LIMIT}` });
        }
      }),
    compatPath: z.object({
      id: resourceRef,
      predicate: resourceRef.describe('Predicate id or name (required).'),
    }),
  };
}

/** The documented operations of the related read and the compatibility edge reads. */
export function relatedOperations(options: ResolvedOptions): OperationSpec[] {
  const s = relatedSchemas(options);
  const compat = (form: CompatForm, summary: string): OperationSpec => ({
    operationId: `modelEdgeGet_${form}`,
    path: `/api/model/edge/get/${form}/{id}/{predicate}`,
    summary,
    description:
      'Compatibility model API, evaluated with the caller\'s own permissions (not the anonymous facade). ' +
      'Editorial order: seq, then edge id. Without offset and limit: the full list. With either: offset ' +
      `defaults to 0 and limit to ${COMPAT_DEFAULT_LIMIT} (at most ${COMPAT_MAX_LIMIT}), offset + limit at most ${CANDIDATE_LIMIT}. ` +
      `No continuation metadata. Never cached by shared caches (Cache-Control: ${COMPAT_CACHE_CONTROL}).`,
    tags: ['compatibility'],
    pathParams: s.compatPath,
    query: s.compat,
    response: { kind: 'envelope', result: COMPAT_FORMS[form].props ? z.array(edgeProps) : z.array(z.number().int()) },
    errors: [400, 404, 503, 504],
  });
  return [
    {
      operationId: 'listRelated',
      path: '/api/agent/related/{id}',
      summary: 'Follow one hop of outgoing or incoming relationships',
      description:
        'Pages of candidate edges ordered by predicate id, then endpoint id. Endpoints that are not public and ' +
        'indexable are left out, so a page may be shorter than pagelen (even empty) while next is still true: ' +
        'follow next_url until next is false.',
      tags: ['content'],
      pathParams: s.idPath,
      query: s.related,
      response: { kind: 'envelope', result: pagedResult(relatedItem) },
      errors: [400, 404, 413, 503, 504],
      example: 'direction=out&pagelen=10',
    },
    compat('o', 'Objects of a resource for a predicate (edge model API)'),
    compat('s', 'Subjects of a resource for a predicate (edge model API)'),
    compat('o_props', 'Outgoing edges with their properties (edge model API)'),
    compat('s_props', 'Incoming edges with their properties (edge model API)'),
  ];
}

/** A keyset position of the related read: `[predicate_id, endpoint_id]`, both positive integers. */
function edgePosition(after: number[] | undefined): [number, number] | undefined {
  return after === undefined ? undefined : (after as [number, number]);
}

/** The result schema of the related read. */
export const relatedResult = pagedResult(relatedItem);

/**
 * The related read as a function of a `FacadeCall` (`rawId` is the path parameter): the HTTP route
 * and the MCP tool both run it.
 */
export function relatedRead(ctx: AgentContext) {
  const s = relatedSchemas(ctx.options);
  return async function related(call: FacadeCall, rawId: string) {
    const { noindex: siteNoindex } = await effectiveSettings(ctx);
    const { id } = parseValues(s.idPath, { id: rawId });
    const params = parsePairs(call.query, withCandidateBound(s.related));
    const resourceId = await resolveResource(ctx.db, id, 'anonymous');
    if (resourceId === undefined) throw notFound();
    let predicateId: number | undefined;
    if (params.predicate !== undefined) {
      predicateId = await resolvePredicate(ctx.db, params.predicate, 'anonymous');
      // A noindex predicate is not public vocabulary (the schema read hides it): the same 404.
      if (predicateId !== undefined && !(await resourceExposure(ctx.db, predicateId, siteNoindex))?.indexable) predicateId = undefined;
      if (predicateId === undefined) throw notFound('predicate');
    }
    // Bound to the resolved id, so a continuation works whether the path names the resource by id or name.
    const scope = pageScope(`related/${resourceId}`, params);
    const window = pageWindow(ctx, params, scope, 2);
    const candidates = await edgePage(ctx.db, {
      resourceId,
      direction: params.direction,
      predicateId,
      after: edgePosition(window.after),
      offset: window.offset,
      limit: window.fetch,
      siteNoindex,
    });
    const page = candidates.slice(0, params.pagelen);
    const last = page.at(-1);
    const ic = { base: call.base, options: ctx.options, requestedLanguage: params.language };
    const items = page.flatMap((c) =>
      c.predicate && c.endpoint ? [{ predicate: c.predicate, resource: summaryItem(ic, c.endpoint) }] : [],
    );
    return pagedEnvelope(ctx, call, params, scope, {
      items,
      hasMore: candidates.length > params.pagelen,
      lastPosition: last ? [last.predicate_id, last.endpoint_id] : undefined,
    });
  };
}

/** Mounts `GET /api/agent/related/:id` and the compatibility edge reads on the router. */
export function mountRelated(router: Router, ctx: AgentContext): void {
  const s = relatedSchemas(ctx.options);
  const related = relatedRead(ctx);

  router.get(
    RELATED_PATH,
    agentRoute(ctx, relatedResult, async ({ req, base }) => ({
      kind: 'json',
      result: await related(callFromRequest(req, base), String(req.params.id)),
    })),
  );
  router.all(RELATED_PATH, methodNotAllowed);

  for (const form of Object.keys(COMPAT_FORMS) as CompatForm[]) {
    const { direction, props } = COMPAT_FORMS[form];
    const resultSchema = props ? z.array(edgeProps) : z.array(z.number().int());
    router.get(
      compatPath(form),
      compatRoute(ctx, resultSchema, async (req) => {
        const path = parseValues(s.compatPath, { id: String(req.params.id), predicate: String(req.params.predicate) });
        const query = parseQuery(req, s.compat);
        const access: EdgeAccess = (await ctx.options.callerAccess(req)) === 'all' ? 'all' : 'anonymous';
        const resourceId = await resolveResource(ctx.db, path.id, access);
        if (resourceId === undefined) throw notFound();
        const predicateId = await resolvePredicate(ctx.db, path.predicate, access);
        if (predicateId === undefined) throw notFound('predicate');
        const paged = query.offset !== undefined || query.limit !== undefined;
        const edges = await editorialEdges(ctx.db, {
          resourceId,
          direction,
          predicateId,
          access,
          window: paged ? { offset: query.offset ?? 0, limit: query.limit ?? COMPAT_DEFAULT_LIMIT } : undefined,
        });
        if (props) return edges.map((e) => ({ ...e, created: toIso(e.created) }));
        return edges.map((e) => (direction === 'out' ? e.object_id : e.subject_id));
      }),
    );
    router.all(compatPath(form), methodNotAllowed);
    // The predicate is required: without it the path is a 400 naming it, not the host's 404.
    router.get(
      `/api/model/edge/get/${form}/:id`,
      compatRoute(ctx, resultSchema, async () => {
        throw badRequest('predicate', 'required (a predicate id or name after the resource id)');
      }),
    );
    router.all(`/api/model/edge/get/${form}/:id`, methodNotAllowed);
  }
}

/**
 * The wrapper of the compatibility reads: the same envelope, errors and time budget as the facade,
 * but `Cache-Control: private, no-store` and no ETag (the answer depends on who asks), no body size
 * bound (the full list is the behaviour callers had before offset/limit existed), and the host's
 * own headers (a refreshed session cookie) are left alone.
 */
function compatRoute(ctx: AgentContext, resultSchema: z.ZodType, handler: (req: Request) => Promise<unknown>) {
  return async function compatEdgeRoute(req: Request, res: Response) {
    res.setHeader('X-Robots-Tag', API_ROBOTS);
    try {
      const result = resultSchema.parse(await withBudget(ctx.options.budgetMs, () => handler(req)));
      const body = Buffer.from(JSON.stringify({ status: 'ok', result }), 'utf8');
      res.status(200);
      setNoSniff(res);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Cache-Control', COMPAT_CACHE_CONTROL);
      res.setHeader('Content-Length', String(body.length));
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (error) {
      answerRouteError(ctx, req, res, error);
    }
  };
}
