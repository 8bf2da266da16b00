import { sql, type RawBuilder } from 'kysely';

/**
 * Timestamps in keyset positions travel as integer microseconds since the epoch, so a position is
 * exact at PostgreSQL's precision (a JavaScript Date would round to milliseconds and skip rows).
 */
export function epochMicros(column: string): RawBuilder<number> {
  return sql<number>`(extract(epoch from ${sql.ref(column)}) * 1000000)::bigint`;
}

/** The timestamp for a microsecond position, computed exactly (no floating point). */
export function fromEpochMicros(us: number): RawBuilder<Date> {
  return sql<Date>`('epoch'::timestamptz + ${Math.trunc(us)}::bigint * interval '1 microsecond')`;
}
