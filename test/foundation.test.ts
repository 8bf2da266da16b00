import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import request from 'supertest';
import { backends, type TestDatabase } from './support/backends.js';
import { createAgentDiscovery } from '../src/index.js';
import { resolveOptions } from '../src/options.js';
import { migrateToLatest, MIGRATION_TABLE } from '../src/db/migrator.js';
import { createExampleSite } from '../example-site/app.js';
import { DEMO } from '../example-site/seed.js';

describe('options', () => {
  const base = { siteTitle: 'Site', database: { memory: true as const } };
  const fails = (input: unknown, path: RegExp) =>
    assert.throws(() => resolveOptions(input), (e: Error) => {
      assert.match(e.message, /^express-agent-discovery: invalid options: /);
      assert.match(e.message, path);
      return true;
    });

  it('accepts a minimal configuration and fills the defaults', () => {
    const o = resolveOptions(base);
    assert.deepEqual(o.languages, ['en']);
    assert.equal(o.defaultLanguage, 'en');
    assert.equal(o.noindex, false);
    assert.equal(o.budgetMs, 5000);
    assert.equal(o.maxBodyBytes, 1024 * 1024);
    assert.equal(o.pageUrl({ id: 7, name: null, language: 'en', category: null }), '/en/page/7');
    assert.ok(Object.isFrozen(o));
  });

  it('names the option path of each bad value', () => {
    fails({ database: { memory: true } }, /option "siteTitle"/);
    fails({ ...base, siteTitle: '   ' }, /option "siteTitle"/);
    fails({ ...base, languages: ['en', 'English'] }, /option "languages\[1\]"/);
    fails({ ...base, languages: [] }, /option "languages"/);
    fails({ ...base, defaultLanguage: 'nl' }, /option "defaultLanguage": must be one of languages/);
    fails({ ...base, baseUrl: 'ftp://example.org' }, /option "baseUrl"/);
    fails({ ...base, baseUrl: 'https://example.org/?x=1' }, /option "baseUrl"/);
    fails({ ...base, templateDirs: ['/no/such/dir'] }, /option "templateDirs\[0\]": template directory does not exist/);
    fails({ ...base, pageUrl: 'not a function' }, /option "pageUrl"/);
    fails({ ...base, database: { host: 'x' } }, /option "database"/);
    fails({ ...base, database: { url: 'mysql://x' } }, /option "database\.url": expected a postgres:\/\/ URL/);
    fails({ ...base, budgetMs: 0 }, /option "budgetMs"/);
    fails({ ...base, ard: { representativeQueries: ['only one'] } }, /option "ard\.representativeQueries"/);
    fails({ ...base, unknownOption: true }, /unknownOption/);
  });

  it('does not mutate the caller\'s options', () => {
    const input = { ...base, languages: ['en', 'nl'] };
    const copy = structuredClone(input);
    resolveOptions(input);
    assert.deepEqual(input, copy);
  });

  it('an unreachable database fails the factory with a clear error', async () => {
    await assert.rejects(
      createAgentDiscovery({ siteTitle: 'x', database: { url: 'postgres://nobody@127.0.0.1:1/none' } }),
      /express-agent-discovery: cannot connect to PostgreSQL/,
    );
  });
});

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
      await sql`DROP TABLE medium, edge, predicate_category, category, rsc, agent_discovery_migration, agent_discovery_migration_lock CASCADE`.execute(fresh.db);
      await sql`DROP FUNCTION rsc_fts_refresh()`.execute(fresh.db);
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
      assert.deepEqual([a.out, b.out].sort(), ['applied: 0001_content_schema, 0002_agent_settings\n', 'schema is up to date\n']);
      await fresh.close();
    });
  });
}

for (const backend of backends) {
  describe(`example site [${backend.name}]`, () => {
    it('serves the home page and a resource page; /id/:id redirects to the page', async () => {
      const content = await backend.open();
      const site = await createExampleSite({ database: { kysely: content.db } });
      try {
        const home = await request(site.app).get('/');
        assert.equal(home.status, 200);
        assert.match(home.text, /<h1>Harbour Example<\/h1>/);
        const id = (await content.db.selectFrom('rsc').select('id').where('name', '=', DEMO.welcome).executeTakeFirstOrThrow()).id;
        const page = await request(site.app).get(`/en/page/${id}`);
        assert.equal(page.status, 200);
        assert.match(page.text, /Welcome to the example site/);
        const nl = await request(site.app).get(`/nl/page/${id}`);
        assert.match(nl.text, /Welkom op de voorbeeldsite/);
        const redirect = await request(site.app).get(`/id/${id}`);
        assert.equal(redirect.status, 302);
        assert.equal(redirect.headers.location, `/en/page/${id}`);
        // The host's own ACL: private pages are hidden from visitors and shown to the administrator.
        const privateId = (await content.db.selectFrom('rsc').select('id').where('name', '=', DEMO.private).executeTakeFirstOrThrow()).id;
        assert.equal((await request(site.app).get(`/en/page/${privateId}`)).status, 404);
        const login = await request(site.app).post('/login').type('form').send({ password: site.session.adminPassword });
        assert.equal(login.status, 303);
        const cookie = String(login.headers['set-cookie']).split(';')[0]!;
        const asAdmin = await request(site.app).get(`/en/page/${privateId}`).set('Cookie', cookie);
        assert.equal(asAdmin.status, 200);
        assert.match(asAdmin.text, /SECRET-PRIVATE-BODY/);
        // ...while the facade stays anonymous.
        assert.equal((await request(site.app).get(`/api/agent/resource/${privateId}`).set('Cookie', cookie)).status, 404);
        assert.equal((await request(site.app).get('/no/such/page')).status, 404);
        // Seeding happens once.
        const count = async () => Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM rsc`.execute(content.db)).rows[0]!.n);
        const before = await count();
        const second = await createExampleSite({ database: { kysely: content.db } });
        assert.equal(await count(), before);
        void second;
      } finally {
        await content.close();
      }
    });
  });
}

describe('example site start-up failures', () => {
  const start = (env: Record<string, string>) =>
    new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'example-site/server.ts'], { env: { ...process.env, ...env } });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (code) => resolve({ code, err }));
    });

  it('an unreachable database exits non-zero with the cause', async () => {
    const r = await start({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '0' });
    assert.notEqual(r.code, 0);
    assert.match(r.err, /failed to start: express-agent-discovery: cannot connect to PostgreSQL/);
  });

  it('a bad PORT exits non-zero with the cause', async () => {
    const r = await start({ PORT: 'eighty' });
    assert.notEqual(r.code, 0);
    assert.match(r.err, /PORT must be a port number/);
  });
});

