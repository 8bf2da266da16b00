import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kysely, PGliteDialect } from 'kysely';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase, type ContentDatabase } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import type { Database } from '../../src/db/schema.js';
import { seedDemoContent } from '../../example-site/seed.js';
import { REPO_ROOT } from './repo.js';

/**
 * The backends of the engine suites (what PGlite does differently from a PostgreSQL server: its one
 * connection, its data directory, migrations, writes, and the visibility and leak promises):
 * embedded PGlite always, and real PostgreSQL when DATABASE_URL is set. Each PostgreSQL suite gets a
 * fresh database of its own, dropped afterwards. Every other suite takes `surfaceBackends` (below).
 * TEST_PREPARED_STATEMENTS=1 opens PostgreSQL with the `preparedStatements` option on.
 */
export interface Backend {
  name: 'pglite' | 'postgres';
  /** Opens a fresh, migrated, empty content database. */
  open(): Promise<TestDatabase>;
  /** Opens a fresh content database holding the demo content (`seedDemoContent`), as if seeded now. */
  openSeeded(): Promise<TestDatabase>;
}

export interface TestDatabase extends ContentDatabase {
  /** The connection string of this fresh database (PostgreSQL only). */
  url: string | undefined;
}

/**
 * A fresh PGlite costs about 2.3 s of CPU (its initdb) and the migrations 0.9 s more; one opened from
 * a migrated data directory about 1 s (most of it reading the directory's tar into PGlite's memory). So the first suite to need one migrates a fresh PGlite (opened
 * as `openDatabase({ memory: true })` opens it) and keeps its data directory in the temporary
 * directory, named by a hash of everything that shapes it (the migrations, `src/db`, PGlite's
 * version); every suite (every test file is a process of its own) then opens a copy of it. Tests of
 * opening and migrating a fresh PGlite call `openDatabase` themselves.
 */
const pgliteBackend: Backend = {
  name: 'pglite',
  async open() {
    return openDataDir(await migratedDataDir());
  },
  async openSeeded() {
    if (!process.env[RUN_ID]) return seeded(await this.open());
    return openDataDir(await seededDataDir());
  },
};

/**
 * A data directory's tar for PGlite's `loadDataDir`, which reads it with `arrayBuffer()`: a `Blob` of
 * the bytes reads them back through Node's Blob stream, in chunks, about 0.2 s of CPU for the 31 MB;
 * this one hands over a copy at once.
 */
class TarBytes extends Blob {
  constructor(private readonly tar: Uint8Array) {
    super([]);
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.tar.slice().buffer);
  }
}

/** A PGlite over a copy of a data directory. */
async function openDataDir(bytes: Uint8Array): Promise<TestDatabase> {
  const { db, pglite } = pgliteHandle(new PGlite({ loadDataDir: new TarBytes(bytes) }));
  await pglite.waitReady;
  return {
    db,
    kind: 'pglite',
    pool: undefined,
    url: undefined,
    async close() {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** The demo content seeded into a fresh database (closed again if seeding fails). */
async function seeded(content: TestDatabase): Promise<TestDatabase> {
  try {
    await seedDemoContent(content.db);
    return content;
  } catch (error) {
    await content.close();
    throw error;
  }
}

/**
 * Set by `tools/run-tests.mjs` for one whole run: the demo content's dates are relative to the day it
 * is seeded (days ago, days ahead), so a PGlite seeded once is copied by every file of the same run
 * (minutes apart) and never by a later run. Without it (a file run alone) each database is seeded.
 */
const RUN_ID = 'EXPRESS_AGENT_DISCOVERY_TEST_RUN';

let seededBytes: Promise<Uint8Array> | undefined;

/** The data directory of a migrated PGlite holding the demo content, seeded once per run. */
function seededDataDir(): Promise<Uint8Array> {
  return (seededBytes ??= (async () => {
    const root = pathToFileURL(REPO_ROOT);
    const migrated = await migratedDataDir();
    const hash = createHash('sha256').update(process.env[RUN_ID]!).update(migrated);
    for (const file of ['example-site/seed.ts', 'example-site/content-store.ts']) hash.update(readFileSync(new URL(file, root)));
    return cachedDataDir(`ead-test-pglite-seeded-${hash.digest('hex').slice(0, 16)}.tar`, () => new PGlite({ loadDataDir: new TarBytes(migrated) }), seedDemoContent);
  })());
}

const pgliteHandle = (pglite: PGlite) => ({ pglite, db: new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) }) });

