/**
 * Settings benchmark: the per-request read of the run-time settings against a `SELECT 1` round trip,
 * side by side in one run, on the embedded database and (with DATABASE_URL) on PostgreSQL.
 *
 *   npx tsx bench/settings-bench.ts
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/settings-bench.ts
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase, type DatabaseConfig } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { readStoredSettings } from '../src/settings/settings-store.js';

const ROUNDS = 2000;

async function msPerCall(f: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await f();
  const start = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) await f();
  return Number(process.hrtime.bigint() - start) / 1e6 / ROUNDS;
}

async function measure(name: string, config: DatabaseConfig): Promise<void> {
  const content = await openDatabase(config);
  try {
    await migrateToLatest(content.db);
    const settings = await msPerCall(() => readStoredSettings(content.db));
    const baseline = await msPerCall(() => sql`SELECT 1`.execute(content.db));
    process.stdout.write(`${name}: settings read ${settings.toFixed(3)} ms, SELECT 1 ${baseline.toFixed(3)} ms (ratio ${(settings / baseline).toFixed(2)})\n`);
  } finally {
    await content.close();
  }
}

await measure('pglite', { memory: true });
if (process.env.DATABASE_URL) {
  const dbName = `ead_bench_settings_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  try {
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${dbName}`;
    await measure('postgres', { url: url.toString() });
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}
