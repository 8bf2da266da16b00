import type { ResolvedOptions } from '../options.js';
import type { Kysely } from 'kysely';
import { openDatabase, type ContentDatabase, type DatabaseConfig } from './connection.js';
import { migrateToLatest } from './migrator.js';
import { assertContentSchema, assertNumericIds, schemaState, type SchemaLocation } from './schema-check.js';
import { assertContract } from './contract-check.js';
import { bindContent } from './content-binding.js';
import type { Database } from './schema.js';

/**
 * The `database` option: a PostgreSQL URL (with a separate `readUrl` for a read replica), an embedded
 * PGlite, or a host's own Kysely instance over the schema.
 */
type DatabaseSource = ResolvedOptions['database'];

/** The content database of a mounted plugin: where reads go, and how migrations reach the primary. */
export interface OpenContent {
  /** The database every read uses (the replica when `readUrl` is given). */
  readonly database: ContentDatabase;
  /** Applies the pending migrations on the primary. */
  migrate(): Promise<void>;
  /** The content relations are the plugin's own tables (not a host's own relations). */
  readonly contentOwned: boolean;
  /** Every content relation is a table (not a view), so its rows carry versions (`xmin`). */
  readonly contentTables: boolean;
}

/** How long start-up with `migrate: true` waits for a replica to replay the migrations. */
const REPLICA_CATCH_UP_MS = 10_000;

/**
 * Opens the content database the options name and makes sure it holds this version's schema: with
 * `migrate`, the migrations are applied first (on the primary `url` even when reads use `readUrl`;
 * over a host's own content relations, only the plugin's own tables); without it, a missing or older
 * schema fails with an error naming the fix. Then the content contract is checked (every relation
 * and column, with compatible types, in one catalog query): all problems fail here, in one error.
 * A host's Kysely must read bigint ids as numbers.
 */
export async function openContent(
  source: DatabaseSource,
  options: { migrate: boolean; statementTimeoutMs: number; textConfiguration: string },
): Promise<OpenContent> {
  const database = await openReads(source, options.statementTimeoutMs);
  const migrate = migrations(source, database);
  try {
    if (options.migrate) {
      await migrate();
      if ('readUrl' in source && source.readUrl) await waitForSchema(database.db);
    }
    const state = await assertContentSchema(database.db, schemaLocation(source));
    if ('kysely' in source) await assertNumericIds(database.db);
    const contract = await assertContract(database.db, options.textConfiguration);
    const absent = contract.absentOptional.map((c) => c.slice(c.indexOf('.') + 1));
    const db = bindContent(database.db, { textConfiguration: options.textConfiguration }, absent);
    return { database: { ...database, db }, migrate, contentOwned: state.owner === 'plugin', contentTables: contract.tables };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/**
 * The database reads use. A host's Kysely is used as it is (its pool decides on timeouts); the
 * plugin's own pool cancels a statement still running after `statementTimeoutMs` (the request budget).
 */
function openReads(source: DatabaseSource, statementTimeoutMs: number): Promise<ContentDatabase> {
  if ('kysely' in source) {
    return Promise.resolve({ db: source.kysely, kind: 'postgres', pool: undefined, close: async () => {} });
  }
  return openDatabase(readConfig(source, statementTimeoutMs));
}

function readConfig(source: Exclude<DatabaseSource, { kysely: unknown }>, statementTimeoutMs: number): DatabaseConfig {
  if (!('url' in source)) return source;
  return {
    url: source.readUrl ?? source.url,
    statementTimeoutMs,
    ...(source.poolSize ? { poolSize: source.poolSize } : {}),
    ...(source.preparedStatements !== undefined ? { preparedStatements: source.preparedStatements } : {}),
  };
}

/**
 * Migrations run on PostgreSQL on a short-lived connection to the primary `url` of their own (no
 * request budget: a migration may take longer; with `readUrl` the reads are on a replica), elsewhere
 * on the database the reads use.
 */
function migrations(source: DatabaseSource, reads: ContentDatabase): () => Promise<void> {
  if (!('url' in source)) {
    return async () => {
      await migrateToLatest(reads.db);
    };
  }
  const primary = source.url;
  return async () => {
    const content = await openDatabase({ url: primary, poolSize: 1 });
    try {
      await migrateToLatest(content.db);
    } finally {
      await content.close();
    }
  };
}

/** Waits until a replica has replayed the migrations just applied on the primary, then checks the schema. */
async function waitForSchema(db: Kysely<Database>): Promise<void> {
  const until = performance.now() + REPLICA_CATCH_UP_MS;
  while (performance.now() < until && (await schemaState(db)).pending.length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await assertContentSchema(db, 'url');
}

/** Which kind of database the options name (for the advice of a missing-schema error). */
function schemaLocation(source: DatabaseSource): SchemaLocation {
  return 'url' in source ? 'url' : 'dataDir' in source ? 'dataDir' : 'memory' in source ? 'memory' : 'kysely';
}
