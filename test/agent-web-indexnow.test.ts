import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import { sql } from '../src/index.js';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { listen, type Listening } from './support/mcp-client.js';
import { idOf } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';

// SPEC §20, issue 34 item 3: with `indexNow`, the key file is served and the page URLs of changed
// public, indexable resources are submitted in batches to the configured endpoint, off the request
// path, from the change feed; a local server speaking the IndexNow protocol receives them. An endpoint
// that fails is retried with backoff, one that refuses is reported and not retried, a slow one never
// delays a response.

const KEY = 'c0ffee00c0ffee00c0ffee00';
const PUBLIC = 'https://harbour.example';

interface Submission {
  contentType: string | undefined;
  body: { host: string; key: string; keyLocation: string; urlList: string[] };
}

/** A local IndexNow endpoint: records every POST and answers as `mode` says. */
async function indexNowServer() {
  const received: Submission[] = [];
  const state: { mode: 'ok' | 'fail' | 'reject' | 'hang'; failures: number } = { mode: 'ok', failures: 0 };
  const hanging: express.Response[] = [];
  const app = express();
  app.post('/indexnow', express.json(), (req, res) => {
    received.push({ contentType: req.get('content-type'), body: req.body as Submission['body'] });
    if (state.mode === 'hang') return void hanging.push(res);
    if (state.mode === 'reject') return void res.status(422).end();
    if (state.mode === 'fail' && state.failures > 0) {
      state.failures--;
      return void res.status(503).end();
    }
    res.status(202).end();
  });
  const web = await listen(app);
  return { web, received, state, release: () => hanging.splice(0).forEach((r) => r.status(200).end()) };
}

const until = async (what: string, holds: () => boolean, ms = 8000) => {
  const end = Date.now() + ms;
  while (!holds()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

for (const backend of surfaceBackends) {
  describe(`IndexNow submissions [${backend.name}]`, () => {
    let endpoint: Awaited<ReturnType<typeof indexNowServer>>;
    let site: RunningSite;
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => {
      if (w.code === 'EAD_INDEXNOW') warnings.push(w.message);
    };
    const submitted = (url: string) => endpoint.received.filter((s) => s.body.urlList.includes(url));
    const touch = (id: number) => sql`UPDATE rsc SET modified = now() WHERE id = ${id}`.execute(site.content.db);
    before(async () => {
      process.on('warning', onWarning);
      endpoint = await indexNowServer();
      site = await startExampleSite(backend, { baseUrl: PUBLIC, plugin: { indexNow: { key: KEY, endpoint: `${endpoint.web.origin}/indexnow`, intervalMs: 150 } } });
    });
    after(async () => {
      process.off('warning', onWarning);
      endpoint?.release();
      await site?.close();
      await endpoint?.web.close();
    });

    it('serves the key file', async () => {
      const res = await fetch(`${site.origin}/${KEY}.txt`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.equal(await res.text(), KEY);
      assert.equal((await fetch(`${site.origin}/${KEY.replace('c', 'd')}.txt`, { headers: { accept: 'text/html' } })).status, 404);
    });

    it('an edited page is submitted in each of its languages, as the protocol asks; hidden and noindex ones never', async () => {
      const welcome = await idOf(site.content.db, DEMO.welcome);
      const hidden = [await idOf(site.content.db, DEMO.private), await idOf(site.content.db, DEMO.noindex)];
      for (const id of [welcome, ...hidden]) await touch(id);
      await until('the page in both languages', () => submitted(`${PUBLIC}/en/page/${welcome}`).length > 0 && submitted(`${PUBLIC}/nl/page/${welcome}`).length > 0);
      const [submission] = submitted(`${PUBLIC}/en/page/${welcome}`);
      assert.match(submission!.contentType ?? '', /^application\/json; charset=utf-8/);
      assert.equal(submission!.body.host, 'harbour.example');
      assert.equal(submission!.body.key, KEY);
      assert.equal(submission!.body.keyLocation, `${PUBLIC}/${KEY}.txt`);
      await new Promise((r) => setTimeout(r, 500));
      const all = endpoint.received.flatMap((s) => s.body.urlList);
      for (const id of hidden) assert.ok(!all.some((u) => new RegExp(`/page/${id}$`).test(u)), `${id} is not submitted`);
      assert.equal(submitted(`${PUBLIC}/en/page/${welcome}`).length, 1, 'submitted once');
    });

    it('an endpoint that fails (503) is retried with backoff until it takes the batch', async () => {
      const about = await idOf(site.content.db, DEMO.about);
      endpoint.state.mode = 'fail';
      endpoint.state.failures = 2;
      await touch(about);
      await until('the retried submission', () => submitted(`${PUBLIC}/en/page/${about}`).length >= 3, 10_000);
      assert.ok(warnings.some((w) => /answered 503 .*retrying/.test(w)), warnings.join('\n'));
      endpoint.state.mode = 'ok';
    });

    it('an endpoint that refuses (422) is reported and not retried; a slow one never delays a response', async () => {
      const photo = await idOf(site.content.db, DEMO.image);
      endpoint.state.mode = 'reject';
      await touch(photo);
      await until('the refused submission', () => submitted(`${PUBLIC}/en/page/${photo}`).length === 1);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(submitted(`${PUBLIC}/en/page/${photo}`).length, 1, 'not retried');
      await until("the refusal reported", () => warnings.some((w) => /refused \d+ URLs with 422.*not retried/.test(w)), 3000);

      endpoint.state.mode = 'hang';
      const welcome = await idOf(site.content.db, DEMO.welcome);
      await touch(welcome);
      await until('a submission in flight', () => submitted(`${PUBLIC}/en/page/${welcome}`).length === 2);
      const started = Date.now();
      const res = await fetch(`${site.origin}/api/agent/search?text=harbour`);
      assert.equal(res.status, 200);
      assert.ok(Date.now() - started < 2000, `the search took ${Date.now() - started} ms`);
      endpoint.state.mode = 'ok';
      endpoint.release();
    });

    it('the option needs the public base URL, and a key of the protocol\'s form', async () => {
      const { createAgentDiscovery } = await import('../src/index.js');
      await assert.rejects(
        createAgentDiscovery({ siteTitle: 'x', database: { kysely: site.content.db }, indexNow: { key: KEY } }),
        /option "indexNow": needs the baseUrl option/,
      );
      await assert.rejects(createAgentDiscovery({ siteTitle: 'x', database: { kysely: site.content.db }, baseUrl: PUBLIC, indexNow: { key: 'short' } }), /option "indexNow.key": expected 8 to 128/);
    });
  });
}
