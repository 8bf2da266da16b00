import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type ContentDatabase } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrator.js';

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

const pgliteBackend: Backend = {
  name: 'pglite',
  async open() {
    const content = await openDatabase({ memory: true });
    await migrateToLatest(content.db);
    return { ...content, url: undefined };
  },
};

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
