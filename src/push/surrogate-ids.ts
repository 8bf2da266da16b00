import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { PushDatabase } from './push-database.js';
import { MAX_RESOURCE_ID } from './resource-input.js';

/**
 * Ids the database chooses itself (a string id's numeric id, a category pushed without an id): free
 * and inside the read API's range, so that every resource pushed can be read back by id. They are
 * counted down from the top of the range ({@link MAX_RESOURCE_ID}, 999,999,999,999,999), the n-th
 * being `999,999,999,999,999 + 1 − n` with n from the `rsc` id sequence: a host's own numeric ids
 * count up from 1, so the two never meet (a host that pushes its next numeric id finds it free), and
 * a numeric id the host pushes never moves them. Should a chosen id be taken all the same, the next
 * free one below it is taken.
 */

/** The `rsc` id sequence, as SQL. */
export const RSC_SEQUENCE = sql`pg_get_serial_sequence('rsc', 'id')`;

/** The next id counted down from the top of the range (one call of the sequence). */
export const NEXT_ID: RawBuilder<number> = sql<number>`(${MAX_RESOURCE_ID + 1}::bigint - nextval(${RSC_SEQUENCE}))`;

/** The condition that the id `candidate` (SQL) is free: in range, and neither a resource's nor a mapping's. */
export function freeId(candidate: RawBuilder<unknown>): RawBuilder<boolean> {
  return sql<boolean>`(${candidate} BETWEEN 1 AND ${MAX_RESOURCE_ID}
    AND NOT EXISTS (SELECT 1 FROM rsc x WHERE x.id = ${candidate})
    AND NOT EXISTS (SELECT 1 FROM agent_discovery_external_id x WHERE x.rsc_id = ${candidate}))`;
}

/**
 * The next `count` ids counted down, each with whether it is free (and not one of `exclude`).
 *
 * ```sql
 * SELECT c.id, (c.id BETWEEN 1 AND 999999999999999 AND NOT EXISTS (…rsc…) AND NOT EXISTS (…mapping…) AND c.id <> ALL($2)) AS free
 *   FROM (SELECT 1000000000000000 - nextval(pg_get_serial_sequence('rsc', 'id')) AS id FROM generate_series(1, $1)) c
 * ```
 */
async function nextIds(db: Kysely<PushDatabase>, count: number, exclude: readonly number[]): Promise<{ id: number; free: boolean }[]> {
  const { rows } = await sql<{ id: string | number; free: boolean }>`
    SELECT c.id, (${freeId(sql`c.id`)} AND c.id <> ALL(${[...exclude]}::bigint[])) AS free
    FROM (SELECT ${NEXT_ID} AS id FROM generate_series(1, ${count}::int)) c`.execute(db);
  return rows.map((r) => ({ id: Number(r.id), free: r.free }));
}

/**
 * The highest `count` free ids below `below` (none of `exclude`): a walk down from there that stops
 * at the first free ones, for when the counted-down ids meet ids in use.
 *
 * ```sql
 * SELECT g FROM generate_series($1, 1, -1) g WHERE <free g> AND g <> ALL($3) LIMIT $2
 * ```
 */
async function highestFree(db: Kysely<PushDatabase>, below: number, count: number, exclude: readonly number[]): Promise<number[]> {
  const { rows } = await sql<{ id: string | number }>`
    SELECT g AS id FROM generate_series(${Math.min(below, MAX_RESOURCE_ID)}::bigint, 1, -1) g
    WHERE ${freeId(sql`g`)} AND g <> ALL(${[...exclude]}::bigint[])
    LIMIT ${count}`.execute(db);
  return rows.map((r) => Number(r.id));
}

/**
 * `count` free ids in range for new resources, none of `exclude` (ids a batch writes itself): the
 * next ids counted down, and for any of them already taken, the highest free ids below.
 */
export async function reserveIds(db: Kysely<PushDatabase>, count: number, exclude: readonly number[] = []): Promise<number[]> {
  if (count <= 0) return [];
  const candidates = await nextIds(db, count, exclude);
  const ids = candidates.filter((c) => c.free).map((c) => c.id);
  if (ids.length === count) return ids;
  const lowest = Math.min(...candidates.map((c) => c.id));
  ids.push(...(await highestFree(db, lowest - 1, count - ids.length, [...exclude, ...ids])));
  if (ids.length < count) throw new Error('express-agent-discovery: no free resource id is left in the read API\'s range');
  return ids;
}
