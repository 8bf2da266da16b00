import type { Kysely } from 'kysely';
import { runtimeValue } from './keyset.js';
import type { Database } from '../db/schema.js';
import { anonymousVisible, indexable, inIdSet, namedCategoryTree, type SiteNoindex } from './visibility.js';
import { SUMMARY_COLUMNS, type SummaryRow } from './summaries.js';
import { byRef, idValue, type ResourceRef } from './resource-ref.js';
import { reusableQuery } from '../db/reusable-query.js';

/** SUMMARY_COLUMNS split by table: the endpoint's own (`r.`) and its category's (`cat.`). */
const ENDPOINT_COLUMNS = SUMMARY_COLUMNS.filter((c) => c.startsWith('r.')) as Extract<(typeof SUMMARY_COLUMNS)[number], `r.${string}`>[];
const CATEGORY_COLUMNS = SUMMARY_COLUMNS.filter((c) => c.startsWith('cat.')) as Extract<(typeof SUMMARY_COLUMNS)[number], `cat.${string}`>[];

/**
 * Edge reads. Two orders, each served by its own index:
 * - the facade's keyset order (predicate id, endpoint id) through the unique edge indexes
 *   `(subject_id, predicate_id, object_id)` and `(object_id, predicate_id, subject_id)`;
 * - the editorial order (seq, edge id) of the compatibility model API through
 *   `(subject_id, predicate_id, seq, id)` and `(object_id, predicate_id, seq, id)`.
 */

/** `out`: edges where the resource is the subject (endpoint = object); `in`: where it is the object. */
export type EdgeDirection = 'out' | 'in';

/** The column holding the resource itself, and the one holding the other end, per direction. */
const SIDES = {
  out: { near: 'e.subject_id', far: 'e.object_id' },
  in: { near: 'e.object_id', far: 'e.subject_id' },
} as const;

export interface EdgeCandidateQuery {
  resourceId: number;
  direction: EdgeDirection;
  predicateId?: number | undefined;
  /** Keyset position `[predicate_id, endpoint_id]`: continue strictly after it. */
  after?: readonly [number, number] | undefined;
  /** Candidates to skip first (page N without a continuation); 0 with a keyset position. */
  offset: number;
  /** Candidates to fetch: `pagelen + 1`. */
  limit: number;
}

/**
 * The candidate edges of one page, in (predicate id, endpoint id) order, straight off the unique
 * index: the resource, the predicate and the whole keyset position are index conditions, so no
 * sort ever runs and a deep page costs what the first one costs.
 *
 * ```sql
 * select "e"."id" as "edge_id", "e"."predicate_id", "e"."object_id" as "endpoint_id"
 * from "edge" as "e"
 * where "e"."subject_id" = $1 and "e"."predicate_id" = $2
 *   and ("e"."predicate_id", "e"."object_id") > ($3, $4)
 * order by "e"."predicate_id", "e"."object_id" limit $5
 * ```
 */
export function edgeCandidates(db: Kysely<Database>, q: EdgeCandidateQuery) {
  const { near, far } = SIDES[q.direction];
  let query = db
    .selectFrom('edge as e')
    .select(['e.id as edge_id', 'e.predicate_id', `${far} as endpoint_id`])
    .where(near, '=', idValue(q.resourceId));
  if (q.predicateId !== undefined) query = query.where('e.predicate_id', '=', idValue(q.predicateId));
  if (q.after) {
    const [predicateId, endpointId] = q.after;
    query = query.where((eb) => eb(eb.refTuple('e.predicate_id', far), '>', eb.tuple(runtimeValue(predicateId), runtimeValue(endpointId))));
  }
  query = query.orderBy('e.predicate_id').orderBy(far).limit(q.limit);
  // Truthiness, not `> 0`: a reusable query's shape records it (offsets are never negative).
  return q.offset ? query.offset(q.offset) : query;
}


export interface EdgeCandidate {
  edge_id: number;
  predicate_id: number;
  endpoint_id: number;
  /** The predicate's name, or undefined when the predicate is not anonymous-visible. */
  predicate: { id: number; name: string | null } | undefined;
  /** The endpoint's summary row, or undefined when it is not anonymous-visible and indexable. */
  endpoint: SummaryRow | undefined;
}

