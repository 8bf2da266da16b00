import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { Express } from 'express';
import { assembleLlmsFull, CLOSING_HEADING, type LlmsFullEntry } from '../src/discovery/llms-full.js';
import { llmsFullBuilds } from '../src/discovery/llms-full-route.js';
import { OneBuildAtATime } from '../src/discovery/one-build-at-a-time.js';
import { resolveOptions } from '../src/options.js';
import { DEMO } from '../example-site/seed.js';
import { createExampleSite } from '../example-site/app.js';
import { surfaceBackends } from './support/backends.js';
import { DEMO_PLUGIN_OPTIONS, openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';

const BASE = 'https://harbour.example';
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const frame = (maxBytes: number) => ({ siteTitle: 'Harbour', summary: 'About harbours.', maxBytes, searchUrl: `${BASE}/api/agent/search?sort=newest`, llmsTxtUrl: `${BASE}/llms.txt` });
/** A source of these entries, whatever room is left. */
const each = (entries: readonly LlmsFullEntry[]) =>
  async function* () {
    yield* entries;
  };
/** The closing note's count and whether it says the rest were cut; fails when the body does not end with it. */
function closing(body: string): { included: number; cut: boolean } {
  const m = new RegExp(`\\n${CLOSING_HEADING}\\n\\n(\\d+) resources? included[^\\n]*Continue with the search, newest first: ${BASE}/api/agent/search\\?sort=newest [^\\n]*${BASE}/llms\\.txt\\.\\n$`).exec(body);
  assert.ok(m, body.slice(-400));
  return { included: Number(m[1]), cut: /the rest were cut/.test(body.slice(body.lastIndexOf(CLOSING_HEADING))) };
}

describe('assembleLlmsFull', () => {
  it('never exceeds the budget and always ends with the closing note (random sizes and counts)', async () => {
    const text = fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 3000 }), fc.nat(60_000).map((n) => '港'.repeat(n)));
    const entry = fc.record({ title: fc.string({ unit: 'grapheme', maxLength: 700 }), url: fc.constant(`${BASE}/agent/resource/1/markdown?language=en`), markdown: text });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 16 * 1024, max: 200 * 1024 }), fc.array(entry, { maxLength: 60 }), async (maxBytes, entries) => {
        const body = await assembleLlmsFull(frame(maxBytes), each(entries));
        assert.ok(bytes(body) <= maxBytes, `${bytes(body)} > ${maxBytes}`);
        const { included, cut } = closing(body);
        assert.ok(included <= entries.length);
        assert.equal(cut, included < entries.length || /cut short/.test(body.slice(body.lastIndexOf(CLOSING_HEADING))));
        assert.ok(body.startsWith('# Harbour\n\n> About harbours.\n\n'));
      }),
      { numRuns: 150 },
    );
  });
  it('cuts at a whole resource; a first resource too big for the budget is cut at a character boundary with a marker', async () => {
    const small = { title: 'Small', url: `${BASE}/a`, markdown: 'x'.repeat(1000) };
    const big = { title: 'Big', url: `${BASE}/b`, markdown: '港'.repeat(20_000) };
    const cutWhole = await assembleLlmsFull(frame(16 * 1024), each([small, big, small]));
    assert.deepEqual(closing(cutWhole), { included: 1, cut: true });
    assert.ok(!cutWhole.includes('## Big'));
    const cutFirst = await assembleLlmsFull(frame(16 * 1024), each([big, small]));
    assert.deepEqual(closing(cutFirst), { included: 1, cut: true });
    assert.match(cutFirst, /港\n\n\[… cut here: the whole resource is at https:\/\/harbour\.example\/b\]\n/);
    assert.ok(!cutFirst.includes('\uFFFD'));
    const all = await assembleLlmsFull(frame(16 * 1024), each([small]));
    assert.deepEqual(closing(all), { included: 1, cut: false });
    assert.match(all, /nothing was cut/);
  });
});

describe('OneBuildAtATime', () => {
  it('shares the running build, queues one other, refuses a third, and never runs two at once', async () => {
    const builds = new OneBuildAtATime<string>();
    let running = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const build = (v: string) => async () => {
      running++;
      assert.equal(running, 1, 'one build at a time');
      await held;
      running--;
      return v;
    };
    const a = builds.run('a', build('A'));
    const a2 = builds.run('a', build('never'));
    const b = builds.run('b', build('B'));
    const b2 = builds.run('b', build('never'));
    assert.equal(builds.run('c', build('never')), undefined);
    release();
    assert.deepEqual(await Promise.all([a, a2, b, b2]), ['A', 'A', 'B', 'B']);
    assert.deepEqual(builds.counts, { started: 2, shared: 2, refused: 1 });
    assert.equal(await builds.run('c', build('C')), 'C', 'free again once settled');
  });
  it('a failed build fails every request sharing it and starts the queued one', async () => {
    const builds = new OneBuildAtATime<string>();
    const failing = builds.run('a', async () => Promise.reject(new Error('boom')));
    const shared = builds.run('a', async () => 'never');
    const next = builds.run('b', async () => 'B');
    await assert.rejects(failing!, /boom/);
    await assert.rejects(shared!, /boom/);
    assert.equal(await next, 'B');
  });
});

