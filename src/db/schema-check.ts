import { sql, type Kysely } from 'kysely';
import { migrations } from '../../migrations/index.js';
import { MIGRATION_TABLE } from './migrator.js';

/** The names of this version's migrations, in order. */
const MIGRATION_NAMES = Object.freeze(Object.keys(migrations));

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
export async function schemaState(db: Kysely<any>, known: readonly string[] = MIGRATION_NAMES): Promise<SchemaState> {
  const { rows } = await sql<{ rsc: string | null; record: string | null }>`
    SELECT to_regclass('rsc')::text AS "rsc", to_regclass(${MIGRATION_TABLE})::text AS "record"`.execute(db);
  const applied = new Set<string>();
  if (rows[0]?.record) {
    for (const row of await db.selectFrom(MIGRATION_TABLE).select('name').execute()) applied.add(String(row.name));
  }
  return { hasContentTables: Boolean(rows[0]?.rsc), pending: known.filter((name) => !applied.has(name)) };
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
 * Fails at start-up when the content schema is missing (no `rsc` and no migration record) or older
 * than this version (a migration record without some of `known`, the migrations this version
 * expects), with an error that names the migrations not applied and the fix; a database in this
 * state would otherwise fail on every request. A `rsc` table or view without a migration record is
 * a schema the host keeps itself (views of the same shape): it is accepted as it is.
 */
export async function assertContentSchema(
  db: Kysely<any>,
  location: SchemaLocation,
  known: readonly string[] = MIGRATION_NAMES,
): Promise<void> {
  const { hasContentTables, pending } = await schemaState(db, known);
  if (pending.length === 0) return;
  const none = pending.length === known.length;
  if (none && hasContentTables) return;
  const state = none
    ? 'the content schema is missing from this database (no table rsc)'
    : 'the content schema is older than this version of the package';
  throw new Error(`express-agent-discovery: ${state}; migrations not applied: ${pending.join(', ')}. To fix it, ${remedy(location)}.`);
}

/**
 * Fails at start-up when a host's own Kysely reads `bigint` as strings (the `pg` default): every id
 * comparison and result schema of the plugin expects numbers, so reads would answer 404 and 500.
 *
 * ```sql
 * SELECT 1::bigint AS "id"
 * ```
 */
export async function assertNumericIds(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ id: unknown }>`SELECT 1::bigint AS "id"`.execute(db);
  if (typeof rows[0]?.id === 'number') return;
  throw new Error(
    `express-agent-discovery: the Kysely instance passed as \`database: { kysely }\` reads bigint columns as ${typeof rows[0]?.id} values; ` +
      'the content ids are bigint and the plugin needs them as numbers. Give its pg Pool a type parser, e.g. ' +
      '`types: { getTypeParser: (oid, format) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format)) }`.',
  );
}
