import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkip, launchChromium } from './support/chromium.js';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';

// A browser-based agent on another origin (SPEC §14): Chromium on one origin fetches the plugin's
// public documents and reads on another. With `cors: true` each fetch carrying `If-None-Match` is
// preflighted and then answered 304; the MCP server card answers so whatever `cors` says; with `cors`
// off the public documents are not readable across origins and carry no CORS header at all.

/** What the page on the other origin saw for one URL: first the plain GET, then the conditional one. */
interface CrossOriginRead {
  url: string;
  first?: { status: number; etag: string | null; bytes: number };
  conditional?: { status: number };
  error?: string;
}

async function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Runs in the page: each URL fetched, then fetched again with its ETag (a non-safelisted header: preflighted). */
function readAcrossOrigins(page: Page, urls: string[]): Promise<CrossOriginRead[]> {
  return page.evaluate(async (list) => {
    const out: CrossOriginRead[] = [];
    for (const url of list) {
      try {
        const res = await fetch(url, { cache: 'no-store' } as RequestInit);
        const first = { status: res.status, etag: res.headers.get('ETag'), bytes: (await res.arrayBuffer()).byteLength };
        const again = await fetch(url, { cache: 'no-store', headers: { 'If-None-Match': first.etag ?? '"none"' } } as RequestInit);
        out.push({ url, first, conditional: { status: again.status } });
      } catch (error) {
        out.push({ url, error: String(error) });
      }
    }
    return out;
  }, urls);
}

describe('cross-origin reads from a real browser (Debian Chromium)', { skip: chromiumSkip }, () => {
  let demo: DemoDatabase;
  let browser: Browser;
  let page: Page;
  const servers: Server[] = [];
  let withCors: string;
  let withoutCors: string;
  let publicPaths: string[];
  /** Every request the cors-on server received, as `METHOD path`. */
  let seen: string[] = [];

  before(async () => {
    demo = await openDemoDatabase(surfaceBackends[0]!);
    const about = await demo.id('about');
    publicPaths = ['/llms.txt', '/openapi.json', '/.well-known/api-catalog', '/.well-known/ard.json', '/api/agent/search?text=harbour', `/api/agent/resource/${about}`, `/agent/resource/${about}/markdown`];
    const { agent: corsAgent } = await pluginApp(demo.db, { cors: true, mcp: true });
    const logged = express();
    logged.use((req, _res, next) => (seen.push(`${req.method} ${req.originalUrl}`), next()));
    logged.use(corsAgent.router);
    const on = await listen(logged);
    const off = await listen((await pluginApp(demo.db, { mcp: true })).app);
    // The agent's own origin: another port is another origin.
    const agentSite = express();
    agentSite.get('/', (_req, res) => res.type('html').send('<!doctype html><title>a browser agent</title><p>agent'));
    const agent = await listen(agentSite);
    servers.push(on.server, off.server, agent.server);
    withCors = on.base;
    withoutCors = off.base;
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${agent.base}/`);
  });
  after(async () => {
    await browser?.close();
    for (const s of servers) s.close();
    await demo?.close();
  });

  it('cors: true — every public document and read is fetched, preflighted with If-None-Match, and answered 304', async () => {
    seen = [];
    const reads = await readAcrossOrigins(page, publicPaths.map((p) => `${withCors}${p}`));
    for (const read of reads) {
      assert.equal(read.error, undefined, `${read.url}: ${read.error}`);
      assert.equal(read.first!.status, 200, read.url);
      assert.ok(read.first!.bytes > 0, read.url);
      assert.match(read.first!.etag ?? '', /^(W\/)?"/, `${read.url}: the ETag is exposed to the page`);
      assert.equal(read.conditional!.status, 304, `${read.url}: the conditional GET`);
    }
    // Chromium sent a preflight before the conditional GETs (If-None-Match is not a safelisted header;
    // Chromium caches a preflight's answer per URL for Access-Control-Max-Age).
    for (const path of publicPaths) assert.ok(seen.includes(`OPTIONS ${path}`), `no preflight of ${path}: ${seen.join('\n')}`);
  });

  it('the MCP server card is readable across origins, preflight and 304 included, whatever cors says', async () => {
    for (const base of [withCors, withoutCors]) {
      const reads = await readAcrossOrigins(page, [`${base}/mcp/server-card`, `${base}/.well-known/mcp/server-card.json`]);
      for (const read of reads) {
        assert.equal(read.error, undefined, `${read.url}: ${read.error}`);
        assert.equal(read.first!.status, 200, read.url);
        assert.equal(read.conditional!.status, 304, read.url);
      }
    }
  });

  it('cors off — the public documents are not readable from another origin, and no CORS header is sent', async () => {
    const reads = await readAcrossOrigins(page, publicPaths.map((p) => `${withoutCors}${p}`));
    for (const read of reads) assert.match(read.error ?? '', /TypeError|Failed to fetch/, `${read.url} was readable: ${JSON.stringify(read)}`);
    for (const path of publicPaths) {
      const res = await fetch(`${withoutCors}${path}`, { headers: { Origin: 'http://127.0.0.1:1' } });
      assert.equal(res.status, 200, path);
      const cors = [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));
      assert.deepEqual(cors, [], path);
      await res.arrayBuffer();
    }
  });
});
