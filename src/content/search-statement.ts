import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import { categorySubtree, inIdSet, listable, type SiteNoindex } from './visibility.js';
import { epochSeconds, fromEpoch, runtimeValue, subsecondMicros } from './keyset.js';
import { SUMMARY_COLUMNS, summaryRows } from './summaries.js';
import { contentBinding } from '../db/content-binding.js';
import { reusableQuery } from '../db/reusable-query.js';

export type SearchSort = 'id' | 'newest' | 'oldest' | 'modified';

export interface SearchQuery {
  text?: string | undefined;
  /** Category ids whose subtrees to search. */
  categoryIds?: number[];
  sort: SearchSort;
  /** Inclusive lower bound on publication start. */
  publishedFrom?: Date;
  /** Exclusive upper bound on publication start (the day after the `before` date). */
  publishedUntil?: Date;
  siteNoindex: SiteNoindex;
  /** Keyset position after which to continue: `[id]`, or `[epoch seconds, microseconds, id]`. */
  after?: readonly number[];
  offset: number;
  limit: number;
}

/** A search with a text that is not blank. */
export type TextSearchQuery = SearchQuery & { text: string };

const SORT_COLUMN = { newest: 'r.publication_start', oldest: 'r.publication_start', modified: 'r.modified' } as const;

/** The text's tsquery, parsed with the plugin's text search configuration. */
export const tsQuery = (db: Kysely<Database>, text: string) => sql<unknown>`websearch_to_tsquery(${sql.lit(contentBinding(db).textConfiguration)}, ${text})`;

/** The text condition on `r`: `r.fts @@ websearch_to_tsquery('<configuration>', $1)`. */
const textMatch = (db: Kysely<Database>, text: string) => sql<SqlBool>`r.fts @@ ${tsQuery(db, text)}`;

/**
 * The conditions on `r` of a search: listable, the text (unless `text` is false), the category, the
 * publication window and the keyset position. Descending time with ascending id cannot be one row
 * comparison; the `<=` bound is the index condition and the OR only drops the already-seen rows of
 * the boundary instant.
 */
export function searchConditions(db: Kysely<Database>, q: SearchQuery, text = true): Expression<SqlBool>[] {
  const conditions = [listable(q.siteNoindex, 'r')];
  if (text && q.text !== undefined) conditions.push(textMatch(db, q.text));
  if (q.categoryIds) conditions.push(inIdSet('r.category_id', categorySubtree(q.categoryIds)));
  if (q.publishedFrom) conditions.push(sql<SqlBool>`${sql.ref('r.publication_start')} >= ${q.publishedFrom}`);
  if (q.publishedUntil) conditions.push(sql<SqlBool>`${sql.ref('r.publication_start')} < ${q.publishedUntil}`);
  if (!q.after) return conditions;
  if (q.sort === 'id') return [...conditions, sql<SqlBool>`${sql.ref('r.id')} > ${runtimeValue(q.after[0]!)}`];
  const column = sql.ref(SORT_COLUMN[q.sort]);
  const [seconds, micros, id] = q.after as [number, number, number];
  const t = fromEpoch(seconds, micros);
  return q.sort === 'oldest'
    ? [...conditions, sql<SqlBool>`(${column}, r.id) > (${t}, ${runtimeValue(id)})`]
    : [...conditions, sql<SqlBool>`${column} <= ${t}`, sql<SqlBool>`(${column} < ${t} OR r.id > ${runtimeValue(id)})`];
}

/** `qb` with every condition. */
export const whereAll = <T extends { where(condition: Expression<SqlBool>): T }>(qb: T, conditions: readonly Expression<SqlBool>[]): T =>
  conditions.reduce((acc, c) => acc.where(c), qb);

/** The sort's order on `r` as SQL terms, total: id ascending breaks ties (`"r"."publication_start" desc, "r"."id" asc`). */
export function searchOrderTerms(sort: SearchSort): Expression<unknown>[] {
  const id = sql`${sql.ref('r.id')} asc`;
  return sort === 'id' ? [id] : [sql`${sql.ref(SORT_COLUMN[sort])} ${sql.raw(sort === 'oldest' ? 'asc' : 'desc')}`, id];
}

/** `qb` ordered in the sort's order (`searchOrderTerms`). */
export const inSearchOrder = <T extends { orderBy(expression: Expression<unknown>): T }>(qb: T, sort: SearchSort): T =>
  searchOrderTerms(sort).reduce((acc, term) => acc.orderBy(term), qb);

/** The keyset position's columns of a row of `r` in the sort (`searchPosition` reads them). */
export function positionColumns(sort: SearchSort) {
  if (sort === 'id') return [sql<number>`0`.as('sort_s'), sql<number>`0`.as('sort_us')];
  return [epochSeconds(SORT_COLUMN[sort]).as('sort_s'), subsecondMicros(SORT_COLUMN[sort]).as('sort_us')];
}

/** The summary columns of the resource itself (`r.`); the others are its category's (`cat.`). */
export const RESOURCE_COLUMNS = SUMMARY_COLUMNS.filter((c) => c.startsWith('r.')) as Extract<(typeof SUMMARY_COLUMNS)[number], `r.${string}`>[];

/**
 * The page's bounds: `LIMIT`, and `OFFSET` only when there is one (page N without a continuation).
 * The limit stays a parameter: written into the SQL text it let a prepared statement keep its generic
 * plan at 1,000,000 rows (0.17 ms of PostgreSQL CPU per first page instead of 0.57 ms re-planned),
 * but on a small site that generic plan sorted every listable row (0.52 ms against 0.20 ms), and the
 * cost goals are measured on a small site.
 */
export const pageBounds =
  (q: Pick<SearchQuery, 'limit' | 'offset'>) =>
  <T extends { limit(n: number): T; offset(n: number): T }>(qb: T): T => {
    const limited = qb.limit(q.limit);
    return q.offset ? limited.offset(q.offset) : limited;
  };

/**
 * The complete statement of a search: the sort's index walked in order, each row tested, until the
 * page is full. For a text search it is exact for any word but fast only for a common one (see
 * `textSearchPage`).
 *
 * ```sql
 * SELECT r.id, ... FROM rsc r LEFT JOIN rsc cat ON cat.id = r.category_id AND <anonymous-visible cat>
 * WHERE <anonymous-visible> AND <indexable> AND <not meta>
 *   AND r.fts @@ websearch_to_tsquery('<textSearch.configuration>', $1)
 *   AND r.publication_start <= $t AND (r.publication_start < $t OR r.id > $id)
 * ORDER BY r.publication_start DESC, r.id ASC LIMIT $n
 * ```
 */
export function searchStatement(db: Kysely<Database>, q: SearchQuery) {
  const query = whereAll(summaryRows(db), searchConditions(db, q)).select(positionColumns(q.sort));
  return inSearchOrder(query, q.sort).$call(pageBounds(q));
}

/** The search's shape: the sort (the SQL text also depends on which filters are present, see `reusableQuery`). */
export const SEARCH_SHAPE = ['sort'] as const satisfies readonly (keyof SearchQuery)[];

/** The keyset position of a row in the given sort. */
export function searchPosition(sort: SearchSort, row: { id: number; sort_s: unknown; sort_us: unknown }): number[] {
  return sort === 'id' ? [row.id] : [Number(row.sort_s), Number(row.sort_us), row.id];
}

/** `searchStatement`, built once per shape and compiled with the query's values. */
export const compiledSearchStatement = reusableQuery(searchStatement, [...SEARCH_SHAPE]);
