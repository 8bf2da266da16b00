import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { createRequire } from 'node:module';
import type express from 'express';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { createAgentDiscovery } from '../src/index.js';
import { DEMO } from '../example-site/seed.js';

/** Express 4 (installed as `express4`; it ships no types). */
const express4 = createRequire(import.meta.url)('express4') as () => express.Express;

// Most CMSs in use run Express 4: the plugin's router (built with Express 5) mounted in an Express 4 app.
describe(`the facade in an Express 4 host [${surfaceBackends[0]!.name}]`, () => {
  let demo: DemoDatabase;
  let app: express.Express;
  before(async () => {
    demo = await openDemoDatabase(surfaceBackends[0]!);
    const agent = await createAgentDiscovery({ siteTitle: 'Express 4 host', languages: ['en', 'nl'], baseUrl: 'https://four.example', database: { kysely: demo.db } });
    app = express4();
    app.set('query parser', 'extended');
    app.use(agent.linkHeaders);
    app.use(agent.router);
    app.get('/', (_req, res) => res.type('html').send('<!doctype html><title>home</title>'));
  });
  after(() => demo.close());

  it('serves search, resource, schema, related and Markdown with the same semantics', async () => {
    const search = await request(app).get('/api/agent/search?pagelen=2&sort=newest');
    assert.equal(search.status, 200);
    assert.equal(search.body.result.items.length, 2);
    assert.match(search.body.result.next_url, /^https:\/\/four\.example\/api\/agent\/search\?/);
    const next = new URL(search.body.result.next_url);
    assert.equal((await request(app).get(next.pathname + next.search)).status, 200);
    // The host's extended query parser does not change strictness: arrays and objects are still rejected.
    const bracket = await request(app).get('/api/agent/search?page[x]=1');
    assert.equal(bracket.status, 400);
    assert.match(bracket.body.message, /parameter "page\[x\]": unknown parameter/);
    const read = await request(app).get(`/api/agent/resource/${DEMO.welcome}?language=nl`);
    assert.equal(read.body.result.language, 'nl');
    const cond = await request(app).get(`/api/agent/resource/${DEMO.welcome}?language=nl`).set('If-None-Match', String(read.headers.etag));
    assert.equal(cond.status, 304);
    const head = await request(app).head(`/agent/resource/${DEMO.welcome}/markdown`);
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-type'], 'text/markdown; charset=utf-8');
    assert.equal((await request(app).get(`/api/agent/related/${DEMO.popularKeyword}?direction=in`)).status, 200);
    assert.equal((await request(app).get('/api/agent/schema?kind=predicate')).status, 200);
    assert.equal((await request(app).post('/api/agent/search')).headers.allow, 'GET, HEAD');
    assert.equal((await request(app).get(`/api/agent/resource/${DEMO.private}`)).status, 404);
    const home = await request(app).head('/');
    assert.match(String(home.headers.link), /rel="api-catalog"/);
  });
});
