import { CANDIDATE_LIMIT } from './parameters.js';
import { continuationScope } from './continuation.js';
import type { FacadeCall } from './facade-call.js';
import type { RouteContext } from './route-context.js';
import { formPair } from './urls.js';

/** The paging parameters every paged read accepts. */
export interface PageParams {
  page: number;
  pagelen: number;
  cursor?: string | undefined;
}

/** Where to read the page's candidates from: a keyset position, or an offset for a first visit. */
export interface PageWindow {
  after: number[] | undefined;
  offset: number;
  /** Candidates to fetch: one more than the page, to learn whether there is a next page. */
  fetch: number;
}

/**
 * The scope a continuation is bound to (the route and every parameter but the position), worked out
 * when first asked for: a page that has no next page and was not reached by a cursor never needs it.
 */
export type PageScope = () => string;

/** The {@link PageScope} of a read: `continuationScope(route, params)`, computed once, on first use. */
export function pageScope(route: string, params: Record<string, unknown>): PageScope {
  let scope: string | undefined;
  return () => (scope ??= continuationScope(route, params));
}

/**
 * Chooses the read window. With a continuation the read starts after its keyset position of
 * `positionLength` integers (no offset); without one, page N starts at offset (N-1) × pagelen.
 * A continuation only opens the page it was issued for, so the candidate bound cannot be skipped.
 */
export function pageWindow(ctx: Pick<RouteContext, 'continuations'>, params: PageParams, scope: PageScope, positionLength: number): PageWindow {
  if (params.cursor) {
    return { after: ctx.continuations.decode(scope(), params.page, params.cursor, positionLength), offset: 0, fetch: params.pagelen + 1 };
  }
  return { after: undefined, offset: (params.page - 1) * params.pagelen, fetch: params.pagelen + 1 };
}

/**
 * The paged result envelope. `hasMore` says whether candidates remain after this page; the next
 * page continues after `lastPosition`. At the 10,000-candidate bound the walk stops with
 * `limit_reached: true`.
 */
export function buildPagedResult<T>(
  ctx: Pick<RouteContext, 'continuations'>,
  call: FacadeCall,
  params: PageParams,
  scope: PageScope,
  page: { items: T[]; hasMore: boolean; lastPosition: number[] | undefined },
) {
  const atBound = params.page * params.pagelen >= CANDIDATE_LIMIT;
  const next = page.hasMore && !atBound && page.lastPosition !== undefined;
  let next_url: string | null = null;
  if (next) {
    let query = '';
    for (const [k, v] of call.query) if (k !== 'page' && k !== 'cursor') query += `${formPair(k, v)}&`;
    query += `page=${params.page + 1}&cursor=${ctx.continuations.encode(scope(), params.page + 1, page.lastPosition!)}`;
    next_url = `${call.base}${call.path}?${query}`;
  }
  return {
    items: page.items,
    page: params.page,
    pagelen: params.pagelen,
    next,
    next_url,
    limit_reached: page.hasMore && atBound,
  };
}
