import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import express, { type Express } from 'express';
import { sql } from 'kysely';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { insertResource } from '../example-site/content-store.js';
import { DEMO } from '../example-site/seed.js';

for (const backend of surfaceBackends) {
  describe(`facade edge cases [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let app: Express;
    before(async () => {
      demo = await openDemoDatabase(backend);
      ({ app } = await pluginApp(demo.db));
      app.use((_req, res) => res.status(404).type('text').send('host 404'));
    });
    after(() => demo.close());

    it('a public resource in a private category never names the category', async () => {
      const id = await insertResource(demo.db, {
        name: 'public_in_hidden',
        category: 'internal_notes',
        title: { en: 'Quayside logbook' },
        summary: { en: 'A public page filed under a private category.' },
        body: { en: '<p>Logbook.</p>' },
      });
      const search = await request(app).get('/api/agent/search?text=logbook');
      const item = search.body.result.items.find((i: { id: number }) => i.id === id);
      assert.ok(item, 'the public resource is found');
      assert.equal(item.category, null);
      const read = await request(app).get('/api/agent/resource/public_in_hidden');
      assert.equal(read.status, 200);
      assert.equal(read.body.result.category, null);
      for (const res of [search, read, await request(app).get('/agent/resource/public_in_hidden/markdown')]) {
        assert.ok(!/internal_notes|Internal notes/.test(res.text), res.text);
      }
    });

    it('a malformed percent-escape in a path is a 400 envelope; a host callback\'s URIError is a 500 internal_error envelope', async () => {
      for (const path of ['/api/agent/resource/%zz', '/agent/resource/%zz/markdown', '/api/agent/related/%zz', '/api/model/edge/get/o/welcome/%zz']) {
        const res = await request(app).get(path);
        assert.equal(res.status, 400, path);
        assert.equal(res.body.error, 'bad_request');
        assert.match(res.body.message, /^parameter "path": /);
        assert.equal(res.headers['cache-control'], 'no-store');
      }
      const reported: unknown[] = [];
      const { app: host } = await pluginApp(demo.db, {
        pageUrl: () => {
          throw new URIError('host bug');
        },
        onError: (error) => { reported.push(error); },
      });
      host.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        res.status(500).type('text').send(`host handled: ${error.message}`);
      });
      const res = await request(host).get('/api/agent/search?pagelen=1');
      assert.equal(res.status, 500);
      assert.equal(res.body.error, 'internal_error');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.ok(reported[0] instanceof URIError);
    });

    it('a paged read with a next page keeps a stable strong ETag and answers 304', async () => {
      // A fixed public base: supertest listens on a new port per request, which would change every URL.
      const { app } = await pluginApp(demo.db, { baseUrl: 'https://harbour.example' });
      const relatedId = await demo.id(DEMO.popularKeyword);
      for (const url of ['/api/agent/search?pagelen=2&sort=newest', '/api/agent/schema?pagelen=1', `/api/agent/related/${relatedId}?direction=in&pagelen=3`]) {
        const a = await request(app).get(url);
        const b = await request(app).get(url);
        assert.equal(a.body.result.next, true, url);
        assert.equal(a.headers.etag, b.headers.etag, url);
        assert.equal(a.body.result.next_url, b.body.result.next_url, url);
        const cond = await request(app).get(url).set('If-None-Match', String(a.headers.etag));
        assert.equal(cond.status, 304, url);
        const head = await request(app).head(url);
        assert.equal(head.headers.etag, a.headers.etag, url);
        // The page the cursor opens is stable too.
        const next = new URL(a.body.result.next_url);
        const n1 = await request(app).get(next.pathname + next.search);
        const n2 = await request(app).get(next.pathname + next.search).set('If-None-Match', String(n1.headers.etag));
        assert.equal(n2.status, 304, `${url} page 2`);
      }
    });

    it('walks through resources dated far in the past or future (positions stay safe integers)', async () => {
      const old = await insertResource(demo.db, { category: 'article', title: { en: 'Charter of 1500' }, publicationStart: '1500-01-01T00:00:00.123456Z', modified: '2400-06-01T12:00:00.654321Z' });
      const also = await insertResource(demo.db, { category: 'article', title: { en: 'Charter of 1501' }, publicationStart: '1501-01-01T00:00:00Z', modified: '2399-06-01T12:00:00Z' });
      for (const sort of ['oldest', 'modified', 'newest']) {
        const seen: number[] = [];
        let url: string | null = `/api/agent/search?sort=${sort}&pagelen=1&text=charter`;
        while (url) {
          const res = await request(app).get(url);
          assert.equal(res.status, 200, `${sort}: ${res.text}`);
          seen.push(...res.body.result.items.map((i: { id: number }) => i.id));
          url = res.body.result.next_url ? new URL(res.body.result.next_url).pathname + new URL(res.body.result.next_url).search : null;
        }
        const expected = sort === 'newest' ? [also, old] : [old, also];
        assert.deepEqual(seen, expected, sort);
      }
    });

    it('only the published paths answer: trailing-slash variants fall through to the host, except under /api/agent/', async () => {
      for (const path of ['/llms.txt/', '/.well-known/api-catalog/', '/openapi.json/']) {
        const res = await request(app).get(path);
        assert.equal(res.status, 404, path);
        assert.equal(res.text, 'host 404');
      }
      const api = await request(app).get('/api/agent/search/');
      assert.equal(api.status, 404);
      assert.equal(api.body.error, 'not_found', 'the API answers its own unknown paths with the JSON envelope');
    });

    it('Accept with media-type parameters still negotiates /id/{id}', async () => {
      const id = await demo.id(DEMO.welcome);
      const md = await request(app).get(`/id/${id}`).set('Accept', 'text/markdown; charset=utf-8');
      assert.equal(md.status, 303);
      assert.match(String(md.headers.location), new RegExp(`/agent/resource/${id}/markdown$`));
      const json = await request(app).get(`/id/${id}`).set('Accept', 'application/json;charset=utf-8;q=0.9, text/html;q=0.5');
      assert.equal(json.status, 303);
      assert.match(String(json.headers.location), new RegExp(`/api/agent/resource/${id}$`));
      const fetchkit = await request(app).get(`/id/${id}`).set('Accept', 'text/html, text/markdown, text/plain, */*;q=0.8');
      assert.equal(fetchkit.status, 404, 'HTML first: the host answers');
    });

    it('a noindex predicate is hidden from the related read like a private one', async () => {
      const before = await request(app).get(`/api/agent/related/${DEMO.welcome}?predicate=author`);
      assert.equal(before.status, 200);
      assert.ok(before.body.result.items.length > 0);
      await sql`UPDATE rsc SET seo_noindex = true WHERE name = 'author'`.execute(demo.db);
      try {
        const res = await request(app).get(`/api/agent/related/${DEMO.welcome}?predicate=author`);
        assert.equal(res.status, 404);
        const all = await request(app).get(`/api/agent/related/${DEMO.welcome}?pagelen=100`);
        assert.ok(!all.body.result.items.some((i: { predicate: { name: string } }) => i.predicate.name === 'author'));
      } finally {
        await sql`UPDATE rsc SET seo_noindex = false WHERE name = 'author'`.execute(demo.db);
      }
    });

    it('cat= follows the schema read: a noindex category is unknown', async () => {
      const res = await request(app).get(`/api/agent/search?cat=${DEMO.noindexCategory}`);
      assert.equal(res.status, 400);
      assert.match(res.body.message, /parameter "cat": unknown category/);
    });
  });
}

void express;
