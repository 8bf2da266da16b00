import { sql, type Kysely } from 'kysely';
import { migrations } from '../../migrations/index.js';
import { MIGRATION_TABLE } from './migrator.js';

/** Where the plugin's content lives, as far as the advice in an error needs to know. */
export type SchemaLocation = 'url' | 'dataDir' | 'memory' | 'kysely';

/** What the database holds of the content schema. */
export interface SchemaState {
  /** Whether the resource table `rsc` exists (on the search path). */
  readonly hasContentTables: boolean;
  /** The plugin's migrations not applied yet, in order (all of them without a migration record). */
  readonly pending: string[];
}

/**
 * Reads the schema state from the migration record: all migrations pending on a database without
 * the content schema, the newer ones on a database migrated by an older version.
 *
 * ```sql
 * SELECT to_regclass('rsc')::text AS "rsc", to_regclass('agent_discovery_migration')::text AS "record"
 * SELECT "name" FROM "agent_discovery_migration"
 * ```
 */
export async function schemaState(db: Kysely<any>): Promise<SchemaState> {
  const { rows } = await sql<{ rsc: string | null; record: string | null }>`
    SELECT to_regclass('rsc')::text AS "rsc", to_regclass(${MIGRATION_TABLE})::text AS "record"`.execute(db);
  const applied = new Set<string>();
  if (rows[0]?.record) {
    for (const row of await db.selectFrom(MIGRATION_TABLE).select('name').execute()) applied.add(String(row.name));
  }
  return { hasContentTables: Boolean(rows[0]?.rsc), pending: Object.keys(migrations).filter((name) => !applied.has(name)) };
}

/** The way to create the schema for this kind of database. */
function remedy(location: SchemaLocation): string {
  const command = {
    url: 'run `npx express-agent-discovery migrate` with DATABASE_URL set to this database',
    dataDir: 'run `npx express-agent-discovery migrate --data-dir <the same directory>`',
    memory: 'an in-memory database starts empty',
    kysely: 'run `npx express-agent-discovery migrate --database-url <this database>` or call `migrateToLatest(db)`',
  }[location];
  return `${command}, or pass \`migrate: true\``;
}

/**
 * Fails at start-up when the content schema is missing or older than this version, with an error that
 * names the migrations not applied and the fix; a database in this state would otherwise fail on
 * every request.
 */
export async function assertContentSchema(db: Kysely<any>, location: SchemaLocation): Promise<void> {
  const { hasContentTables, pending } = await schemaState(db);
  if (pending.length === 0) return;
  const none = pending.length === Object.keys(migrations).length;
  const state = !none
    ? 'the content schema is older than this version of the package'
    : hasContentTables
      ? `the content schema was not created by this package's migrations (table rsc exists, no record in ${MIGRATION_TABLE})`
      : 'the content schema is missing from this database (no table rsc)';
  throw new Error(`express-agent-discovery: ${state}; migrations not applied: ${pending.join(', ')}. To fix it, ${remedy(location)}.`);
}