/**
 * One page of candidate edges with what an anonymous visitor may see of each, in one statement:
 * the `pagelen + 1` candidates come from {@link edgeCandidates} (a derived table, so its LIMIT
 * bounds the work), then each candidate's endpoint and predicate is looked up by primary key under
 * the anonymous-visible and indexable rules (and the endpoint's category by its id). The lookups are LATERAL subqueries with `LIMIT 1`, which
 * PostgreSQL cannot flatten into a join it might merge (and sort) on: it has to run them as a nested
 * loop over the candidates, so the plan holds no Sort node whatever the statistics say. Hidden
 * candidates stay in the result (with no endpoint or predicate) so the caller can continue after
 * the last *candidate*, not the last visible item.
 *
 * ```sql
 * select c.edge_id, c.predicate_id, c.endpoint_id, pv.id, pv.name, x.*, xc.*
 * from (<edgeCandidates>) as c
 * left join lateral (select r.id, r.title, ... from rsc as r
 *   where r.id = c.endpoint_id and <anonymous-visible r> and <indexable r> limit 1) as x on true
 * left join lateral (select cat.name as category_name, cat.title as category_title from rsc as cat
 *   where cat.id = x.category_id limit 1) as xc on true
 * left join lateral (select p.id, p.name from rsc as p
 *   where p.id = c.predicate_id and <anonymous-visible p> and <indexable p> limit 1) as pv on true
 * ```
 */
export function edgePageQuery(db: Kysely<Database>, q: EdgeCandidateQuery & { siteNoindex: SiteNoindex }) {
  return db
    .selectFrom(edgeCandidates(db, q).as('c'))
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('rsc as r')
          .select(ENDPOINT_COLUMNS)
          .whereRef('r.id', '=', 'c.endpoint_id')
          .where(anonymousVisible('r'))
          .where(indexable(q.siteNoindex, 'r'))
          .limit(1)
          .as('x'),
      (join) => join.onTrue(),
    )
    .leftJoinLateral(
      // The endpoint's category only when it is public itself (as in every item).
      (eb) =>
        eb.selectFrom('rsc as cat').select(CATEGORY_COLUMNS).whereRef('cat.id', '=', 'x.category_id').where(anonymousVisible('cat')).limit(1).as('xc'),
      (join) => join.onTrue(),
    )
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('rsc as p')
          .select(['p.id', 'p.name'])
          .whereRef('p.id', '=', 'c.predicate_id')
          .where(anonymousVisible('p'))
          .where(indexable(q.siteNoindex, 'p'))
          .limit(1)
          .as('pv'),
      (join) => join.onTrue(),
    )
    .select(['c.edge_id', 'c.predicate_id', 'c.endpoint_id', 'pv.id as visible_predicate_id', 'pv.name as predicate_name'])
    .selectAll('x')
    .selectAll('xc');
}

/**
 * Runs {@link edgePageQuery}. The join may return the candidates in any order; they are put back in
 * keyset order here (at most `pagelen + 1` rows, so this is not a sort of the node's edges).
 */
export async function edgePage(db: Kysely<Database>, q: EdgeCandidateQuery & { siteNoindex: SiteNoindex }): Promise<EdgeCandidate[]> {
  const { rows } = await db.executeQuery(compiledEdgePage(db, q));
  return toCandidates(rows);
}

/** A row of {@link edgePageQuery}, as Kysely infers it. */
type EdgePageRow = Awaited<ReturnType<ReturnType<typeof edgePageQuery>['executeTakeFirstOrThrow']>>;

/** Candidate rows in keyset order (at most `pagelen + 1` rows, so this is not a sort of the node's edges). */
function toCandidates(rows: readonly EdgePageRow[]): EdgeCandidate[] {
  return rows
    .map((row): EdgeCandidate => {
      const { edge_id, predicate_id, endpoint_id, visible_predicate_id, predicate_name } = row;
      return {
        edge_id: Number(edge_id),
        predicate_id: Number(predicate_id),
        endpoint_id: Number(endpoint_id),
        predicate: visible_predicate_id === null ? undefined : { id: Number(predicate_id), name: predicate_name },
        // The row itself, its edge columns beside the summary's, rather than a copy without them (about
        // 0.4 µs and one object per row): only the summary columns are read from it.
        endpoint: row.id === null ? undefined : (row as SummaryRow),
      };
    })
    .sort((a, b) => a.predicate_id - b.predicate_id || a.endpoint_id - b.endpoint_id);
}

/**
 * A page of a resource's edges and the resource itself in one statement (one round trip, not two):
 * the resource, by id, under the anonymous-visible rule in a derived table, and the page
 * ({@link edgePageQuery}) LEFT JOINed to it. No row: the resource is not visible; one row without an
 * edge: it has no candidate left. The page's candidates are bound to the id as a value, not to the
 * derived table's column: with a column the planner estimates the edges of an average node, and
 * for a few it prefers sorting them to the ordered index scan, which a hub would pay in full.
 *
 * ```sql
 * select t.id as target_id, pg.* from (select r.id from rsc r where r.id = $1 and <anonymous-visible r>) t
 * left join lateral (<edgePageQuery, where near = $1>) pg on true
 * ```
 */
export function relatedPageQuery(db: Kysely<Database>, q: EdgeCandidateQuery & { siteNoindex: SiteNoindex }) {
  return db
    .selectFrom(db.selectFrom('rsc as r').select('r.id').where('r.id', '=', idValue(q.resourceId)).where(anonymousVisible('r')).as('t'))
    .leftJoinLateral(edgePageQuery(db, q).as('pg'), (join) => join.onTrue())
    .select('t.id as target_id')
    .selectAll('pg');
}

