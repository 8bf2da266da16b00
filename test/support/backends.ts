import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, PGliteDialect } from 'kysely';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase, type ContentDatabase } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import type { Database } from '../../src/db/schema.js';

/**
 * The backends every suite runs against: embedded PGlite always, and real PostgreSQL when
 * DATABASE_URL is set. Each PostgreSQL suite gets a fresh database of its own, dropped afterwards.
 * TEST_PREPARED_STATEMENTS=1 opens PostgreSQL with the `preparedStatements` option on.
 */
export interface Backend {
  name: 'pglite' | 'postgres';
  /** Opens a fresh, migrated, empty content database. */
  open(): Promise<TestDatabase>;
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
    const { db, pglite } = pgliteHandle(new PGlite({ loadDataDir: new Blob([await migratedDataDir()]) }));
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
  },
};

const pgliteHandle = (pglite: PGlite) => ({ pglite, db: new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) }) });

let templateBytes: Promise<Uint8Array> | undefined;

function migratedDataDir(): Promise<Uint8Array> {
  return (templateBytes ??= (async () => {
    const root = new URL('../../', import.meta.url);
    const hash = createHash('sha256');
    hash.update(JSON.parse(readFileSync(new URL('node_modules/@electric-sql/pglite/package.json', root), 'utf8')).version);
    for (const dir of ['migrations', 'src/db']) {
      for (const file of readdirSync(new URL(`${dir}/`, root)).sort()) hash.update(file).update(readFileSync(new URL(`${dir}/${file}`, root)));
    }
    const path = join(tmpdir(), `ead-test-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
    try {
      return new Uint8Array(readFileSync(path));
    } catch {
      const { db, pglite } = pgliteHandle(new PGlite());
      await migrateToLatest(db);
      const bytes = new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, bytes);
      renameSync(temporary, path);
      return bytes;
    }
  })());
}

function postgresBackend(serverUrl: string): Backend {
  return {
    name: 'postgres',
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
