import { z } from 'zod';
import { siteNoindexForQuery } from '../settings/effective-settings.js';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { resolveCategory, searchPosition, searchResources, type SearchSort } from '../content/search.js';
import { badRequest } from '../http/errors.js';
import { buildPagedResult, pageScope, pageWindow } from '../http/paging.js';
import { calendarDate, dayStart, idOrName, languageParam, pagingShape, withCandidateBound } from '../http/parameters.js';
import { CONTENT_READ } from '../http/route.js';
import { facadeRoute, TOOL_PAGED, TOOL_READ_ONLY } from './facade-route.js';
import { pagedResult, resourceSummary } from '../representations/result-schemas.js';
import { summaryItem } from '../representations/summary-item.js';

const MAX_TEXT_BYTES = 512;

/** The query of the search read: it validates requests, feeds OpenAPI and is the MCP tool's input. */
export function searchQuery(options: ResolvedOptions) {
  return z
    .object({
      text: z
        .string()
        .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_TEXT_BYTES, `must be at most ${MAX_TEXT_BYTES} bytes of UTF-8`)
        .optional()
        .describe('Full-text query (websearch syntax), at most 512 bytes of UTF-8.'),
      cat: idOrName('category')
        .optional()
        .describe('Category id or name; subcategories are included.'),
      sort: z
        .enum(['id', 'newest', 'oldest', 'modified'], { error: 'expected one of id, newest, oldest, modified' })
        .optional()
        .default('id')
        .describe('id (ascending), newest / oldest (publication start), modified (descending); ties by id ascending.'),
      publication_after: calendarDate.optional().describe('YYYY-MM-DD, inclusive, UTC, on publication start.'),
      publication_before: calendarDate.optional().describe('YYYY-MM-DD, inclusive (the whole day), UTC.'),
      language: languageParam(options.languages, options.defaultLanguage),
      ...pagingShape,
    })
    .strict();
}

type SearchParams = z.output<ReturnType<typeof searchQuery>>;

/** The publication window of a search: from the start of the after-day up to the end of the before-day. */
function publicationWindow(params: SearchParams): { publishedFrom?: Date; publishedUntil?: Date } {
  if (params.publication_after && params.publication_before && params.publication_after > params.publication_before) {
    throw badRequest('publication_after', 'is later than publication_before');
  }
  const publishedFrom = params.publication_after ? dayStart(params.publication_after) : undefined;
  // The before date includes its whole day: up to the start of the next day (none after 9999-12-31).
  const publishedUntil = params.publication_before ? dayStart(params.publication_before, 1) : undefined;
  return { ...(publishedFrom ? { publishedFrom } : {}), ...(publishedUntil ? { publishedUntil } : {}) };
}

/** The category filter of a search: the category and its subcategories, or a 400 for an unknown one. */
async function categoryFilter(ctx: AgentContext, cat: number | string | undefined): Promise<{ categoryIds?: number[] }> {
  if (cat === undefined) return {};
  const id = await resolveCategory(ctx.db, cat, (await siteNoindexForQuery(ctx)));
  if (id === undefined) throw badRequest('cat', 'unknown category');
  return { categoryIds: [id] };
}

export const searchResult = pagedResult(resourceSummary);

/** `GET /api/agent/search`: browse or full-text search the public, indexable resources. */
export function searchRoute(options: ResolvedOptions) {
  return facadeRoute({
    path: PATHS.search,
    params: undefined,
    query: withCandidateBound(searchQuery(options)),
    response: { kind: 'envelope', result: searchResult },
    policy: CONTENT_READ,
    doc: {
      operationId: 'searchResources',
      summary: 'Browse or full-text search public resources',
      description:
        'Localized summaries of anonymous-visible, indexable resources. Follow next_url until next is false; pages carry no totals.',
      tags: ['content'],
      errors: [400, 413, 503, 504],
      example: 'sort=newest&pagelen=5',
    },
    tool: {
      name: 'search',
      title: 'Search public resources',
      description: `Browse or full-text search the site's public, indexable resources; localized summaries with citation page_url. ${TOOL_PAGED} ${TOOL_READ_ONLY}`,
      listed: 1,
      paged: true,
    },
    async handler({ ctx, call, query: params }) {
      const window = publicationWindow(params);
      const filter = await categoryFilter(ctx, params.cat);
      const scope = pageScope(PATHS.search.template, params);
      const page = pageWindow(ctx, params, scope, params.sort === 'id' ? 1 : 3);
      const sort = params.sort as SearchSort;
      const rows = await searchResources(ctx.db, {
        ...(params.text !== undefined ? { text: params.text } : {}),
        ...filter,
        sort,
        ...window,
        siteNoindex: (await siteNoindexForQuery(ctx)),
        ...(page.after ? { after: page.after } : {}),
        offset: page.offset,
        limit: page.fetch,
      });
      const pageRows = rows.slice(0, params.pagelen);
      const ic = { base: call.base, options: ctx.options, requestedLanguage: params.language };
      const last = pageRows.at(-1);
      return buildPagedResult(ctx, call, params, scope, {
        items: pageRows.map((row) => summaryItem(ic, row)),
        hasMore: rows.length > params.pagelen,
        lastPosition: last ? searchPosition(sort, last) : undefined,
      });
    },
  });
}
