import type { Kysely } from 'kysely';
import type { Database, LocalizedText } from '../db/schema.js';
import { anonymousVisible } from './visibility.js';
import { idValue } from './resource-ref.js';
import { reusableQuery } from '../db/reusable-query.js';

/** At most this many endpoints are read per resource (a resource with thousands of tags lists the first ones). */
export const MAX_NAMED_EDGES = 100;

export interface NamedEdgeEndpoint {
  /** The predicate's name (one of those asked for). */
  predicate: string;
  id: number;
  title: LocalizedText;
}

/**
 * The anonymous-visible objects of a resource's edges through the predicates named `names` (its
 * authors, its tags), in editorial order; an edge whose predicate or object is not anonymous-visible
 * is left out, so a private author is never named. One statement, on the `(subject_id, …)` edge index.
 *
 * ```sql
 * select "p"."name" as "predicate", "o"."id", "o"."title" from "edge" as "e"
 * inner join "rsc" as "p" on "p"."id" = "e"."predicate_id"
 * inner join "rsc" as "o" on "o"."id" = "e"."object_id"
 * where "e"."subject_id" = $1 and "p"."name" in ($2, $3) and (<anonymous-visible p>) and (<anonymous-visible o>)
 * order by "e"."seq", "e"."id" limit 100
 * ```
 */
export async function namedEdgeEndpoints(db: Kysely<Database>, resourceId: number, names: readonly string[]): Promise<NamedEdgeEndpoint[]> {
  if (!names.length) return [];
  const { rows } = await db.executeQuery(reusableNamedEdges(db, { resourceId, names: [...names] }));
  return rows.map((r) => ({ predicate: r.predicate ?? '', id: Number(r.id), title: r.title }));
}

/** The statement of {@link namedEdgeEndpoints}. */
function namedEdgesQuery(db: Kysely<Database>, { resourceId, names }: { resourceId: number; names: string[] }) {
  return db
    .selectFrom('edge as e')
    .innerJoin('rsc as p', 'p.id', 'e.predicate_id')
    .innerJoin('rsc as o', 'o.id', 'e.object_id')
    .select(['p.name as predicate', 'o.id', 'o.title'])
    .where('e.subject_id', '=', idValue(resourceId))
    .where('p.name', 'in', names)
    .where(anonymousVisible('p'))
    .where(anonymousVisible('o'))
    .orderBy('e.seq')
    .orderBy('e.id')
    .limit(MAX_NAMED_EDGES);
}

const reusableNamedEdges = reusableQuery(namedEdgesQuery);
