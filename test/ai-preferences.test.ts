import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import { sql, type Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { surfaceBackends, type Backend } from './support/backends.js';
import { openDemoDatabase, DEMO_PLUGIN_OPTIONS, type DemoDatabase } from './support/demo.js';
import { createAgentDiscovery, type AgentDiscoveryOptions } from '../src/index.js';
import { resolveOptions } from '../src/options.js';
import { openDatabase } from '../src/db/connection.js';
import type { Database } from '../src/db/schema.js';
import { migrateToLatest, MIGRATION_LOCK_TABLE, MIGRATION_TABLE } from '../src/db/migrator.js';
import { assertContentSchema, schemaState } from '../src/db/schema-check.js';
import { migrations } from '../migrations/index.js';
import { parseCrawlerRules } from '../src/settings/crawler-rules.js';
import { contentSignalValue, contentUsageValue } from '../src/settings/ai-preferences.js';
import { DEMO } from '../example-site/seed.js';

const BASE = 'https://site.example';
const ADMIN = { 'x-test-admin': 'yes' };

/**
 * A host as a site would be: the plugin's router, the admin pages for a request carrying the admin
 * header, a resource page through `resourceLinks`, and the host's own 404 for everything else.
 */
async function host(db: Kysely<Database>, options: Partial<AgentDiscoveryOptions> = {}) {
  const agent = await createAgentDiscovery({
    ...DEMO_PLUGIN_OPTIONS,
    database: { kysely: db },
    baseUrl: BASE,
    isAdmin: (req) => req.get('x-test-admin') === 'yes',
    ...options,
  });
  const app = express();
  app.use(agent.linkHeaders);
  app.use(agent.router);
  app.use('/admin/agent', agent.adminRouter);
  app.get('/:lang/page/:id', agent.resourceLinks({ id: 'id', language: 'lang' }), (_req, res) => void res.type('html').send('<!doctype html><title>page</title>'));
  app.get('/', (_req, res) => void res.type('html').send('<!doctype html><title>home</title>'));
  return { app, agent };
}

/** Posts the settings form as an administrator's browser would: its CSRF cookie and token first. */
async function postSettings(app: express.Express, fields: Record<string, string>) {
  const page = await request(app).get('/admin/agent/settings').set(ADMIN);
  assert.equal(page.status, 200);
  const cookie = (page.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
  const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  assert.ok(token, 'the settings form carries its CSRF token');
  return request(app)
    .post('/admin/agent/settings')
    .set(ADMIN)
    .set('cookie', cookie)
    .type('form')
    .send({ _csrf: token, ...fields });
}

/** Every Access-Control-* header of a response. */
const corsHeaders = (headers: Record<string, unknown>) => Object.keys(headers).filter((h) => h.toLowerCase().startsWith('access-control-'));

describe('AI preferences: the values and the crawler rules', () => {
  it('Content-Signal and Content-Usage list only the signals set, in robots.txt order, with the aipref labels', () => {
    assert.equal(contentSignalValue({ search: true, 'ai-input': true, 'ai-train': false }), 'search=yes, ai-input=yes, ai-train=no');
    assert.equal(contentUsageValue({ search: true, 'ai-input': true, 'ai-train': false }), 'search=y, ai-use=y, train-ai=n');
    assert.equal(contentUsageValue({ search: null, 'ai-input': false, 'ai-train': null }), 'ai-use=n');
    assert.equal(contentSignalValue({ search: null, 'ai-input': null, 'ai-train': null }), undefined);
    assert.equal(contentUsageValue({ search: null, 'ai-input': null, 'ai-train': null }), undefined);
  });

  it('crawler rules: Allow and Disallow lines in any case, blank lines skipped; a malformed line is named', () => {
    assert.deepEqual(parseCrawlerRules('allow: /\r\n\r\n  DISALLOW:/drafts/*$ \nDisallow:'), {
      ok: true,
      rules: [
        { kind: 'Allow', path: '/' },
        { kind: 'Disallow', path: '/drafts/*$' },
        { kind: 'Disallow', path: '' },
      ],
    });
    const refused = (text: string) => {
      const r = parseCrawlerRules(text);
      assert.equal(r.ok, false, text);
      return r.ok ? '' : r.message;
    };
    assert.equal(refused('Allow: /\nDisalow: /x'), 'crawler rules, line 2 ("Disalow: /x"): expected "Allow: /path" or "Disallow: /path"');
    assert.match(refused('User-agent: GPTBot\nDisallow: /'), /^crawler rules, line 1 \("User-agent: GPTBot"\): the rules apply to "User-agent: \*"/);
    assert.match(refused('\n\nDisallow: drafts/'), /^crawler rules, line 3 \("Disallow: drafts\/"\): a path must start with "\/"/);
    assert.match(refused('Disallow: /a b'), /line 1 .*may not contain spaces/);
    assert.match(refused('Disallow: /a#b'), /line 1 .*"#"/);
    assert.match(refused(Array.from({ length: 101 }, (_, i) => `Disallow: /p${i}`).join('\n')), /line 101 .*at most 100 rules/);
  });

  it('robotsTxt and cors are off by default; a non-boolean is refused naming the option', () => {
    const o = resolveOptions({ siteTitle: 'Example', database: { memory: true } });
    assert.equal(o.robotsTxt, false);
    assert.equal(o.cors, false);
    assert.throws(() => resolveOptions({ siteTitle: 'Example', database: { memory: true }, robotsTxt: 'yes' }), /option "robotsTxt"/);
    assert.throws(() => resolveOptions({ siteTitle: 'Example', database: { memory: true }, cors: 1 }), /option "cors"/);
  });
});

for (const backend of surfaceBackends as Backend[]) {
  describe(`robots.txt, Content-Usage and CORS [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let about: number;
    let hub: number;
    before(async () => {
      demo = await openDemoDatabase(backend);
      about = await demo.id(DEMO.about);
      hub = await demo.id(DEMO.popularKeyword);
    });
    after(async () => {
      await demo.close();
    });

    /** The public documents and reads, each a path the plugin answers with 200. */
    const publicPaths = () => [
      '/llms.txt',
      '/openapi.json',
      '/.well-known/api-catalog',
      '/.well-known/ard.json',
      '/.well-known/ai-catalog.json',
      '/api-help',
      '/api/agent',
      '/api/agent/search',
      `/api/agent/resource/${about}`,
      `/api/agent/related/${hub}?direction=in`,
      '/api/agent/schema',
      `/agent/resource/${about}/markdown`,
    ];
    const contentPaths = () => ['/api/agent/search', `/api/agent/resource/${about}`, `/agent/resource/${about}/markdown`, `/api/agent/related/${hub}?direction=in`, `/en/page/${about}`];

    it('off by default: no robots.txt from the plugin (the host\'s 404 stands), no Content-Usage, no CORS header anywhere', async () => {
      const { app } = await host(demo.db);
      const robots = await request(app).get('/robots.txt');
      assert.equal(robots.status, 404);
      assert.match(robots.text, /Cannot GET \/robots\.txt/, 'Express\'s own 404, not the plugin\'s');
      for (const path of [...publicPaths(), ...contentPaths(), '/api/agent/nope', '/']) {
        const res = await request(app).get(path).set('Origin', 'https://agent.example');
        assert.ok(res.status === 200 || path === '/api/agent/nope', `${path}: ${res.status}`);
        assert.equal(res.headers['content-usage'], undefined, path);
        assert.deepEqual(corsHeaders(res.headers), [], path);
        const preflight = await request(app).options(path).set('Origin', 'https://agent.example').set('Access-Control-Request-Method', 'GET');
        assert.deepEqual(corsHeaders(preflight.headers), [], `OPTIONS ${path}`);
        assert.notEqual(preflight.status, 204, `OPTIONS ${path}`);
      }
    });

    it('robots.txt and Content-Usage follow a Settings change on the next request; robots.txt is a discovery document', async () => {
      const { app } = await host(demo.db, { robotsTxt: true, sitemapUrl: '/sitemap.xml' });
      const first = await request(app).get('/robots.txt');
      assert.equal(first.status, 200);
      assert.equal(first.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(first.headers['cache-control'], 'no-cache');
      assert.equal(first.text, `User-agent: *\nAllow: /\n\nSitemap: ${BASE}/sitemap.xml\nLicense: ${BASE}/license.xml\n`);
      assert.equal((await request(app).get('/robots.txt').set('If-None-Match', first.headers.etag!)).status, 304);
      const head = await request(app).head('/robots.txt');
      assert.equal(head.status, 200);
      assert.equal(head.headers.etag, first.headers.etag);
      assert.equal((await request(app).post('/robots.txt')).status, 405);
      for (const path of contentPaths()) assert.equal((await request(app).get(path)).headers['content-usage'], undefined, path);

      const saved = await postSettings(app, {
        contentSignalSearch: 'yes',
        contentSignalAiInput: 'yes',
        contentSignalAiTrain: 'no',
        crawlerRules: 'disallow: /drafts/\n\nAllow: /',
        sitemapUrl_source: 'site',
        sitemapUrl: '/maps/sitemap.xml',
      });
      assert.equal(saved.status, 303, saved.text);
      const second = await request(app).get('/robots.txt');
      assert.equal(
        second.text,
        'User-agent: *\nContent-Signal: search=yes, ai-input=yes, ai-train=no\nContent-Usage: search=y, ai-use=y, train-ai=n\n' +
          `Disallow: /drafts/\nAllow: /\n\nSitemap: ${BASE}/maps/sitemap.xml\nLicense: ${BASE}/license.xml\n`,
      );
      assert.notEqual(second.headers.etag, first.headers.etag);
      for (const path of contentPaths()) {
        const res = await request(app).get(path);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers['content-usage'], 'search=y, ai-use=y, train-ai=n', path);
      }
      const negotiated = await request(app).get(`/en/page/${about}`).set('Accept', 'text/markdown');
      assert.match(negotiated.headers['content-type']!, /^text\/markdown/);
      assert.equal(negotiated.headers['content-usage'], 'search=y, ai-use=y, train-ai=n');
      for (const path of ['/api/agent', '/api/agent/schema', '/llms.txt', '/robots.txt', '/api/agent/resource/999999999', `/api/agent/resource/${DEMO.private}`]) {
        assert.equal((await request(app).get(path)).headers['content-usage'], undefined, `${path} is not content`);
      }
      const page = await request(app).get('/admin/agent/settings').set(ADMIN);
      assert.match(page.text, /<option value="no" selected>No<\/option>/);
      assert.match(page.text, /Disallow: \/drafts\/\nAllow: \//);

      await postSettings(app, { contentSignalAiTrain: 'no' });
      const third = await request(app).get('/robots.txt');
      assert.equal(third.text, `User-agent: *\nContent-Signal: ai-train=no\nContent-Usage: train-ai=n\nAllow: /\n\nSitemap: ${BASE}/sitemap.xml\nLicense: ${BASE}/license.xml\n`);
      assert.equal((await request(app).get(`/api/agent/resource/${about}`)).headers['content-usage'], 'train-ai=n');

      await postSettings(app, { sitemapUrl_source: 'site', sitemapUrl: '' });
      assert.equal((await request(app).get('/robots.txt')).text, 'User-agent: *\nAllow: /\n\nLicense: https://site.example/license.xml\n');
      for (const path of contentPaths()) assert.equal((await request(app).get(path)).headers['content-usage'], undefined, path);
      await postSettings(app, {});
    });

    it('the contentSignals option says the signals in code; a choice on the admin page replaces one, "not set here" gives it back', async () => {
      const { app, agent } = await host(demo.db, { robotsTxt: true, contentSignals: { search: true, 'ai-train': false } });
      const robots = await request(app).get('/robots.txt');
      assert.equal(robots.text, 'User-agent: *\nContent-Signal: search=yes, ai-train=no\nContent-Usage: search=y, train-ai=n\nAllow: /\n\nLicense: https://site.example/license.xml\n');
      for (const path of contentPaths()) assert.equal((await request(app).get(path)).headers['content-usage'], 'search=y, train-ai=n', path);
      const settings = await agent.settings();
      assert.deepEqual(
        [settings.contentSignalSearch, settings.contentSignalAiInput, settings.contentSignalAiTrain, settings.source.contentSignalSearch, settings.source.contentSignalAiInput],
        [true, undefined, false, 'options', 'default'],
      );

      const saved = await postSettings(app, { contentSignalAiTrain: 'yes' });
      assert.equal(saved.status, 303, saved.text);
      assert.equal((await request(app).get('/robots.txt')).text, 'User-agent: *\nContent-Signal: search=yes, ai-train=yes\nContent-Usage: search=y, train-ai=y\nAllow: /\n\nLicense: https://site.example/license.xml\n');
      assert.equal((await request(app).get(`/api/agent/resource/${about}`)).headers['content-usage'], 'search=y, train-ai=y');
      assert.equal((await agent.settings()).source.contentSignalAiTrain, 'database');

      await postSettings(app, {});
      assert.equal((await request(app).get('/robots.txt')).text, robots.text, 'back to the code\'s signals');
      const { app: withoutRobots } = await host(demo.db, { contentSignals: { search: true } });
      assert.equal((await request(withoutRobots).get(`/api/agent/resource/${about}`)).headers['content-usage'], undefined, 'without robotsTxt nothing is sent');
      assert.throws(() => resolveOptions({ siteTitle: 'Example', database: { memory: true }, contentSignals: { search: 'yes' } }), /contentSignals/);
      assert.throws(() => resolveOptions({ siteTitle: 'Example', database: { memory: true }, contentSignals: { 'ai-training': false } }), /contentSignals/);
    });

    it('a malformed crawler rule is refused with a message naming the line; nothing is stored', async () => {
      const { app } = await host(demo.db, { robotsTxt: true });
      const before = (await request(app).get('/robots.txt')).text;
      const refused = await postSettings(app, { contentSignalAiTrain: 'no', crawlerRules: 'Allow: /\nDisalow: /private/' });
      assert.equal(refused.status, 400);
      assert.match(refused.text, /role="alert"/);
      assert.match(refused.text, /crawler rules, line 2 \(&quot;Disalow: \/private\/&quot;\): expected &quot;Allow: \/path&quot; or &quot;Disallow: \/path&quot;/);
      assert.match(refused.text, /Allow: \/\nDisalow: \/private\//, 'the form shows what was typed');
      const agentLine = await postSettings(app, { crawlerRules: 'User-agent: GPTBot\nDisallow: /' });
      assert.equal(agentLine.status, 400);
      assert.match(agentLine.text, /line 1 \(&quot;User-agent: GPTBot&quot;\)/);
      const badSignal = await postSettings(app, { contentSignalSearch: 'maybe' });
      assert.equal(badSignal.status, 400);
      assert.match(badSignal.text, /<li>Content Signal search must be &quot;unset&quot;, &quot;yes&quot; or &quot;no&quot;<\/li>/);
      assert.equal((await request(app).get('/robots.txt')).text, before);
      assert.equal((await request(app).get(`/api/agent/resource/${about}`)).headers['content-usage'], undefined);
    });

    it('cors: preflights are 204 and every public answer is readable from any origin, never with credentials; per-caller reads and host pages get nothing', async () => {
      const { app } = await host(demo.db, { cors: true, robotsTxt: true });
      for (const path of [...publicPaths(), '/robots.txt']) {
        const preflight = await request(app)
          .options(path)
          .set('Origin', 'https://agent.example')
          .set('Access-Control-Request-Method', 'GET')
          .set('Access-Control-Request-Headers', 'if-none-match');
        assert.equal(preflight.status, 204, `OPTIONS ${path}`);
        assert.equal(preflight.text, '');
        assert.equal(preflight.headers['access-control-allow-origin'], '*', path);
        assert.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS', path);
        for (const name of ['If-None-Match', 'Accept', 'Accept-Language']) assert.ok(preflight.headers['access-control-allow-headers']!.split(', ').includes(name), `${path}: ${name}`);
        assert.match(preflight.headers['access-control-max-age']!, /^\d+$/);
        assert.equal(preflight.headers['access-control-allow-credentials'], undefined, path);
        assert.equal(preflight.headers['link'], undefined, 'a preflight gets no site links');

        const res = await request(app).get(path).set('Origin', 'https://agent.example');
        assert.equal(res.status, 200, path);
        assert.equal(res.headers['access-control-allow-origin'], '*', path);
        const exposed = res.headers['access-control-expose-headers']!.split(', ');
        for (const name of ['ETag', 'Link', 'Content-Language', 'Content-Usage']) assert.ok(exposed.includes(name), `${path}: ${name}`);
        assert.equal(res.headers['access-control-allow-credentials'], undefined, path);
        const head = await request(app).head(path).set('Origin', 'https://agent.example');
        assert.equal(head.headers['access-control-allow-origin'], '*', `HEAD ${path}`);
      }
      for (const path of ['/api/agent/nope', '/api/agent/resource/999999999']) {
        const res = await request(app).get(path).set('Origin', 'https://agent.example');
        assert.equal(res.status, 404, path);
        assert.equal(res.headers['access-control-allow-origin'], '*', `a browser agent reads the 404 of ${path}`);
      }
      assert.equal((await request(app).post('/api/agent/search').set('Origin', 'https://agent.example')).headers['access-control-allow-origin'], '*');
      for (const path of [`/api/model/edge/get/o/${hub}/about`, '/', `/en/page/${about}`, '/admin/agent/settings']) {
        const res = await request(app).get(path).set(ADMIN).set('Origin', 'https://agent.example');
        assert.deepEqual(corsHeaders(res.headers), [], path);
        const preflight = await request(app).options(path).set('Origin', 'https://agent.example').set('Access-Control-Request-Method', 'GET');
        assert.deepEqual(corsHeaders(preflight.headers), [], `OPTIONS ${path}`);
      }
    });
  });

  describe(`the AI preferences migration over a host's own schema [${backend.name}]`, () => {
    it('a settings table from the previous version is older, not missing: migrate adds only the new columns', async () => {
      const demo = await openDemoDatabase(backend);
      const scoped = await hostSchema(demo, 'host_prefs');
      try {
        const previous = new Migrator({
          db: scoped.db,
          migrationTableSchema: 'host_prefs',
          provider: { getMigrations: async () => ({ '0002_agent_settings': migrations['0002_agent_settings']! }) },
          migrationTableName: MIGRATION_TABLE,
          migrationLockTableName: MIGRATION_LOCK_TABLE,
        });
        assert.equal((await previous.migrateToLatest()).error, undefined);
        const state = await schemaState(scoped.db);
        assert.equal(state.owner, 'host');
        assert.deepEqual(state.pending, ['0005_ai_preferences', '0006_settings_document', '0007_agent_traffic', '0008_visibility_log', '0010_content_version', '0013_agent_policy']);
        await assert.rejects(
          assertContentSchema(scoped.db, 'kysely'),
          /the content relations are the host's own, and the plugin's own tables are older than this version of the package .*migrations not applied: 0005_ai_preferences, 0006_settings_document, 0007_agent_traffic, 0008_visibility_log, 0010_content_version, 0013_agent_policy\./,
        );
        const applied = await migrateToLatest(scoped.db);
        assert.deepEqual(applied.results?.map((r) => `${r.migrationName}:${r.status}`), ['0005_ai_preferences:Success', '0006_settings_document:Success', '0007_agent_traffic:Success', '0008_visibility_log:Success', '0010_content_version:Success', '0013_agent_policy:Success']);
        assert.deepEqual((await schemaState(scoped.db)).pending, []);
        const { rows } = await sql<{ column_name: string }>`
          SELECT column_name FROM information_schema.columns WHERE table_schema = 'host_prefs' AND table_name = 'agent_discovery_settings' ORDER BY 1`.execute(scoped.db);
        assert.deepEqual(rows.map((r) => r.column_name), ['id', 'modified', 'settings', 'version']);
        await assertContentSchema(scoped.db, 'kysely');
      } finally {
        await scoped.close();
        await demo.close();
      }
    });

    it('a settings table there without its record (a moved record) is not created again; its new columns are added', async () => {
      const demo = await openDemoDatabase(backend);
      const scoped = await hostSchema(demo, 'host_moved');
      try {
        await sql`CREATE TABLE host_moved.agent_discovery_settings (id boolean PRIMARY KEY DEFAULT true CHECK (id), description text, noindex boolean, sitemap_url text, llms_notes text, modified timestamptz NOT NULL DEFAULT now())`.execute(scoped.db);
        assert.deepEqual((await schemaState(scoped.db)).pending, ['0005_ai_preferences', '0006_settings_document', '0007_agent_traffic', '0008_visibility_log', '0010_content_version', '0013_agent_policy']);
        const applied = await migrateToLatest(scoped.db);
        assert.deepEqual(applied.results?.map((r) => `${r.migrationName}:${r.status}`), ['0005_ai_preferences:Success', '0006_settings_document:Success', '0007_agent_traffic:Success', '0008_visibility_log:Success', '0010_content_version:Success', '0013_agent_policy:Success']);
        assert.deepEqual((await schemaState(scoped.db)).pending, []);
      } finally {
        await scoped.close();
        await demo.close();
      }
    });
  });
}

/**
 * Views of the demo tables in `schema` (a host's own content relations), and a handle whose
 * statements see only that schema (a pool of its own on PostgreSQL; PGlite's one connection is
 * switched and switched back).
 */
async function hostSchema(demo: DemoDatabase, schema: string): Promise<{ db: Kysely<Database>; close(): Promise<void> }> {
  const s = sql.id(schema);
  await sql`CREATE SCHEMA ${s}`.execute(demo.db);
  for (const table of ['rsc', 'category', 'predicate_category', 'edge', 'medium']) {
    await sql`CREATE VIEW ${s}.${sql.id(table)} AS SELECT * FROM public.${sql.id(table)}`.execute(demo.db);
  }
  if (demo.url) {
    const url = new URL(demo.url);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const content = await openDatabase({ url: url.toString() });
    return { db: content.db, close: () => content.close() };
  }
  await sql`SELECT set_config('search_path', ${schema}, false)`.execute(demo.db);
  return { db: demo.db, close: async () => void (await sql`SELECT set_config('search_path', 'public', false)`.execute(demo.db)) };
}