let templateBytes: Promise<Uint8Array> | undefined;

/** The data directory of a freshly migrated PGlite, kept while the migrations, `src/db` and PGlite stay the same. */
function migratedDataDir(): Promise<Uint8Array> {
  return (templateBytes ??= (async () => {
    const root = pathToFileURL(REPO_ROOT);
    const hash = createHash('sha256');
    hash.update(JSON.parse(readFileSync(new URL('node_modules/@electric-sql/pglite/package.json', root), 'utf8')).version);
    for (const dir of ['migrations', 'src/db']) {
      for (const file of readdirSync(new URL(`${dir}/`, root)).sort()) hash.update(file).update(readFileSync(new URL(`${dir}/${file}`, root)));
    }
    // WAL segments of 1 MB (initdb's --wal-segsize): the data directory every suite copies is then about
    // 31 MB instead of 41 (PostgreSQL keeps a whole 16 MB segment), and opening a copy costs about a fifth
    // less CPU (1.05 s against 1.32 s a copy, measured; every content suite opens one or more).
    return cachedDataDir(`ead-test-pglite-wal1-${hash.digest('hex').slice(0, 16)}.tar`, () => new PGlite({ initDbStartParams: ['--wal-segsize=1'] }), migrateToLatest);
  })());
}

/**
 * The bytes of the data directory named `name` in the temporary directory; when there is none yet,
 * `build` runs on a new PGlite (`open`) and its data directory is written there (atomically: files running at the
 * same time may each build it, and one of them wins).
 */
async function cachedDataDir(name: string, open: () => PGlite, build: (db: Kysely<Database>) => Promise<unknown>): Promise<Uint8Array> {
  const path = join(tmpdir(), name);
  try {
    return new Uint8Array(readFileSync(path));
  } catch {
    const { db, pglite } = pgliteHandle(open());
    await build(db);
    const bytes = new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
    await db.destroy();
    if (!pglite.closed) await pglite.close();
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
    return bytes;
  }
}

/** Runs `work` with a client connected to `serverUrl` (the server's database the suite was given). */
async function withAdmin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** `serverUrl` with another database name. */
function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Set by `tools/run-tests.mjs` for one whole run: the prefix of the run's PostgreSQL template
 * databases, which it drops when the run ends. Without it (a file run alone) none is made.
 */
const TEMPLATE_PREFIX = 'EXPRESS_AGENT_DISCOVERY_TEST_TEMPLATES';

const templates = new Map<string, Promise<string>>();

/**
 * A PostgreSQL database migrated (and seeded, for `seeded`) once per whole run, that every suite's
 * fresh database is cloned from (`CREATE DATABASE … TEMPLATE`, about 40 ms of the server's time
 * against about 0.8 s of the server's and the suite's CPU to migrate and seed one). Named by the run
 * and a hash of what shapes it, as the PGlite data directories are; built under an advisory lock by the
 * first suite that needs it (the files of a run start three at a time), under a name of its own and
 * renamed when complete, so a clone never sees half of one.
 */
