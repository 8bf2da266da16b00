import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { SiteNoindex } from './visibility.js';
import { resourceReadColumns } from './resource.js';
import { fromResourcesWithCategory } from './summaries.js';
import { categoryChainColumn } from './composable-resources.js';
import { compositionFingerprints, ownVersions } from './composition-reads.js';
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

/**
 * The `limit` newest listable resources (the order and rule of {@link readNewestResources}) with, for
 * each, the exact key of its compositions as its own read computes it (`readVisibleResource` with
 * exact keys): its own, its medium's and category's row versions, its category chain's names, and the
 * fingerprint of what its compositions read (`compositionFingerprints`, from `readsById`: each
 * resource's remembered reads by id), in one statement, so one snapshot of the content. Only the
 * columns a listing shows besides (no body): llms-full.txt assembles the kept compositions by these keys.
 *
 * ```sql
 * SELECT r.id, r.title, r.summary, r.language, (…category chain…) AS category_chain,
 *   r.xmin::text || … AS own_versions, CASE WHEN ($1::jsonb -> r.id::text) IS NULL THEN … END AS composition_fingerprint,
 *   pg_postmaster_start_time()::text AS server_started
 * FROM rsc r LEFT JOIN rsc cat ON … LEFT JOIN medium m ON m.rsc_id = r.id
 * WHERE <listable r> ORDER BY r.publication_start DESC, r.id ASC LIMIT $n
 * ```
 */
export async function readNewestCompositionKeys(db: Kysely<Database>, q: { limit: number; readsById: string; predicates: readonly string[] }) {
  const search: SearchQuery = { sort: 'newest', siteNoindex: false, offset: 0, limit: q.limit };
  const columns = fromResourcesWithCategory(db)
    .leftJoin('medium as m', 'm.rsc_id', 'r.id')
    .select(['r.id', 'r.title', 'r.summary', 'r.language'])
    .select([
      categoryChainColumn('r').as('category_chain'),
      ownVersions().as('own_versions'),
      compositionFingerprints('r', q.readsById, q.predicates).as('composition_fingerprint'),
      sql<string>`pg_postmaster_start_time()::text`.as('server_started'),
    ]);
  const statement = inSearchOrder(whereAll(columns, searchConditions(db, search)), 'newest').$call(pageBounds(search));
  return statement.execute();
}

/** A row of {@link readNewestCompositionKeys}. */
export type NewestCompositionKey = Awaited<ReturnType<typeof readNewestCompositionKeys>>[number];
