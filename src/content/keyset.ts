import { sql, type RawBuilder } from 'kysely';

/**
 * Timestamps in keyset positions travel as two integers, whole seconds since the epoch and the
 * microseconds within that second, so a position is exact at PostgreSQL's precision (a JavaScript
 * Date would round to milliseconds and skip rows) and stays a safe integer for any date.
 */
export function epochSeconds(column: string): RawBuilder<number> {
  return sql<number>`floor(extract(epoch from ${sql.ref(column)}))::bigint`;
}

/** The microseconds of `column` within its second (0..999999), see `epochSeconds`. */
export function subsecondMicros(column: string): RawBuilder<number> {
  return sql<number>`((extract(epoch from ${sql.ref(column)}) - floor(extract(epoch from ${sql.ref(column)}))) * 1000000)::bigint`;
}

/**
 * The timestamp of a (seconds, microseconds) position, computed exactly (no floating point). Both are
 * integers (the continuation codec accepts nothing else).
 */
export function fromEpoch(seconds: number, micros: number): RawBuilder<Date> {
  return sql<Date>`('epoch'::timestamptz + ${seconds}::bigint * interval '1 second' + ${micros}::bigint * interval '1 microsecond')`;
}
