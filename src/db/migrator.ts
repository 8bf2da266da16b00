import { Migrator, type MigrationResultSet } from 'kysely/migration';
import { sql, type Kysely } from 'kysely';
import { migrations, OWN_MIGRATION_NAMES } from '../../migrations/index.js';
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE } from './migration-record.js';
import { schemaState } from './schema-check.js';

export { MIGRATION_LOCK_TABLE, MIGRATION_TABLE };

/**
 * Fails when the database is a standby (a streaming read replica: `pg_is_in_recovery()`), where no
 * migration can run, with an error that says to migrate the primary.
 *
 * ```sql
 * SELECT pg_is_in_recovery() AS "standby"
 * ```
 */
async function assertWritable(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ standby: boolean }>`SELECT pg_is_in_recovery() AS "standby"`.execute(db);
  if (!rows[0]?.standby) return;
  throw new Error(
    'express-agent-discovery: cannot migrate a read replica: this database is a standby in recovery (pg_is_in_recovery() is true). ' +
      'Run the migrations on the primary (`migrate --database-url <primary>`, or `database: { url: <primary>, readUrl: <replica> }` with `migrate: true`); the replica receives them by replication.',
  );
}

/**
 * Applies every pending migration; refused on a standby (`assertWritable`). Over a host's own
 * content relations (every relation of the content contract exists and the plugin never created
 * them) only the plugin's own tables are created (its settings, and the migration record). When
 * only some contract relations exist, it refuses before changing anything, naming them.
 * Idempotent; on PostgreSQL two processes starting at once are serialized by Kysely's session
 * advisory lock (`pg_advisory_lock`), taken before the migration transaction: run it on a direct
 * connection (or a session-pooled one), not through a transaction pooler, where the lock and its
 * release may land on different server connections.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  await assertWritable(db);
  const state = await schemaState(db);
  if (state.owner === 'partial') {
    throw new Error(
      `express-agent-discovery: refusing to migrate: this database has some of the content relations (${state.present.join(', ')}) but not ${state.missing.join(', ')}, and they are not the plugin's. ` +
        'Either provide all of them (your own views or tables: `migrate` then creates only the plugin\'s settings table) or none (the plugin creates its own schema). Nothing was changed.',
    );
  }
  const own = state.owner === 'host';
  const wanted = new Set([...state.applied, ...state.pending].filter((name) => OWN_MIGRATION_NAMES.includes(name)));
  // The record lives in the first schema of the search path, named explicitly: Kysely looks for an
  // existing record in every schema, and would take another schema's for this one's.
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS "schema"`.execute(db);
  const migrator = new Migrator({
    db,
    ...(rows[0]?.schema ? { migrationTableSchema: rows[0].schema } : {}),
    provider: {
      // Over a host schema: the own migrations recorded or pending (a table there without its record is not created again).
      getMigrations: async () => (own ? Object.fromEntries(Object.entries(migrations).filter(([name]) => wanted.has(name))) : migrations),
    },
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
