import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { backends, type TestDatabase } from './support/backends.js';
import { migrateToLatest, MIGRATION_TABLE } from '../src/db/migrator.js';
import { migrations } from '../migrations/index.js';

for (const backend of backends) {
  describe(`schema and migrations [${backend.name}]`, () => {
    let content: TestDatabase;
    before(async () => {
      content = await backend.open();
    });
    after(() => content.close());

    it('creates every table of the content schema with both unique edge indexes', async () => {
      const tables = await sql<{ table_name: string }>`
        SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`.execute(content.db);
      const names = tables.rows.map((r) => r.table_name);
      for (const t of ['rsc', 'category', 'predicate_category', 'edge', 'medium', MIGRATION_TABLE]) assert.ok(names.includes(t), t);
      const indexes = await sql<{ indexname: string; indexdef: string }>`
        SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('edge', 'rsc')`.execute(content.db);
      const def = (name: string) => indexes.rows.find((r) => r.indexname === name)?.indexdef ?? '';
      assert.match(def('edge_subject_predicate_object_key'), /UNIQUE INDEX .* \(subject_id, predicate_id, object_id\)/);
      assert.match(def('edge_object_predicate_subject_key'), /UNIQUE INDEX .* \(object_id, predicate_id, subject_id\)/);
      assert.match(def('rsc_fts_idx'), /USING gin \(fts\)/);
      assert.match(def('rsc_publication_start_desc_idx'), /\(publication_start DESC, id\)/);
      assert.match(def('rsc_modified_desc_idx'), /\(modified DESC, id\)/);
    });

    it('maintains the full-text vector over every language, tags stripped', async () => {
      await content.db.transaction().execute(async (tx) => {
        await sql`INSERT INTO rsc (id, name, category_id, title, body) VALUES
          (100, 'c', 100, '{"en":"Harbour","nl":"Haven"}', '{"en":"<p class=\\"kade\\">quay <b>walls</b></p>"}')`.execute(tx);
        await sql`INSERT INTO category (id) VALUES (100)`.execute(tx);
      });
      const hit = (q: string) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM rsc WHERE fts @@ websearch_to_tsquery('simple', ${q})`.execute(content.db).then((x) => x.rows[0]!.n);
      assert.equal(await hit('haven'), 1);
      assert.equal(await hit('harbour'), 1);
      assert.equal(await hit('walls'), 1);
      assert.equal(await hit('kade'), 0, 'attribute text is not indexed');
    });

    it('migrations are idempotent', async () => {
      const again = await migrateToLatest(content.db);
      assert.deepEqual(again.results, []);
    });
  });
}

if (process.env.DATABASE_URL) {
  describe('migrations under concurrency [postgres]', () => {
    it('two processes migrating one fresh database at once both succeed', async () => {
      const backend = backends.find((b) => b.name === 'postgres')!;
      const fresh = await backend.open();
      // backend.open() migrated it already; drop the schema to start from nothing.
      await sql`DROP SCHEMA public CASCADE`.execute(fresh.db);
      await sql`CREATE SCHEMA public`.execute(fresh.db);
      const run = () =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'migrate'], { env: { ...process.env, DATABASE_URL: fresh.url! } });
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          child.stderr.on('data', (d) => (out += d));
          child.on('close', (code) => resolve({ code, out }));
        });
      const [a, b] = await Promise.all([run(), run()]);
      assert.equal(a.code, 0, a.out);
      assert.equal(b.code, 0, b.out);
      assert.deepEqual([a.out, b.out].sort(), [`applied: ${Object.keys(migrations).join(', ')}\n`, 'schema is up to date\n']);
      await fresh.close();
    });
  });
}
