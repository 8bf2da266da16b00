import { Migrator, type MigrationResultSet } from 'kysely/migration';
import { sql, type Kysely } from 'kysely';
import { migrations } from '../../migrations/index.js';

/** The plugin's own migration bookkeeping tables, so that it can share a host's database. */
export const MIGRATION_TABLE = 'agent_discovery_migration';
export const MIGRATION_LOCK_TABLE = 'agent_discovery_migration_lock';

/**
 * Fails when the database is a standby (a streaming read replica: `pg_is_in_recovery()`), where no
 * migration can run, with an error that says to migrate the primary.
 *
 * ```sql
 * SELECT pg_is_in_recovery() AS "standby"
 * ```
 */
export async function assertWritable(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ standby: boolean }>`SELECT pg_is_in_recovery() AS "standby"`.execute(db);
  if (!rows[0]?.standby) return;
  throw new Error(
    'express-agent-discovery: cannot migrate a read replica: this database is a standby in recovery (pg_is_in_recovery() is true). ' +
      'Run the migrations on the primary (`migrate --database-url <primary>`, or `database: { url: <primary>, readUrl: <replica> }` with `migrate: true`); the replica receives them by replication.',
  );
}

/**
 * Applies every pending migration of the content schema; refused on a standby (`assertWritable`).
 * Idempotent; on PostgreSQL two processes starting at once are serialized by Kysely's session
 * advisory lock (`pg_advisory_lock`), taken before the migration transaction: run it on a direct
 * connection (or a session-pooled one), not through a transaction pooler, where the lock and its
 * release may land on different server connections.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  await assertWritable(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(
      `express-agent-discovery: migration ${failed ?? ''} failed: ${(result.error as Error).message ?? String(result.error)}`,
    );
  }
  return result;
}