function templateDatabase(serverUrl: string, seeded: boolean): Promise<string> {
  const key = seeded ? 'seeded' : 'migrated';
  let pending = templates.get(key);
  if (!pending) {
    pending = (async () => {
      const root = pathToFileURL(REPO_ROOT);
      const hash = createHash('sha256').update(key);
      for (const dir of ['migrations', 'src/db']) {
        for (const file of readdirSync(new URL(`${dir}/`, root)).sort()) hash.update(file).update(readFileSync(new URL(`${dir}/${file}`, root)));
      }
      if (seeded) for (const file of ['example-site/seed.ts', 'example-site/content-store.ts']) hash.update(readFileSync(new URL(file, root)));
      const name = `${process.env[TEMPLATE_PREFIX]!}${hash.digest('hex').slice(0, 8)}_${key[0]}`;
      await withAdmin(serverUrl, async (admin) => {
        await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
        try {
          if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return;
          const building = `${name}_b`;
          await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
          await admin.query(`CREATE DATABASE ${building}`);
          const content = await openDatabase({ url: databaseUrl(serverUrl, building) });
          try {
            await migrateToLatest(content.db);
            if (seeded) await seedDemoContent(content.db);
          } finally {
            await content.close();
          }
          await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
        } finally {
          await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
        }
      });
      return name;
    })();
    // A failed build is tried again by the next suite that asks.
    pending.catch(() => templates.delete(key));
    templates.set(key, pending);
  }
  return pending;
}

function postgresBackend(serverUrl: string): Backend {
  /**
   * A fresh database: in a whole run a clone of the run's template (migrated, or seeded too), else
   * created, migrated (and seeded) here.
   */
  /**
   * `open`, tried up to three times while it fails only with pg's connection timeout: a process that
   * also runs PGlite suites (synchronous WebAssembly on the same event loop) can hold its loop long
   * enough for every 2 s connection timer of the plugin's first connection to fire before the
   * server's answer is read (seen once in a clean-clone run, the 1,000,000-row build of search-rare-word).
   */
  async function patiently<T>(open: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await open();
      } catch (error) {
        if (attempt >= 3 || !/connection timeout/i.test((error as Error).message)) throw error;
      }
    }
  }

  async function fresh(seed: boolean): Promise<TestDatabase> {
    const dbName = `ead_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    const template = process.env[TEMPLATE_PREFIX] ? await templateDatabase(serverUrl, seed) : undefined;
    await withAdmin(serverUrl, (admin) => admin.query(`CREATE DATABASE ${dbName}${template ? ` TEMPLATE ${template}` : ''}`));
    const url = databaseUrl(serverUrl, dbName);
    const content = await patiently(() => openDatabase({ url, preparedStatements: process.env.TEST_PREPARED_STATEMENTS === '1' }));
    const database: TestDatabase = {
      db: content.db,
      kind: content.kind,
      pool: content.pool,
      url,
      async close() {
        await content.close();
        await withAdmin(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));
      },
    };
    if (template) return database;
    try {
      await migrateToLatest(content.db);
    } catch (error) {
      await database.close();
      throw error;
    }
    return seed ? seeded(database) : database;
  }
  return {
    name: 'postgres',
    openSeeded: () => fresh(true),
    open: () => fresh(false),
  };
}

export const backends: Backend[] = [
  pgliteBackend,
  ...(process.env.DATABASE_URL ? [postgresBackend(process.env.DATABASE_URL)] : []),
];

/**
 * The backends of every suite that is not an engine suite (`backends`): what an answer looks like
 * (formats, headers, discovery documents, negotiation, MCP framing, browsers, the end-to-end walks)
 * and what Node makes of the rows (composition, the build cache, llms-full.txt, paging, related, the
 * change feed, plans). They run the statements the engine suites check on both backends, so they run
 * on one: real PostgreSQL when DATABASE_URL is set (as in CI: the harder case for their races, and
 * the embedded PGlite costs a suite about 1.7 times the CPU, in the suite's own process), else
 * PGlite. `TEST_BACKENDS=all` runs them on every backend. See docs/testing.md.
 */
export const surfaceBackends: Backend[] = process.env.TEST_BACKENDS === 'all' ? backends : backends.slice(-1);
