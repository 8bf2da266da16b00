import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import { categorySubtree, inIdSet, listable, publicCategory, type SiteNoindex } from './visibility.js';
import { epochSeconds, fromEpoch, runtimeValue, subsecondMicros } from './keyset.js';
import { summaryRows } from './summaries.js';
import { byRef, type ResourceRef } from './resource-ref.js';
import { reusableQuery } from '../db/reusable-query.js';
import { contentBinding } from '../db/content-binding.js';

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


const SORT_COLUMN = { newest: 'r.publication_start', oldest: 'r.publication_start', modified: 'r.modified' } as const;

/**
 * One page of anonymous-visible, indexable, non-meta resources. The order is total (id ascending
 * breaks ties) and `after` continues it by keyset, so a deep page costs what the first page costs.
 *
 * ```sql
 * SELECT r.id, ... FROM rsc r JOIN rsc cat ON cat.id = r.category_id
 * WHERE <anonymous-visible> AND <indexable> AND <not meta>
 *   AND r.fts @@ websearch_to_tsquery('<textSearch.configuration>', $1)
 *   AND r.publication_start <= $t AND (r.publication_start < $t OR r.id > $id)
 * ORDER BY r.publication_start DESC, r.id ASC LIMIT $n
 * ```
 */
export async function searchResources(db: Kysely<Database>, q: SearchQuery) {
  const { rows } = await db.executeQuery(compiledSearch(db, q));
  return rows;
}

/** The compiled statement `searchResources` runs: built once per shape (`reusableQuery`), then reused. */
export function compiledSearch(db: Kysely<Database>, q: SearchQuery) {
  return reusableSearch(db, withSearchText(q));
}

/** A row of {@link searchResources}: a summary row and its keyset position, as Kysely infers them. */
export type SearchRow = Awaited<ReturnType<typeof searchResources>>[number];

/** The query `searchResources` runs, unexecuted (for tests of its SQL and plan). */
export function searchQuery(db: Kysely<Database>, q: SearchQuery) {
  return searchStatement(db, withSearchText(q));
}

/** A text of only white space searches nothing: no text condition at all. */
const withSearchText = (q: SearchQuery): SearchQuery => (q.text !== undefined && q.text.trim() === '' ? { ...q, text: undefined } : q);

/** The statement of a search whose `text`, if any, is not blank (`withSearchText`). */
export function searchStatement(db: Kysely<Database>, q: SearchQuery) {
  let query = summaryRows(db).where(listable(q.siteNoindex, 'r'));
  if (q.text !== undefined) {
    query = query.where(sql<SqlBool>`r.fts @@ websearch_to_tsquery(${sql.lit(contentBinding(db).textConfiguration)}, ${q.text})`);
  }
  if (q.categoryIds) query = query.where(inIdSet('r.category_id', categorySubtree(q.categoryIds)));
  if (q.publishedFrom) query = query.where('r.publication_start', '>=', q.publishedFrom);
  if (q.publishedUntil) query = query.where('r.publication_start', '<', q.publishedUntil);

  if (q.sort === 'id') {
    return query
      .select([sql<number>`0`.as('sort_s'), sql<number>`0`.as('sort_us')])
      .$if(q.after !== undefined, (qb) => qb.where('r.id', '>', runtimeValue(q.after![0]!)))
      .orderBy('r.id', 'asc')
      .$call(pageBounds(q));
  }
  const column = SORT_COLUMN[q.sort];
  const descending = q.sort !== 'oldest';
  let paged = query.select([epochSeconds(column).as('sort_s'), subsecondMicros(column).as('sort_us')]);
  if (q.after) {
    const [seconds, micros, id] = q.after as [number, number, number];
    const t = fromEpoch(seconds, micros);
    // Descending time with ascending id cannot be one row comparison; the `<=` bound is the index
    // condition and the OR only drops the already-seen rows of the boundary instant.
    paged = descending
      ? paged.where(sql<SqlBool>`${sql.ref(column)} <= ${t}`).where(sql<SqlBool>`(${sql.ref(column)} < ${t} OR r.id > ${runtimeValue(id)})`)
      : paged.where(sql<SqlBool>`(${sql.ref(column)}, r.id) > (${t}, ${runtimeValue(id)})`);
  }
  return paged
    .orderBy(column, descending ? 'desc' : 'asc')
    .orderBy('r.id', 'asc')
    .$call(pageBounds(q));
}

/**
 * The page's bounds: `LIMIT`, and `OFFSET` only when there is one (page N without a continuation).
 * The limit stays a parameter: written into the SQL text it let a prepared statement keep its generic
 * plan at 1,000,000 rows (0.17 ms of PostgreSQL CPU per first page instead of 0.57 ms re-planned),
 * but on a small site that generic plan sorted every listable row (0.52 ms against 0.20 ms), and the
 * cost goals are measured on a small site.
 */
const pageBounds =
  (q: Pick<SearchQuery, 'limit' | 'offset'>) =>
  <T extends { limit(n: number): T; offset(n: number): T }>(qb: T): T => {
    const limited = qb.limit(q.limit);
    return q.offset ? limited.offset(q.offset) : limited;
  };

/** The search's shape: the sort (the SQL text also depends on which filters are present, see `reusableQuery`). */
export const SEARCH_SHAPE = ['sort'] as const satisfies readonly (keyof SearchQuery)[];

const reusableSearch = reusableQuery(searchStatement, [...SEARCH_SHAPE]);

/** The keyset position of a row in the given sort. */
export function searchPosition(sort: SearchSort, row: SearchRow): number[] {
  return sort === 'id' ? [row.id] : [Number(row.sort_s), Number(row.sort_us), row.id];
}

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
