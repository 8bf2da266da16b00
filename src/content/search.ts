import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { publicCategory, type SiteNoindex } from './visibility.js';
import { byRef, type ResourceRef } from './resource-ref.js';
import { compiledSearchStatement, searchStatement, type SearchQuery, type TextSearchQuery } from './search-statement.js';
import { textSearchPage } from './text-search.js';

export { SEARCH_SHAPE, searchPosition, searchStatement, type SearchQuery, type SearchSort, type TextSearchQuery } from './search-statement.js';

/**
 * One page of anonymous-visible, indexable, non-meta resources. The order is total (id ascending
 * breaks ties) and `after` continues it by keyset, so a deep page costs what the first page costs.
 * A text search runs one or two statements (`textSearchPage`), each exact on its own.
 */
export async function searchResources(db: Kysely<Database>, q: SearchQuery) {
  const query = withSearchText(q);
  if (isTextSearch(query)) return textSearchPage(db, query);
  return (await db.executeQuery(compiledSearchStatement(db, query))).rows;
}

/**
 * The complete statement of a search (`searchStatement`), built once per shape (`reusableQuery`):
 * what `searchResources` runs for a browse, and for a text search the walk it falls back on.
 */
export function compiledSearch(db: Kysely<Database>, q: SearchQuery) {
  return compiledSearchStatement(db, withSearchText(q));
}

/** A row of {@link searchResources}: a summary row and its keyset position, as Kysely infers them. */
export type SearchRow = Awaited<ReturnType<typeof searchResources>>[number];

/** The query `compiledSearch` compiles, unexecuted (for tests of its SQL and plan). */
export function searchSelect(db: Kysely<Database>, q: SearchQuery) {
  return searchStatement(db, withSearchText(q));
}

/** A text of only white space searches nothing: no text condition at all. */
const withSearchText = (q: SearchQuery): SearchQuery => (q.text !== undefined && q.text.trim() === '' ? { ...q, text: undefined } : q);

const isTextSearch = (q: SearchQuery): q is TextSearchQuery => q.text !== undefined;

/**
 * Resolves a `cat` parameter (name or id) to a category id, only when the category is public
 * vocabulary (the schema read's rule); `undefined` otherwise, exactly as for a missing category.
 */
export async function resolveCategory(db: Kysely<Database>, ref: ResourceRef, siteNoindex: SiteNoindex): Promise<number | undefined> {
  const row = await db
    .selectFrom('category as c')
    .innerJoin('rsc as r', 'r.id', 'c.id')
    .select('c.id')
    .where(publicCategory(siteNoindex, 'r', 'c'))
    // `r` is the category's own resource (r.id = c.id).
    .where(byRef('r', ref))
    .executeTakeFirst();
  return row?.id;
}