describe('llmsFull option', () => {
  const base = { ...DEMO_PLUGIN_OPTIONS, database: { memory: true as const } };
  it('off by default; true takes 256 KiB; maxBytes from 16 KiB to 5 MiB', () => {
    assert.equal(resolveOptions(base).llmsFull, false);
    assert.deepEqual(resolveOptions({ ...base, llmsFull: true }).llmsFull, { maxBytes: 256 * 1024 });
    assert.deepEqual(resolveOptions({ ...base, llmsFull: { maxBytes: 16 * 1024 } }).llmsFull, { maxBytes: 16 * 1024 });
    for (const bad of [{ maxBytes: 16 * 1024 - 1 }, { maxBytes: 5 * 1024 * 1024 + 1 }, { maxBytes: 1.5e5 + 0.5 }, { other: 1 }, 'yes']) {
      assert.throws(() => resolveOptions({ ...base, llmsFull: bad as never }), /^TypeError: express-agent-discovery: invalid options: option "llmsFull/);
    }
  });
});

for (const backend of surfaceBackends) {
  describe(`/llms-full.txt [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let app: Express;
    before(async () => {
      demo = await openDemoDatabase(backend);
      // Make every hidden resource the newest there is: none may appear.
      const hidden = [DEMO.private, DEMO.unpublished, DEMO.expired, DEMO.noindex, DEMO.pressRelease];
      await sql`UPDATE rsc SET publication_start = now() - interval '1 minute' WHERE name IN (${sql.join(hidden)})`.execute(demo.db);
      ({ app } = await pluginApp(demo.db, { baseUrl: BASE, llmsFull: true, budgetMs: 60_000 }));
    });
    after(() => demo.close());

    it('off: 404 (the host answers)', async () => {
      const { app: off } = await pluginApp(demo.db, { baseUrl: BASE });
      assert.equal((await request(off).get('/llms-full.txt')).status, 404);
    });

    it('the newest public, indexable resources as the Markdown read serves them, then the closing note; nothing private or noindex', async () => {
      const res = await request(app).get('/llms-full.txt').expect(200);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.ok(res.text.startsWith('# Example Site\n\n> Articles about harbours and open data.\n'));
      const { included, cut } = closing(res.text);
      const urls = [...res.text.matchAll(/^URL: (\S+)$/gm)].map((m) => m[1]!);
      assert.equal(urls.length, included);
      assert.equal(cut, false, 'the demo fits in 256 KiB');
      const search = (await request(app).get('/api/agent/search?sort=newest&pagelen=50').expect(200)).body.result.items as { id: number; language: string }[];
      assert.ok(urls.length >= search.length && search.length > 10);
      assert.deepEqual(urls.slice(0, search.length), search.map((s) => `${BASE}/agent/resource/${s.id}/markdown?language=${s.language}`));
      for (const url of urls.slice(0, 3)) {
        const md = await request(app).get(url.slice(BASE.length)).expect(200);
        assert.ok(res.text.includes(`URL: ${url}\n\n${md.text.trimEnd()}\n`), url);
      }
      for (const name of [DEMO.private, DEMO.unpublished, DEMO.expired, DEMO.noindex, DEMO.pressRelease]) {
        const id = await demo.id(name);
        assert.ok(!urls.some((u) => u.startsWith(`${BASE}/agent/resource/${id}/`)), name);
      }
      assert.doesNotMatch(res.text, /SECRET/);
    });

    it('GET and HEAD with a strong ETag and 304; the smallest budget holds', async () => {
      const res = await request(app).get('/llms-full.txt').expect(200);
      await request(app).get('/llms-full.txt').set('If-None-Match', res.headers.etag!).set('Cache-Control', 'no-cache').expect(304);
      assert.equal((await request(app).head('/llms-full.txt').expect(200)).headers.etag, res.headers.etag);
      assert.equal((await request(app).post('/llms-full.txt')).status, 405);
      const { app: small } = await pluginApp(demo.db, { baseUrl: BASE, llmsFull: { maxBytes: 16 * 1024 }, budgetMs: 60_000 });
      const cut = await request(small).get('/llms-full.txt').expect(200);
      assert.ok(bytes(cut.text) <= 16 * 1024);
      assert.equal(closing(cut.text).cut, true);
    });

    it('on in the example site, within the default time budget', async () => {
      const site = await createExampleSite({ database: { kysely: demo.db }, seed: false, baseUrl: BASE });
      try {
        const res = await request(site.app).get('/llms-full.txt').expect(200);
        assert.ok(res.text.startsWith('# Harbour Example\n'));
        assert.ok(closing(res.text).included > 10);
      } finally {
        await site.close();
      }
    });

    it('20 concurrent requests share one build', async () => {
      let hold: Promise<void> | undefined;
      let release!: () => void;
      let waiting = 0;
      const held = demo.db.withPlugin({
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          if (hold) {
            waiting++;
            await hold;
          }
          return args.result;
        },
      });
      const { app: one } = await pluginApp(held, { baseUrl: BASE, llmsFull: true, budgetMs: 60_000 });
      hold = new Promise((r) => (release = r));
      const before = { ...llmsFullBuilds.counts };
      const server = one.listen(0);
      try {
        const { port } = server.address() as { port: number };
        const answers = Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${port}/llms-full.txt`).then(async (r) => ({ status: r.status, text: await r.text() })));
        // Every request's first statement (the settings and content version) is held until all 20 have run it.
        while (waiting < 20) await sleep(10);
        release();
        const done = await Promise.all(answers);
        assert.deepEqual(done.map((d) => d.status), Array(20).fill(200));
        assert.equal(new Set(done.map((d) => d.text)).size, 1);
        // One build: the first request starts it, the other 19 find it in flight in the cache.
        assert.equal(llmsFullBuilds.counts.started - before.started, 1, 'one build');
        closing(done[0]!.text);
      } finally {
        server.close();
      }
    });
  });
}
