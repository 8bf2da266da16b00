import { sql, type Kysely } from 'kysely';
import { CONTENT_SCHEMA_MIGRATION, migrations, OWN_MIGRATIONS } from '../../migrations/index.js';
import { CONTRACT_RELATION_NAMES } from './content-contract.js';
import { MIGRATION_TABLE } from './migration-record.js';

/** The names of this version's migrations, in order. */
const MIGRATION_NAMES = Object.freeze(Object.keys(migrations));

/** Where the plugin's content lives, as far as the advice in an error needs to know. */
export type SchemaLocation = 'url' | 'dataDir' | 'memory' | 'kysely';

/**
 * Whose content relations the database holds: the plugin's (its content migration is recorded),
 * the host's (every contract relation exists without that record: views or tables of the host),
 * none yet, or only some of them (neither: nothing may be created over them).
 */
export type SchemaOwner = 'plugin' | 'host' | 'none' | 'partial';

/** What the database holds of the content schema. */
export interface SchemaState {
  readonly owner: SchemaOwner;
  /** The contract relations present and missing (on the search path). */
  readonly present: readonly string[];
  readonly missing: readonly string[];
  /**
   * The migrations this database still needs, in order: all of them for the plugin's own schema
   * (or an empty database), only the plugin's own tables' over a host schema.
   */
  readonly pending: string[];
  /** The plugin's own tables missing although their migration is recorded (dropped since). */
  readonly droppedOwnTables: readonly string[];
  /** The migrations the record lists. */
  readonly applied: readonly string[];
}

/**
 * Whether `name` is the own migration that creates its table (the first naming it): over a host
 * schema, that table existing without the record counts as the migration applied. A later migration
 * of the same table alters it, so the table's presence says nothing about it.
 */
/** The migration creating the plugin's settings table, the first of its own tables. */
const SETTINGS_MIGRATION = '0002_agent_settings';

function createsOwnTable(name: string): boolean {
  const table = OWN_MIGRATIONS[name];
  return table !== undefined && Object.keys(OWN_MIGRATIONS).find((n) => OWN_MIGRATIONS[n] === table) === name;
}

/**
 * Reads the schema state: which contract relations exist, and the migration record.
 *
 * ```sql
 * SELECT r.rel, to_regclass(r.rel) IS NOT NULL AS present FROM unnest(ARRAY['rsc', …]) AS r(rel)
 * SELECT "name" FROM "agent_discovery_migration"
 * ```
 */
export async function schemaState(db: Kysely<any>, known: readonly string[] = MIGRATION_NAMES): Promise<SchemaState> {
  const ownTables = [...new Set(Object.values(OWN_MIGRATIONS))];
  const { rows } = await sql<{ rel: string; present: boolean; record: boolean }>`
    SELECT r.rel AS "rel", to_regclass(r.rel) IS NOT NULL AS "present", to_regclass(${MIGRATION_TABLE}) IS NOT NULL AS "record"
    FROM unnest(${sql.raw(`ARRAY[${[...CONTRACT_RELATION_NAMES, ...ownTables].map((n) => `'${n}'`).join(', ')}]`)}::text[]) AS r(rel)`.execute(db);
  const applied = new Set<string>();
  if (rows[0]?.record) {
    for (const row of await db.selectFrom(MIGRATION_TABLE).select('name').execute()) applied.add(String(row.name));
  }
  const contract = rows.filter((r) => !ownTables.includes(r.rel));
  const present = contract.filter((r) => r.present).map((r) => r.rel);
  const missing = contract.filter((r) => !r.present).map((r) => r.rel);
  const ownTableExists = (name: string) => rows.some((r) => r.rel === OWN_MIGRATIONS[name] && r.present);
  const owner: SchemaOwner = applied.has(CONTENT_SCHEMA_MIGRATION)
    ? 'plugin'
    : missing.length === 0
      ? 'host'
      : present.length === 0
        ? 'none'
        : 'partial';
  // Over a host schema only the plugin's own tables are wanted; one that exists without the record
  // of the migration creating it (a host that moved the record) counts as created, never as altered.
  const pending =
    owner === 'host'
      ? known.filter((name) => name in OWN_MIGRATIONS && !applied.has(name) && !(createsOwnTable(name) && ownTableExists(name)))
      : known.filter((name) => !applied.has(name));
  const droppedOwnTables = [
    ...new Set(
      Object.entries(OWN_MIGRATIONS)
        .filter(([name]) => applied.has(name) && !ownTableExists(name))
        .map(([, table]) => table),
    ),
  ];
  return { owner, present, missing, pending, droppedOwnTables, applied: [...applied] };
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
 * Fails at start-up when the content schema is missing (no contract relation and no migration
 * record), older than this version (a record without some of `known`), or, over a host's own
 * relations, when the plugin's own settings table is missing: each with an error that names what is
 * missing and the fix; a database in such a state would otherwise fail on every request. Over a
 * host schema with only some contract relations it does nothing: the contract check names them.
 */
export async function assertContentSchema(
  db: Kysely<any>,
  location: SchemaLocation,
  known: readonly string[] = MIGRATION_NAMES,
): Promise<SchemaState> {
  const state = await schemaState(db, known);
  const { owner, pending, droppedOwnTables } = state;
  if (droppedOwnTables.length) {
    throw new Error(
      `express-agent-discovery: the plugin's own table ${droppedOwnTables.join(', ')} is missing although its migration is recorded (dropped since?). ` +
        `To fix it, delete its row from ${MIGRATION_TABLE} and ${remedy(location)}.`,
    );
  }
  if (owner === 'partial' || pending.length === 0) return state;
  const problem =
    owner === 'none'
      ? 'the content schema is missing from this database (no table rsc)'
      : owner === 'host'
        ? pending.includes(SETTINGS_MIGRATION)
          ? 'the content relations are the host\'s own, but the plugin\'s own settings table is missing (over a host schema, `migrate` changes only the plugin\'s own tables)'
          : 'the content relations are the host\'s own, and the plugin\'s own tables are older than this version of the package (over a host schema, `migrate` changes only the plugin\'s own tables)'
        : 'the content schema is older than this version of the package';
  throw new Error(`express-agent-discovery: ${problem}; migrations not applied: ${pending.join(', ')}. To fix it, ${remedy(location)}.`);
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
