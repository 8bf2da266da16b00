import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { PushDatabase } from './push-database.js';
import { MAX_HOST_ID, MAX_RESOURCE_ID } from './resource-input.js';

/**
 * Ids the writer chooses itself (a string id's numeric id, a category or predicate pushed without an
 * id, the vocabulary's roots): free, and in the block above the host's ids ({@link MAX_HOST_ID}) up to
 * the top of the read API's range ({@link MAX_RESOURCE_ID}), so that every resource pushed can be read
 * back by id and a host's own numeric id (1 to 899,999,999,999,999) is never one of them. They are
 * counted down from the top, the n-th being `999,999,999,999,999 + 1 − n` with n from the `rsc` id
 * sequence; should a chosen id be taken all the same, the next free one below it is taken.
 */

/** The `rsc` id sequence, as SQL. */
export const RSC_SEQUENCE = sql`pg_get_serial_sequence('rsc', 'id')`;

/** The next id counted down from the top of the range (one call of the sequence). */
export const NEXT_ID: RawBuilder<number> = sql<number>`(${MAX_RESOURCE_ID + 1}::bigint - nextval(${RSC_SEQUENCE}))`;

/** The first id of the writer's own block. */
const FIRST_CHOSEN_ID = MAX_HOST_ID + 1;

/** The condition that the id `candidate` (SQL) is free: in the writer's block, and neither a resource's nor a mapping's. */
export function freeId(candidate: RawBuilder<unknown>): RawBuilder<boolean> {
  return sql<boolean>`(${candidate} BETWEEN ${FIRST_CHOSEN_ID} AND ${MAX_RESOURCE_ID}
    AND NOT EXISTS (SELECT 1 FROM rsc x WHERE x.id = ${candidate})
    AND NOT EXISTS (SELECT 1 FROM agent_discovery_external_id x WHERE x.rsc_id = ${candidate}))`;
}

/**
 * The next `count` ids counted down, each with whether it is free (and not one of `exclude`).
 *
 * ```sql
 * SELECT c.id, (c.id BETWEEN 900000000000000 AND 999999999999999 AND NOT EXISTS (…rsc…) AND NOT EXISTS (…mapping…) AND c.id <> ALL($2)) AS free
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
 * SELECT g FROM generate_series($1, 900000000000000, -1) g WHERE <free g> AND g <> ALL($3) LIMIT $2
 * ```
 */
async function highestFree(db: Kysely<PushDatabase>, below: number, count: number, exclude: readonly number[]): Promise<number[]> {
  const { rows } = await sql<{ id: string | number }>`
    SELECT g AS id FROM generate_series(${Math.min(below, MAX_RESOURCE_ID)}::bigint, ${FIRST_CHOSEN_ID}::bigint, -1) g
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
  if (ids.length < count) throw new Error('express-agent-discovery: no free id is left in the block the writer chooses ids from (900,000,000,000,000 to 999,999,999,999,999)');
  return ids;
}

/**
 * Why a host may not create a resource under the numeric `id`, or undefined when it may: ids above
 * 899,999,999,999,999 are the writer's own block.
 */
export function reservedIdProblem(id: number): string | undefined {
  if (id <= MAX_HOST_ID) return undefined;
  return `${id} is above ${MAX_HOST_ID.toLocaleString('en')}: the ids from ${FIRST_CHOSEN_ID.toLocaleString('en')} to ${MAX_RESOURCE_ID.toLocaleString('en')} are the ones the writer chooses (for string ids, the vocabulary's roots, and categories and predicates pushed without an id); give a numeric id up to ${MAX_HOST_ID.toLocaleString('en')}, or a string id`;
}
