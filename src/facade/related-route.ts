import { z } from 'zod';
import { siteNoindexForQuery } from '../settings/effective-settings.js';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { relatedPage, resolvePredicate, resolveResource } from '../content/edges.js';
import { resourceExposure } from '../content/visibility.js';
import { notFound } from '../http/errors.js';
import { buildPagedResult, pageScope, pageWindow, type PageParams, type PageScope, type PageWindow } from '../http/paging.js';
import { languageParam, pagingShape, resourceRef, withCandidateBound } from '../http/parameters.js';
import { CONTENT_READ } from '../http/route.js';
import { facadeRoute, TOOL_PAGED, TOOL_READ_ONLY } from './facade-route.js';
import { resourcePath } from './resource-route.js';
import { pagedResult, relatedItem } from '../representations/result-schemas.js';
import { summaryItem } from '../representations/summary-item.js';

/** The query of the related read: it validates requests, feeds OpenAPI and is the MCP tool's input. */
export function relatedQuery(options: ResolvedOptions) {
  return z
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
    .strict();
}

/** The result schema of the related read. */
export const relatedResult = pagedResult(relatedItem);

/** The continuation scope of a related read: bound to the resolved id, so id and name paths share cursors. */
export function relatedScope(resourceId: number, params: Record<string, unknown>): PageScope {
  return pageScope(`related/${resourceId}`, params);
}

/** The predicate filter: a public, indexable predicate (the schema read's vocabulary), else a 404. */
async function publicPredicate(ctx: AgentContext, ref: number | string): Promise<number> {
  let predicateId = await resolvePredicate(ctx.db, ref, 'anonymous');
  // A noindex predicate is not public vocabulary (the schema read hides it): the same 404.
  if (predicateId !== undefined && !(await resourceExposure(ctx.db, predicateId, (await siteNoindexForQuery(ctx))))?.indexable) predicateId = undefined;
  if (predicateId === undefined) throw notFound('predicate');
  return predicateId;
}

/**
 * The read window of a related page. When the id has not been checked yet (`unchecked`) and its
 * continuation is refused, a resource that is not visible is still the 404 it would have been had
 * it been checked first.
 */
async function relatedWindow(ctx: AgentContext, params: PageParams, scope: PageScope, unchecked: number | undefined): Promise<PageWindow> {
  try {
    return pageWindow(ctx, params, scope, 2);
  } catch (error) {
    if (unchecked !== undefined && (await resolveResource(ctx.db, unchecked, 'anonymous')) === undefined) throw notFound();
    throw error;
  }
}

/** `GET /api/agent/related/{id}`: one hop of a public resource's relationships, in keyset pages. */
export function relatedRoute(options: ResolvedOptions) {
  return facadeRoute({
    path: PATHS.related,
    params: resourcePath,
    query: withCandidateBound(relatedQuery(options)),
    response: { kind: 'envelope', result: relatedResult },
    policy: CONTENT_READ,
    doc: {
      operationId: 'listRelated',
      summary: 'Follow one hop of outgoing or incoming relationships',
      description:
        'Pages of candidate edges ordered by predicate id, then endpoint id. Endpoints that are not public and ' +
        'indexable are left out, so a page may be shorter than pagelen (even empty) while next is still true: ' +
        'follow next_url until next is false.',
      tags: ['content'],
      errors: [400, 404, 413, 503, 504],
      example: 'direction=out&pagelen=10',
    },
    tool: {
      name: 'related',
      title: 'Follow relationships',
      description: `One hop of a public resource's relationships: direction out (default) or in, optionally one predicate (see the schema tool with kind=predicate). ${TOOL_PAGED} ${TOOL_READ_ONLY}`,
      listed: 3,
      paged: true,
    },
    async handler({ ctx, call, params: { id }, query: params }) {
      // An id path reads the resource's visibility and its page in one statement. A name is resolved
      // to its id by a statement of its own first, and so is an id with a predicate filter (the
      // resource's 404 comes before the predicate's).
      const resolveFirst = typeof id !== 'number' || params.predicate !== undefined;
      const resourceId = resolveFirst ? await resolveResource(ctx.db, id, 'anonymous') : id;
      if (resourceId === undefined) throw notFound();
      const predicateId = params.predicate === undefined ? undefined : await publicPredicate(ctx, params.predicate);
      const scope = relatedScope(resourceId, params);
      const window = await relatedWindow(ctx, params, scope, resolveFirst ? undefined : resourceId);
      const candidates = await relatedPage(ctx.db, {
        resourceId,
        direction: params.direction,
        predicateId,
        // A keyset position of the related read: `[predicate_id, endpoint_id]`, both positive integers.
        after: window.after as [number, number] | undefined,
        offset: window.offset,
        limit: window.fetch,
        siteNoindex: await siteNoindexForQuery(ctx),
      });
      if (!candidates) throw notFound();
      const page = candidates.slice(0, params.pagelen);
      const last = page.at(-1);
      const ic = { base: call.base, options: ctx.options, requestedLanguage: params.language };
      const items = page.flatMap((c) => (c.predicate && c.endpoint ? [{ predicate: c.predicate, resource: summaryItem(ic, c.endpoint) }] : []));
      return buildPagedResult(ctx, call, params, scope, {
        items,
        hasMore: candidates.length > params.pagelen,
        lastPosition: last ? [last.predicate_id, last.endpoint_id] : undefined,
      });
    },
  });
}
