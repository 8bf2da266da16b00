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
  return sql<Date>`('epoch'::timestamptz + ${runtimeValue(seconds)} * interval '1 second' + ${runtimeValue(micros)} * interval '1 microsecond')`;
}

/**
 * A keyset position's integer as the planner sees it: a one-time subquery (an InitPlan), known only
 * when the statement runs. An index condition still takes it (`id > $0` as a run-time key), but the
 * plan no longer depends on where the position lies. With bare values, a deep position made every
 * custom plan look far cheaper than the generic one (it estimates few rows left), so PostgreSQL
 * re-planned the prepared statement on every call (about 0.5 ms at 1,000,000 rows, and the deep
 * page cost 1.5× the first); now every position is planned alike and the generic plan is kept.
 */
export function runtimeValue(value: number): RawBuilder<number> {
  return sql<number>`(SELECT ${value}::bigint)`;
}
