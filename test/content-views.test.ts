import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import { sql, type Kysely } from 'kysely';
import { backends, type Backend } from './support/backends.js';
import { openDemoDatabase, pluginApp, DEMO_PLUGIN_OPTIONS, type DemoDatabase } from './support/demo.js';
import { facadeReads, walk } from './support/facade-tour.js';
import { openDatabase } from '../src/db/connection.js';
import { createAgentDiscovery } from '../src/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import type { Database } from '../src/db/schema.js';
import { DEMO } from '../example-site/seed.js';

/**
 * The views road: a host's own relations of the contract's shape, found on the connection's
 * search_path. The demo content is exposed through views in a schema of their own (with `integer`
 * ids, as a CMS's serial keys are), and the plugin over them must answer exactly as over its own tables.
 */

/** A handle whose statements see `searchPath` first (a pool of its own on PostgreSQL; PGlite's one connection is switched and switched back). */
async function scoped(demo: DemoDatabase, searchPath: string): Promise<{ db: Kysely<Database>; close(): Promise<void> }> {
  if (demo.url) {
    const url = new URL(demo.url);
    url.searchParams.set('options', `-c search_path=${searchPath}`);
    const content = await openDatabase({ url: url.toString() });
    return { db: content.db, close: () => content.close() };
  }
  await sql`SELECT set_config('search_path', ${searchPath}, false)`.execute(demo.db);
  return { db: demo.db, close: async () => void (await sql`SELECT set_config('search_path', 'public', false)`.execute(demo.db)) };
}

/** Views of the demo tables in `schema`, ids as `integer`; `pageUrl` adds the optional page_url column. */
async function createViews(db: Kysely<Database>, schema: string, { pageUrl = false } = {}): Promise<void> {
  const s = sql.id(schema);
  await sql`CREATE SCHEMA ${s}`.execute(db);
  const pageUrlColumn = pageUrl ? sql`, jsonb_build_object(language[1], '/wiki/' || coalesce(name, id::text)) AS page_url` : sql``;
  await sql`CREATE VIEW ${s}.rsc AS SELECT id::int AS id, name, category_id::int AS category_id, is_published, visibility,
    publication_start, publication_end, created, modified, language, title, summary, body, blocks, props, seo_noindex, uri,
    license, attribution, fts ${pageUrlColumn} FROM public.rsc`.execute(db);
  await sql`CREATE VIEW ${s}.category AS SELECT id::int AS id, parent_id::int AS parent_id, is_noindex FROM public.category`.execute(db);
  await sql`CREATE VIEW ${s}.predicate_category AS SELECT predicate_id::int AS predicate_id, is_subject, category_id::int AS category_id FROM public.predicate_category`.execute(db);
  await sql`CREATE VIEW ${s}.edge AS SELECT id::int AS id, subject_id::int AS subject_id, predicate_id::int AS predicate_id, object_id::int AS object_id, seq, created FROM public.edge`.execute(db);
  await sql`CREATE VIEW ${s}.medium AS SELECT rsc_id::int AS rsc_id, mime, width, height, size, filename FROM public.medium`.execute(db);
}

/** The relations of `schema`, with their kinds and column counts: what `migrate` may have changed. */
async function catalogOf(db: Kysely<Database>, schema: string): Promise<string[]> {
  const { rows } = await sql<{ entry: string }>`
    SELECT c.relname || ':' || c.relkind::text || ':' || (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0) AS entry
    FROM pg_class c WHERE c.relnamespace = to_regnamespace(${schema}) ORDER BY 1`.execute(db);
  return rows.map((r) => r.entry);
}

const OUT_OF_RANGE = '3000000000';