/** Runs {@link relatedPageQuery}: the page's candidates, or undefined when the resource is not visible. */
export async function relatedPage(db: Kysely<Database>, q: EdgeCandidateQuery & { siteNoindex: SiteNoindex }): Promise<EdgeCandidate[] | undefined> {
  const { rows } = await db.executeQuery(compiledRelatedPage(db, q));
  if (!rows.length) return undefined;
  return toCandidates(rows.filter((row) => row.edge_id !== null) as EdgePageRow[]);
}

/** The compiled statement `relatedPage` runs, built once per shape. */
export const compiledRelatedPage = reusableQuery(relatedPageQuery, ['direction']);

/** The compiled statement `edgePage` runs: built once per shape (`reusableQuery`), then reused. */
export const compiledEdgePage = reusableQuery(edgePageQuery, ['direction']);

/** Who is asking: an anonymous visitor, or a caller who may see everything. */
export type EdgeAccess = 'anonymous' | 'all';

/**
 * The id of a resource the caller may see (`anonymous`: anonymous-visible; `all`: it exists), by
 * id or unique name; `undefined` otherwise.
 */
export async function resolveResource(db: Kysely<Database>, ref: ResourceRef, access: EdgeAccess): Promise<number | undefined> {
  const [row] = (await db.executeQuery(reusableResolve(db, { ref, access }))).rows;
  return row === undefined ? undefined : Number(row.id);
}

const reusableResolve = reusableQuery(
  (db: Kysely<Database>, p: { ref: ResourceRef; access: EdgeAccess }) =>
    db
      .selectFrom('rsc as r')
      .select('r.id')
      .where(byRef('r', p.ref))
      .$if(p.access === 'anonymous', (qb) => qb.where(anonymousVisible('r'))),
  ['access'],
);

/**
 * The id of a predicate (a resource in the `predicate` category tree) the caller may see, by id or
 * unique name; `undefined` when it is unknown, not a predicate, or hidden from the caller.
 */
export async function resolvePredicate(db: Kysely<Database>, ref: ResourceRef, access: EdgeAccess): Promise<number | undefined> {
  const row = await db
    .selectFrom('rsc as r')
    .select('r.id')
    .where(byRef('r', ref))
    .where(inIdSet('r.category_id', namedCategoryTree('predicate')))
    .$if(access === 'anonymous', (qb) => qb.where(anonymousVisible('r')))
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}

/** The columns of an edge as the compatibility model API lists them. */
export interface EdgeProps {
  id: number;
  subject_id: number;
  predicate_id: number;
  object_id: number;
  seq: number;
  created: Date;
}

export interface EditorialEdgeQuery {
  resourceId: number;
  /** `out`: the resource's objects (`o`); `in`: its subjects (`s`). */
  direction: EdgeDirection;
  predicateId: number;
  access: EdgeAccess;
  /** The subset `[offset, offset + limit)`; the whole list when undefined. */
  window?: { offset: number; limit: number } | undefined;
}

/**
 * Edges of one resource and predicate in editorial order (seq, then edge id), for the compatibility
 * model API. With `anonymous` access, edges to endpoints an anonymous visitor cannot see are
 * skipped before the window is applied, so a subset is always a slice of the caller's full list.
 *
 * ```sql
 * select e.id, e.subject_id, e.predicate_id, e.object_id, e.seq, e.created from edge as e
 * inner join rsc as r on r.id = e.object_id and <anonymous-visible r>   -- anonymous only
 * where e.subject_id = $1 and e.predicate_id = $2
 * order by e.seq, e.id offset $3 limit $4
 * ```
 */
export function editorialEdgesQuery(db: Kysely<Database>, q: EditorialEdgeQuery) {
  const { near, far } = SIDES[q.direction];
  let query = db
    .selectFrom('edge as e')
    .select(['e.id', 'e.subject_id', 'e.predicate_id', 'e.object_id', 'e.seq', 'e.created'])
    .where(near, '=', idValue(q.resourceId))
    .where('e.predicate_id', '=', idValue(q.predicateId));
  if (q.access === 'anonymous') {
    query = query.innerJoin('rsc as r', (join) => join.onRef('r.id', '=', far).on(anonymousVisible('r')));
  }
  query = query.orderBy('e.seq').orderBy('e.id');
  if (q.window) query = query.offset(q.window.offset).limit(q.window.limit);
  return query;
}

/** Runs {@link editorialEdgesQuery}. */
export async function editorialEdges(db: Kysely<Database>, q: EditorialEdgeQuery): Promise<EdgeProps[]> {
  const rows = await editorialEdgesQuery(db, q).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    subject_id: Number(r.subject_id),
    predicate_id: Number(r.predicate_id),
    object_id: Number(r.object_id),
    seq: Number(r.seq),
    created: r.created,
  }));
}
