import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase, type ContentDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { bootstrapVocabulary } from '../example-site/content-store.js';

/**
 * The URL of a bench database that is kept between runs on the PostgreSQL server `serverUrl`,
 * created when missing.
 */
export async function keptDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (!exists.rowCount) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A kept bench database's content, opened and migrated: when it holds fewer than `rows` resources,
 * emptied (the vocabulary bootstrapped) and returned for the caller to seed and close; else closed
 * and `undefined` (seeded by an earlier run).
 */
export async function keptContentToSeed(url: string, rows: number, name: string): Promise<ContentDatabase | undefined> {
  const content = await openDatabase({ url });
  await migrateToLatest(content.db);
  const have = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rsc`.execute(content.db);
  if (have.rows[0]!.n >= rows) {
    await content.close();
    return undefined;
  }
  process.stdout.write(`seeding ${rows} resources (once; kept in ${name})...\n`);
  await sql`TRUNCATE rsc, category, edge, medium, predicate_category CASCADE`.execute(content.db);
  await bootstrapVocabulary(content.db);
  return content;
}
