/**
 * `npm run migrate`: applies the content schema to DATABASE_URL, or to the embedded database in
 * AGENT_DISCOVERY_DATA_DIR (default `.data/pglite`).
 */
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';

const config = process.env.DATABASE_URL
  ? { url: process.env.DATABASE_URL }
  : { dataDir: process.env.AGENT_DISCOVERY_DATA_DIR ?? '.data/pglite' };

const content = await openDatabase(config);
try {
  const result = await migrateToLatest(content.db);
  const applied = result.results?.filter((r) => r.status === 'Success').map((r) => r.migrationName) ?? [];
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await content.close();
}
