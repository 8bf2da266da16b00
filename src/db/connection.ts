import { mkdirSync } from 'node:fs';
import { Kysely, PostgresDialect, PGliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { PREPARED_STATEMENTS_DEFAULT, statementPool } from './prepared-statements.js';
import { guardClient } from './statement-guard.js';

/** Where the content lives: a PostgreSQL server, an embedded PGlite data directory, or PGlite in memory. */
export type DatabaseConfig =
  | { url: string; poolSize?: number; statementTimeoutMs?: number; preparedStatements?: boolean }
  | { dataDir: string }
  | { memory: true };

export type BackendKind = 'postgres' | 'pglite';

/** An open content database: the Kysely handle, which backend it is, and how to close it. */
export interface ContentDatabase {
  readonly db: Kysely<Database>;
  readonly kind: BackendKind;
  /** The pg Pool when the backend is PostgreSQL (for pool statistics and cancellation). */
  readonly pool: pg.Pool | undefined;
  close(): Promise<void>;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Opens the content database. PostgreSQL when a URL is given (one `pg` Pool; bigint ids are parsed
 * as numbers), otherwise the embedded PGlite. The same Kysely queries run on both.
 *
 * ```ts
 * const content = await openDatabase({ url: process.env.DATABASE_URL! })
 * const rows = await content.db.selectFrom('rsc').select('id').execute()
 * ```
 */
export async function openDatabase(config: DatabaseConfig): Promise<ContentDatabase> {
  if ('url' in config) return openPostgres(config);
  return openPGlite('dataDir' in config ? config.dataDir : undefined);
}

/**
 * JIT compilation off for the plugin's own connections. The plugin's statements read a page, where
 * compiling never pays off; but PostgreSQL compiles whatever it estimates above `jit_above_cost`, and on
 * a small site its estimates are far off: a `category` table of a few rows is never analyzed by
 * autovacuum (fewer than 50 changes), so it is taken for 1,810 rows and the recursive category trees for
 * 800,000, and every search paid 1.7 s of JIT compilation for a 0.1 ms read (PostgreSQL 15, Debian's
 * build). Sent as a `SET` once per connection, not as a start-up parameter, which PgBouncer refuses;
 * behind a transaction pooler the setting stays on the server connection it ran on (see
 * docs/decisions.md, "JIT off").
 */
const NO_JIT = 'SET jit = off';

/** The error is also delivered to the query in flight, if any; the client itself needs nothing more. */
function ignoreClientError(): void {}

/**
 * How long opening waits for its first connection when the server is slow to answer (not when it
 * refuses): a request waits at most the pool's 2 s for a connection, but a server busy at start-up
 * (a checkpoint, a burst of new connections) must not fail the start of the site.
 */
const FIRST_CONNECTION_MS = 10_000;

/**
 * The pool's first connection: tried again while each attempt only timed out, until
 * `FIRST_CONNECTION_MS` have passed; any other error (refused, authentication, no such database) at once.
 */
async function firstConnection(pool: pg.Pool): Promise<pg.PoolClient> {
  const deadline = Date.now() + FIRST_CONNECTION_MS;
  for (;;) {
    try {
      return await pool.connect();
    } catch (error) {
      if (!/connection timeout/i.test((error as Error).message) || Date.now() >= deadline) throw error;
    }
  }
}

async function openPostgres(config: { url: string; poolSize?: number; statementTimeoutMs?: number; preparedStatements?: boolean }): Promise<ContentDatabase> {
  // Clients the pool must not hand out again: their backend reported FATAL, or a statement of theirs
  // was cancelled (a late CancelRequest must not reach the next request's statement).
  const lostClients = new WeakSet<pg.PoolClient>();
  const discard = (client: pg.PoolClient) => lostClients.add(client);
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize ?? 10,
    connectionTimeoutMillis: 2000,
    // No statement_timeout here: pg would send it as a startup parameter, which PgBouncer refuses.
    // statementTimeoutMs cancels statements with a CancelRequest instead (guardClient).
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A client losing its server (a terminated backend, a reset socket) emits 'error'; without a listener
  // Node ends the process. The pool's own listener covers idle clients only, so every client gets one
  // for its whole life: a checked-out client's query fails with the same error (the request answers
  // 503) and the pool discards the broken client when it is released.
  pool.on('error', ignoreClientError);
  const sessionReady = new WeakMap<pg.PoolClient, Promise<unknown>>();
  pool.on('connect', (client) => {
    client.on('error', ignoreClientError);
    // Sent once, before the client is handed out (`sessions.connect` waits for it). See `NO_JIT` for why.
    sessionReady.set(client, client.query(NO_JIT).catch(ignoreClientError));
    client.connection.on('errorMessage', (message: { severity?: string }) => {
      if (message.severity === 'FATAL' || message.severity === 'PANIC') discard(client);
    });
    if (config.statementTimeoutMs) guardClient(client, config.statementTimeoutMs, discard);
  });
  // A terminated backend (57P01) reports FATAL and then closes the socket: a client released in
  // between would go back to the idle list and fail the next request. Ending it on release makes the
  // pool discard it; the same for a client whose statement was cancelled.
  pool.on('release', (_error: Error | undefined, client: pg.PoolClient) => {
    if (lostClients.has(client)) client.end().catch(ignoreClientError);
  });
  const client = await firstConnection(pool).catch(async (error: unknown) => {
    await pool.end().catch(() => {});
    throw new Error(`express-agent-discovery: cannot connect to PostgreSQL: ${(error as Error).message}`);
  });
  await sessionReady.get(client);
  client.release();
  // Kysely's clients: each handed out once its session set-up has run (pg would otherwise queue the first
  // statement behind the SET, which pg 8 warns about and pg 9 refuses).
  const sessions = {
    options: pool.options,
    connect: async () => {
      const client = await firstConnection(pool);
      await sessionReady.get(client);
      return client;
    },
    end: () => pool.end(),
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: statementPool(sessions, config.preparedStatements ?? PREPARED_STATEMENTS_DEFAULT) }) });
  return {
    db,
    kind: 'postgres',
    pool,
    close: () => db.destroy(),
  };
}

async function openPGlite(dataDir: string | undefined): Promise<ContentDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const failed = (error: unknown) =>
    new Error(`express-agent-discovery: cannot open the embedded database${dataDir ? ` at ${dataDir}` : ''}: ${(error as Error).message}`);
  // PGlite creates the last directory only; create the whole path so a nested data dir works too.
  try {
    if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw failed(error);
  }
  const pglite = new PGlite(dataDir);
  await pglite.waitReady.catch((error: unknown) => {
    throw failed(error);
  });
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    kind: 'pglite',
    pool: undefined,
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}
