import { sql, type Kysely } from 'kysely';
import type { PushDatabase } from './external-ids.js';

/**
 * Keeps the `rsc` id sequence ahead of an id the host chose itself, so that the ids the database
 * generates later (string-id mappings, categories without an id) never collide with it. Two writers
 * advancing it at once are serialized by a transaction-level advisory lock; `setval` is not undone by
 * a rollback, which only leaves a gap.
 *
 * ```sql
 * SELECT pg_advisory_xact_lock(hashtext('agent_discovery_rsc_id'))
 * SELECT setval(s.seq, $1) FROM (SELECT pg_get_serial_sequence('rsc', 'id') AS seq) s
 *   WHERE coalesce(pg_sequence_last_value(s.seq::regclass), 0) < $1
 * ```
 */
export async function advanceIdSequence(db: Kysely<PushDatabase>, id: number): Promise<void> {
  const { rows } = await sql<{ behind: boolean }>`
    SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('rsc', 'id')::regclass), 0) < ${id} AS "behind"`.execute(db);
  if (!rows[0]?.behind) return;
  await sql`SELECT pg_advisory_xact_lock(hashtext('agent_discovery_rsc_id'))`.execute(db);
  await sql`
    SELECT setval(s.seq, ${id}::bigint) FROM (SELECT pg_get_serial_sequence('rsc', 'id') AS seq) s
    WHERE coalesce(pg_sequence_last_value(s.seq::regclass), 0) < ${id}`.execute(db);
}
