import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { SiteNoindex } from './visibility.js';
import { resourceReadColumns } from './resource.js';
import { inSearchOrder, pageBounds, positionColumns, searchConditions, searchPosition, whereAll, type SearchQuery } from './search-statement.js';
import { reusableQuery } from '../db/reusable-query.js';

/** Which of the newest resources to read: the next `limit` after the keyset position `after`. */
export interface NewestResourcesQuery {
  siteNoindex: SiteNoindex;
  /** The position of the last row read (`NewestResources.next`); absent for the newest. */
  after?: readonly number[] | undefined;
  limit: number;
}

/**
 * The statement of {@link readNewestResources}: the search's `sort=newest` walk (its conditions,
 * order and keyset) selecting what `readVisibleResource` selects.
 *
 * ```sql
 * SELECT r.id, …, r.body, r.blocks, r.props, …, m.mime AS medium_mime, …, (WITH RECURSIVE chain …) AS category_chain, <position>
 * FROM rsc r LEFT JOIN rsc cat ON cat.id = r.category_id AND <anonymous-visible cat> LEFT JOIN medium m ON m.rsc_id = r.id
 * WHERE <anonymous-visible r> AND <indexable r> AND <not meta r>
 *   AND r.publication_start <= $t AND (r.publication_start < $t OR r.id > $id)
 * ORDER BY r.publication_start DESC, r.id ASC LIMIT $n
 * ```
 */
function newestResourcesStatement(db: Kysely<Database>, { siteNoindex, after, limit }: NewestResourcesQuery) {
  const q: SearchQuery = { sort: 'newest', siteNoindex, offset: 0, limit, ...(after ? { after } : {}) };
  const query = whereAll(resourceReadColumns(db), searchConditions(db, q)).select(positionColumns(q.sort));
  return inSearchOrder(query, q.sort).$call(pageBounds(q));
}

const reusableNewestResources = reusableQuery(newestResourcesStatement);

/**
 * The next `limit` resources the search lists newest first (anonymous-visible, indexable, not
 * vocabulary: `listable`), each read whole as `readVisibleResource` reads one, in one statement, and
 * the position to continue after (`undefined` past the last).
 *
 * ```ts
 * const first = await readNewestResources(db, { siteNoindex: false, limit: 50 })
 * const second = await readNewestResources(db, { siteNoindex: false, after: first.next, limit: 50 })
 * ```
 */
export async function readNewestResources(db: Kysely<Database>, q: NewestResourcesQuery) {
  const { rows } = await db.executeQuery(reusableNewestResources(db, q));
  const last = rows.at(-1);
  return { rows, next: last && rows.length >= q.limit ? searchPosition('newest', last) : undefined };
}

/** A row of {@link readNewestResources}: a `ResourceRow` and its keyset position. */
export type NewestResourceRow = Awaited<ReturnType<typeof readNewestResources>>['rows'][number];
