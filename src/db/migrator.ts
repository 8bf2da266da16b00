import { Migrator, type MigrationResultSet } from 'kysely/migration';
import type { Kysely } from 'kysely';
import { migrations } from '../../migrations/index.js';

/** The plugin's own migration bookkeeping tables, so that it can share a host's database. */
export const MIGRATION_TABLE = 'agent_discovery_migration';
export const MIGRATION_LOCK_TABLE = 'agent_discovery_migration_lock';

/**
 * Applies every pending migration of the content schema. Idempotent; on PostgreSQL two processes
 * starting at once are serialized by Kysely's session advisory lock (`pg_advisory_lock`).
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
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
