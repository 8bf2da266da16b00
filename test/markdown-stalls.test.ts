import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import { sql } from 'kysely';
import { createAgentDiscovery, type AgentDiscovery } from '../src/index.js';
import { DEMO } from '../example-site/seed.js';
import { backends, type Backend, type TestDatabase } from './support/backends.js';
import { DEMO_PLUGIN_OPTIONS, idOf } from './support/demo.js';
import { listen } from './support/mcp-client.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

/**
 * True answers while the database stalls (issue: a `.md` twin said "Nothing public is at this address"
 * when the backends were stopped): the database stops answering (PostgreSQL: every byte held behind a
 * TCP proxy, as with stopped backends; PGlite: its one connection held by a transaction), and every
 * surface that reads it answers 503 or 504 with `Retry-After`; a `.md` twin answers that in Markdown,
 * never the 404; Markdown negotiated on a page URL or `/` falls back to the host's page, says so in
 * `X-Markdown-Fallback` and reports it through `onError`. Once the database answers, all is 200 again.
 */

const BUDGET_MS = 1000;
const MARKDOWN_ONLY = { accept: 'text/markdown' };

/** A database that can be made to stop answering, and the plugin options that reach it. */
interface Stallable {
  database: { url: string; poolSize: number } | { kysely: TestDatabase['db'] };
  stall(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

async function stallable(backend: Backend): Promise<Stallable> {
  const content = await backend.openSeeded();
  if (backend.name === 'pglite') {
    let release = () => {};
    let holding: Promise<void> = Promise.resolve();
    return {
      database: { kysely: content.db },
      async stall() {
        let held!: () => void;
        const started = new Promise<void>((resolve) => (held = resolve));
        const released = new Promise<void>((resolve) => (release = resolve));
        holding = content.db.transaction().execute(async (trx) => {
          await sql`SELECT 1`.execute(trx);
          held();
          await released;
        });
        await started;
      },
      async resume() {
        release();
        await holding;
      },
      close: () => content.close(),
    };
  }
  const target = new URL(content.url!);
  const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const via = new URL(content.url!);
  via.hostname = '127.0.0.1';
  via.port = String(proxy.port);
  return {
    database: { url: via.toString(), poolSize: 4 },
    stall: async () => proxy.pause(),
    resume: async () => proxy.resume(),
    async close() {
      await proxy.close();
      await content.close();
    },
  };
}

/** The surfaces that read the database, each with how its failure is answered. */
function surfaces(id: number, hidden: number) {
  return {
    envelope: [
      '/api/agent/search?text=harbour',
      `/api/agent/resource/${id}`,
      `/agent/resource/${id}/markdown`,
      `/api/agent/related/${id}`,
      `/api/model/edge/get/o/${id}/author`,
      '/api/agent/changes',
    ],
    documents: ['/llms.txt', '/llms-full.txt', '/sitemap.xml'],
    twins: [`/en/page/${id}.md`, `/nl/page/${id}.md`, `/en/page/${hidden}.md`, '/index.md'],
    negotiated: [`/en/page/${id}`, '/'],
  };
}

for (const backend of backends) {
  describe(`answers while the database stalls [${backend.name}]`, () => {
    let db: Stallable;
    let agent: AgentDiscovery;
    let origin: string;
    let closeWeb: () => Promise<void>;
    let id: number;
    let hidden: number;
    const reported: unknown[] = [];
    before(async () => {
      db = await stallable(backend);
      agent = await createAgentDiscovery({
        ...DEMO_PLUGIN_OPTIONS,
        database: db.database,
        markdownTwins: true,
        sitemap: true,
        llmsFull: true,
        budgetMs: BUDGET_MS,
        onError: (error) => reported.push(error),
      });
      const app = express();
      app.use(agent.linkHeaders);
      app.use(agent.router);
      // The host's pages read nothing of the database: what they answer is the plugin's doing.
      app.get('/', (_req, res) => void res.type('html').send('<h1>Home</h1>'));
      app.get('/:lang/page/:id', agent.resourceLinks({ id: 'id', language: 'lang' }), (_req, res) => void res.type('html').send('<p>host page</p>'));
      // A host page that fails on its own: on its `.md` twin the failure stays a failure.
      app.get('/busy', (_req, res) => void res.status(503).set('Retry-After', '7').type('html').send('<p>busy</p>'));
      app.get('/broken', (_req, res) => void res.status(500).type('html').send('<pre>stack</pre>'));
      app.use(agent.markdownNotFound);
      app.use((_req, res) => void res.status(404).type('html').send('<h1>Not found</h1>'));
      const web = await listen(app);
      origin = web.origin;
      closeWeb = web.close;
      const seeded = backend.name === 'pglite' ? (db.database as { kysely: TestDatabase['db'] }).kysely : agent.database.db;
      id = await idOf(seeded, DEMO.welcome);
      hidden = await idOf(seeded, DEMO.private);
    });
    after(async () => {
      await closeWeb?.();
      await agent?.close();
      await db?.close();
    });

    const get = (path: string, headers: Record<string, string> = {}) => fetch(origin + path, { headers });

    it('before the stall: the twins and the negotiated page are Markdown, with no fallback header', async () => {
      const twin = await get(`/en/page/${id}.md`);
      assert.equal(twin.status, 200);
      assert.equal(twin.headers.get('content-type'), 'text/markdown; charset=utf-8');
      const page = await get(`/en/page/${id}`, MARKDOWN_ONLY);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('x-markdown-fallback'), null);
      assert.equal((await get(`/en/page/${hidden}.md`)).status, 404, 'a hidden page is the Markdown 404 while the database answers');
    });

    it("a host's own 5xx on a .md twin is that failure in Markdown (its Retry-After kept), not the 404", async () => {
      const busy = await get('/busy.md');
      assert.equal(busy.status, 503);
      assert.equal(busy.headers.get('content-type'), 'text/markdown; charset=utf-8');
      assert.equal(busy.headers.get('retry-after'), '7');
      assert.match(await busy.text(), /^# Service Unavailable\n/);
      const broken = await get('/broken.md');
      assert.equal(broken.status, 500);
      assert.equal(broken.headers.get('retry-after'), null);
      assert.doesNotMatch(await broken.text(), /stack|Not found/);
    });

    it('while it stalls: 503 or 504 with Retry-After everywhere, the Markdown error on a twin, the host page with X-Markdown-Fallback on a negotiated page', async () => {
      const s = surfaces(id, hidden);
      reported.length = 0;
      await db.stall();
      let answers: Array<{ path: string; res: Response; text: string }>;
      try {
        const all = [
          ...[...s.envelope, ...s.documents, ...s.twins].map((path) => ({ path, headers: {} })),
          ...s.negotiated.map((path) => ({ path, headers: MARKDOWN_ONLY })),
        ];
        answers = await Promise.all(all.map(async ({ path, headers }) => {
          const res = await get(path, headers);
          return { path, res, text: await res.text() };
        }));
      } finally {
        await db.resume();
      }
      for (const { path, res, text } of answers) {
        if (s.negotiated.includes(path)) {
          assert.equal(res.status, 200, `${path}: the host's page`);
          assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
          assert.match(text, /host page|Home/, path);
          assert.match(res.headers.get('x-markdown-fallback') ?? '', /^(timeout|unavailable)$/, `${path}: says why the Markdown is missing`);
          assert.match(res.headers.get('vary') ?? '', /Accept/, path);
          continue;
        }
        assert.ok(res.status === 503 || res.status === 504, `${path}: ${res.status} ${text.slice(0, 200)}`);
        assert.ok(Number(res.headers.get('retry-after')) > 0, `${path}: Retry-After`);
        assert.equal(res.headers.get('cache-control'), 'no-store', path);
        if (s.twins.includes(path)) {
          assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8', path);
          assert.match(text, /^# (Service Unavailable|Gateway Timeout)\n/, path);
          assert.doesNotMatch(text, /Not found|Nothing public/, `${path}: never told the page is gone`);
        } else if (s.envelope.includes(path)) {
          assert.match(JSON.parse(text).error, /^(timeout|unavailable)$/, path);
        }
      }
      const fallbacks = reported.filter((e) => (e as Error).name === 'MarkdownFallbackError');
      assert.equal(fallbacks.length, s.negotiated.length, 'each fallback reported once through onError');
      for (const e of fallbacks) assert.match((e as Error).message, /fell back to the host's HTML/);
      assert.equal(reported.length, fallbacks.length, 'nothing else reported: a stall is an expected outcome');
    });

    it('once the database answers again: every surface is 200 (the hidden twin 404) and the fallback header is gone', async () => {
      const s = surfaces(id, hidden);
      // The held statements are cancelled or answered first; the site answers again within a few
      // budgets (on a loaded machine a first build may still run over one: each path is asked again).
      const settled = async (path: string, headers: Record<string, string> = {}) => {
        let res = await get(path, headers);
        for (let i = 0; i < 20 && (res.status === 503 || res.status === 504 || res.headers.has('x-markdown-fallback')); i++) {
          await new Promise((r) => setTimeout(r, BUDGET_MS / 2));
          res = await get(path, headers);
        }
        return res;
      };
      for (const path of [...s.envelope, ...s.documents, ...s.twins.filter((p) => !p.includes(`/${hidden}.md`))]) {
        assert.equal((await settled(path)).status, 200, path);
      }
      assert.equal((await settled(`/en/page/${hidden}.md`)).status, 404);
      for (const path of s.negotiated) {
        const res = await settled(path, MARKDOWN_ONLY);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8', path);
        assert.equal(res.headers.get('x-markdown-fallback'), null, path);
      }
    });
  });
}
