import type { Request } from 'express';
import { z } from 'zod';
import type { AgentContext } from '../context.js';
import type { CallerAccess } from '../options.js';
import { PATHS } from '../paths.js';
import { editorialEdges, resolvePredicate, resolveResource, type EdgeAccess, type EdgeDirection } from '../content/edges.js';
import { toIso } from '../content/summaries.js';
import { badRequest, notFound } from '../http/errors.js';
import { CANDIDATE_LIMIT, integerParam, resourceRef } from '../http/parameters.js';
import { PER_CALLER_CACHE_CONTROL } from '../http/representation.js';
import { PER_CALLER_READ, type RouteInput } from '../http/route.js';
import { pathTemplate } from '../http/urls.js';
import { facadeRoute } from './facade-route.js';

/** Default and largest `limit` of the compatibility model API. */
const COMPAT_DEFAULT_LIMIT = 20;
const COMPAT_MAX_LIMIT = 100;

/** The compatibility forms: which side the path's id is on, and what each edge becomes. */
const COMPAT_FORMS = {
  o: { direction: 'out', props: false, summary: 'Objects of a resource for a predicate (edge model API)' },
  s: { direction: 'in', props: false, summary: 'Subjects of a resource for a predicate (edge model API)' },
  o_props: { direction: 'out', props: true, summary: 'Outgoing edges with their properties (edge model API)' },
  s_props: { direction: 'in', props: true, summary: 'Incoming edges with their properties (edge model API)' },
} as const satisfies Record<string, { direction: EdgeDirection; props: boolean; summary: string }>;

type CompatForm = keyof typeof COMPAT_FORMS;

/** An edge as the `_props` forms list it. */
const edgeProps = z.object({
  id: z.number().int(),
  subject_id: z.number().int(),
  predicate_id: z.number().int(),
  object_id: z.number().int(),
  seq: z.number().int().describe('Editorial position; the list is ordered by seq, then id.'),
  created: z.string().describe('UTC ISO-8601 timestamp'),
});

/** The query of the compatibility reads: the optional `offset`/`limit` window. */
const compatQuery = z
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
  });

/** The path of the compatibility reads: the resource and the (required) predicate. */
const compatPath = z.object({
  id: resourceRef,
  predicate: resourceRef.describe('Predicate id or name (required).'),
});

const COMPAT_DESCRIPTION =
  'Compatibility model API, evaluated with the caller\'s own permissions (not the anonymous facade). ' +
  'Editorial order: seq, then edge id. Without offset and limit: the full list. With either: offset ' +
  `defaults to 0 and limit to ${COMPAT_DEFAULT_LIMIT} (at most ${COMPAT_MAX_LIMIT}), offset + limit at most ${CANDIDATE_LIMIT}. ` +
  `No continuation metadata. Never cached by shared caches (Cache-Control: ${PER_CALLER_CACHE_CONTROL}).`;

/** Which resources the caller may see: the host's `callerAccess` hook decides, anonymous without a request. */
async function callerAccess(ctx: AgentContext, req: Request | undefined): Promise<EdgeAccess> {
  const access: CallerAccess = req ? await ctx.options.callerAccess(req) : 'anonymous';
  return access === 'all' ? 'all' : 'anonymous';
}

/** The edges of one form: the editorial list (or its window), visible to the caller. */
async function formEdges(
  input: RouteInput<AgentContext, typeof compatPath, typeof compatQuery>,
  direction: EdgeDirection,
) {
  const { ctx, params, query } = input;
  const access = await callerAccess(ctx, input.req);
  const resourceId = await resolveResource(ctx.db, params.id, access);
  if (resourceId === undefined) throw notFound();
  const predicateId = await resolvePredicate(ctx.db, params.predicate, access);
  if (predicateId === undefined) throw notFound('predicate');
  const paged = query.offset !== undefined || query.limit !== undefined;
  return editorialEdges(ctx.db, {
    resourceId,
    direction,
    predicateId,
    access,
    window: paged ? { offset: query.offset ?? 0, limit: query.limit ?? COMPAT_DEFAULT_LIMIT } : undefined,
  });
}

/** `GET /api/model/edge/get/{form}/{id}/{predicate}`: the edge model API's list of one form. */
function compatEdgeRoute(form: CompatForm) {
  const { direction, props, summary } = COMPAT_FORMS[form];
  const doc = { operationId: `modelEdgeGet_${form}`, summary, description: COMPAT_DESCRIPTION, tags: ['compatibility' as const], errors: [400, 404, 503, 504] };
  const common = { path: PATHS.compatEdges(form), params: compatPath, query: compatQuery, policy: PER_CALLER_READ, doc };
  if (props) {
    return facadeRoute({
      ...common,
      response: { kind: 'envelope', result: z.array(edgeProps) },
      async handler(input) {
        return (await formEdges(input, direction)).map((e) => ({ ...e, created: toIso(e.created) }));
      },
    });
  }
  return facadeRoute({
    ...common,
    response: { kind: 'envelope', result: z.array(z.number().int()) },
    async handler(input) {
      return (await formEdges(input, direction)).map((e) => (direction === 'out' ? e.object_id : e.subject_id));
    },
  });
}

/** The same path without the predicate: a 400 naming it, not the host's 404 (undocumented). */
function missingPredicateRoute(form: CompatForm) {
  return facadeRoute({
    path: pathTemplate(PATHS.compatEdges(form).template.replace(/\/\{predicate\}$/, '')),
    params: undefined,
    query: undefined,
    response: { kind: 'envelope', result: z.array(z.number().int()) },
    policy: PER_CALLER_READ,
    async handler() {
      throw badRequest('predicate', 'required (a predicate id or name after the resource id)');
    },
  });
}

/** The four compatibility edge reads, each followed by its missing-predicate answer. */
export function compatEdgeRoutes() {
  return (Object.keys(COMPAT_FORMS) as CompatForm[]).flatMap((form) => [compatEdgeRoute(form), missingPredicateRoute(form)]);
}