for (const backend of backends as Backend[]) {
  describe(`content from a host's own views [${backend.name}]`, () => {
    let demo: DemoDatabase;
    before(async () => {
      demo = await openDemoDatabase(backend);
    });
    after(async () => {
      await demo.close();
    });

    it('integer-id views answer every read exactly as the plugin\'s own tables do; ids beyond their range are 404s', async () => {
      const { app: reference } = await pluginApp(demo.db, { baseUrl: 'https://site.example' });
      const urls = await facadeReads(reference, demo.db);
      const want = new Map<string, string>();
      for (const url of urls) {
        const res = await request(reference).get(url);
        assert.equal(res.status, 200, url);
        want.set(url, normalize(res.text));
      }
      const walks = ['/api/agent/search?pagelen=50', `/api/agent/related/${DEMO.popularKeyword}?direction=in&pagelen=50`];
      const wantWalks = await Promise.all(walks.map((first) => walk([reference], first)));

      await createViews(demo.db, 'host_views');
      const views = await scoped(demo, 'host_views,public');
      try {
        const { app, agent } = await pluginApp(views.db, { baseUrl: 'https://site.example' });
        for (const url of urls) {
          const res = await request(app).get(url);
          assert.equal(res.status, 200, `${url}: ${res.text.slice(0, 200)}`);
          assert.equal(normalize(res.text), want.get(url), url);
        }
        for (const [i, first] of walks.entries()) assert.deepEqual(await walk([app], first), wantWalks[i], first);
        for (const path of [
          `/api/agent/resource/${OUT_OF_RANGE}`,
          `/agent/resource/${OUT_OF_RANGE}/markdown`,
          `/api/agent/related/${OUT_OF_RANGE}`,
          `/api/agent/related/${OUT_OF_RANGE}?direction=in`,
          `/api/agent/related/${DEMO.welcome}?predicate=${OUT_OF_RANGE}`,
        ]) {
          const res = await request(app).get(path);
          assert.equal(res.status, 404, `${path}: ${res.text.slice(0, 200)}`);
        }
        assert.equal((await request(app).get(`/api/agent/search?cat=${OUT_OF_RANGE}`)).status, 400, 'an unknown category, as for any id');
        const host = express();
        host.use(agent.router);
        host.get('/page/:id', agent.resourceLinks('id'), (_req, res) => void res.send('<p>page</p>'));
        host.use((_req, res) => void res.status(404).send('host 404'));
        const negotiated = await request(host).get(`/id/${OUT_OF_RANGE}`).set('accept', 'text/markdown');
        assert.equal(negotiated.status, 303, 'negotiation redirects without a read');
        assert.equal((await request(app).get(new URL(negotiated.headers.location!).pathname)).status, 404);
        assert.equal((await request(host).get(`/page/${OUT_OF_RANGE}`).set('accept', 'text/markdown')).status, 200, 'the host page falls through');
        await agent.close();
      } finally {
        await views.close();
      }
    });

    it('a view may supply page_url: reads, list items and the Markdown front matter cite it', async () => {
      await createViews(demo.db, 'host_urls', { pageUrl: true });
      const views = await scoped(demo, 'host_urls,public');
      try {
        const { app, agent } = await pluginApp(views.db, { baseUrl: 'https://cms.example' });
        const read = await request(app).get(`/api/agent/resource/${DEMO.welcome}`);
        assert.equal(read.status, 200);
        assert.equal(read.body.result.page_url, `https://cms.example/wiki/${DEMO.welcome}`);
        assert.deepEqual(Object.values(read.body.result.page_urls).filter((u) => u === `https://cms.example/wiki/${DEMO.welcome}`).length, 1, 'only its own language has that URL');
        const search = await request(app).get('/api/agent/search?pagelen=100');
        for (const item of search.body.result.items as { page_url: string }[]) assert.match(item.page_url, /^https:\/\/cms\.example\/wiki\//);
        const markdown = await request(app).get(`/agent/resource/${DEMO.welcome}/markdown`);
        assert.match(markdown.text, new RegExp(`^url: "?https://cms\\.example/wiki/${DEMO.welcome}"?$`, 'm'));
        await agent.close();
      } finally {
        await views.close();
      }
    });

    it('a schema that breaks the contract fails at start with one error naming every problem; none gets to a request', async () => {
      await sql`CREATE SCHEMA broken`.execute(demo.db);
      await sql`CREATE VIEW broken.rsc AS SELECT id, name, category_id, is_published, 1 AS visibility, publication_start, publication_end,
        created, modified, language, title, summary, body, props, seo_noindex, uri, license, attribution FROM public.rsc`.execute(demo.db);
      await sql`CREATE VIEW broken.category AS SELECT id, parent_id, is_noindex FROM public.category`.execute(demo.db);
      await sql`CREATE VIEW broken.predicate_category AS SELECT * FROM public.predicate_category`.execute(demo.db);
      await sql`CREATE VIEW broken.medium AS SELECT rsc_id, mime, width, height, size::text AS size, filename FROM public.medium`.execute(demo.db);
      const views = await scoped(demo, 'broken');
      try {
        const error = await createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, database: { kysely: views.db } }).then(
          () => assert.fail('started'),
          (e: Error) => e,
        );
        const lines = error.message.split('\n').filter((l) => l.startsWith('  - '));
        assert.deepEqual(lines, [
          '  - rsc.visibility: expected text (varchar accepted), found integer',
          '  - rsc.blocks: missing (expected jsonb)',
          '  - rsc.fts: missing (expected tsvector)',
          '  - edge: the relation is missing (expected a table or view)',
          '  - medium.size: expected integer (smallint and bigint accepted), found text',
        ]);
        assert.match(error.message, /^express-agent-discovery: .*\(5 problems\)/);
        assert.match(error.message, /docs\/reference\/content-contract\.md/);
      } finally {
        await views.close();
      }
    });

    it('migrate over a host schema creates only the plugin\'s own tables; over part of one it refuses and changes nothing', async () => {
      await createViews(demo.db, 'host_whole');
      const whole = await scoped(demo, 'host_whole');
      try {
        const before = await catalogOf(whole.db, 'host_whole');
        await migrateToLatest(whole.db);
        const added = (await catalogOf(whole.db, 'host_whole')).filter((e) => !before.includes(e)).map((e) => e.split(':')[0]);
        assert.deepEqual(added.filter((n) => !n!.endsWith('_pkey')).sort(), ['agent_discovery_charges', 'agent_discovery_content_version', 'agent_discovery_migration', 'agent_discovery_migration_lock', 'agent_discovery_policy_log', 'agent_discovery_policy_log_id_seq', 'agent_discovery_settings', 'agent_discovery_traffic', 'agent_discovery_traffic_referral', 'agent_discovery_traffic_resource', 'agent_discovery_visibility_log', 'agent_discovery_visibility_log_at_idx']);
        const agent = await createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, database: { kysely: whole.db } });
        await agent.close();
      } finally {
        await whole.close();
      }

      await sql`CREATE SCHEMA host_part`.execute(demo.db);
      await sql`CREATE VIEW host_part.rsc AS SELECT * FROM public.rsc`.execute(demo.db);
      await sql`CREATE VIEW host_part.category AS SELECT * FROM public.category`.execute(demo.db);
      const part = await scoped(demo, 'host_part');
      try {
        const before = await catalogOf(part.db, 'host_part');
        await assert.rejects(migrateToLatest(part.db), /refusing to migrate: .*\(rsc, category\) but not predicate_category, edge, medium.*Nothing was changed\./);
        assert.deepEqual(await catalogOf(part.db, 'host_part'), before);
        await assert.rejects(
          createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, database: { kysely: part.db }, migrate: true }),
          /refusing to migrate/,
        );
        assert.deepEqual(await catalogOf(part.db, 'host_part'), before);
      } finally {
        await part.close();
      }
    });

    it('a host schema without the plugin\'s settings table fails at start, naming migrate as the fix', async () => {
      await createViews(demo.db, 'host_nosettings');
      const views = await scoped(demo, 'host_nosettings');
      try {
        await assert.rejects(
          createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, database: { kysely: views.db } }),
          /the content relations are the host's own, but the plugin's own settings table is missing.*migrations not applied: 0002_agent_settings/,
        );
      } finally {
        await views.close();
      }
    });

    it('text search uses the configured configuration; an unknown one fails at start naming the option', async () => {
      await sql`UPDATE rsc SET fts = to_tsvector('english', coalesce(title->>'en', '') || ' ' || coalesce(summary->>'en', '') || ' ' || coalesce(body->>'en', ''))`.execute(demo.db);
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM rsc WHERE fts @@ websearch_to_tsquery('english', 'harbours')`.execute(demo.db);
      assert.ok(rows[0]!.n > 0, 'the demo content has harbour words');
      const english = await pluginApp(demo.db, { textSearch: { configuration: 'english' } });
      const plural = await request(english.app).get('/api/agent/search?text=harbours&pagelen=100');
      const singular = await request(english.app).get('/api/agent/search?text=harbour&pagelen=100');
      assert.equal(plural.status, 200);
      assert.ok(plural.body.result.items.length > 0);
      assert.deepEqual(plural.body.result.items.map((i: { id: number }) => i.id), singular.body.result.items.map((i: { id: number }) => i.id), 'stemmed alike');
      await english.agent.close();
      await assert.rejects(pluginApp(demo.db, { textSearch: { configuration: 'klingon' } }), /option "textSearch.configuration": the text search configuration "klingon" does not exist/);
      await assert.rejects(pluginApp(demo.db, { textSearch: { configuration: "english'; --" } }), /option "textSearch.configuration": expected the name of a text search configuration/);
    });
  });
}

const normalize = (text: string) => text.replace(/(cursor|since)=[A-Za-z0-9_.~%-]+/g, '$1=…').replace(/"updatedAt":"[^"]*"/g, '"updatedAt":…');
