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
 * The backends every suite runs against: embedded PGlite always, and real PostgreSQL when
 * DATABASE_URL is set. Each PostgreSQL suite gets a fresh database of its own, dropped afterwards.
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
 * a migrated data directory about 0.6 s. So the first suite to need one migrates a fresh PGlite (opened
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

/** A PGlite over a copy of a data directory. */
async function openDataDir(bytes: Uint8Array): Promise<TestDatabase> {
  const { db, pglite } = pgliteHandle(new PGlite({ loadDataDir: new Blob([bytes]) }));
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
    return cachedDataDir(`ead-test-pglite-seeded-${hash.digest('hex').slice(0, 16)}.tar`, () => new PGlite({ loadDataDir: new Blob([migrated]) }), seedDemoContent);
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
    return cachedDataDir(`ead-test-pglite-${hash.digest('hex').slice(0, 16)}.tar`, () => new PGlite(), migrateToLatest);
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

function postgresBackend(serverUrl: string): Backend {
  return {
    name: 'postgres',
    async openSeeded() {
      return seeded(await this.open());
    },
    async open() {
      const dbName = `ead_test_${process.pid}_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      await admin.end();
      const url = new URL(serverUrl);
      url.pathname = `/${dbName}`;
      const content = await openDatabase({ url: url.toString(), preparedStatements: process.env.TEST_PREPARED_STATEMENTS === '1' });
      await migrateToLatest(content.db);
      return {
        db: content.db,
        kind: content.kind,
        pool: content.pool,
        url: url.toString(),
        async close() {
          await content.close();
          const a = new pg.Client({ connectionString: serverUrl });
          await a.connect();
          await a.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
          await a.end();
        },
      };
    },
  };
}

export const backends: Backend[] = [
  pgliteBackend,
  ...(process.env.DATABASE_URL ? [postgresBackend(process.env.DATABASE_URL)] : []),
];
