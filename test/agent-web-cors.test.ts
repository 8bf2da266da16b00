import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { listen, type Listening } from './support/mcp-client.js';
import { chromiumSkip, launchChromium } from './support/chromium.js';
import { idOf } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';
import { createExampleSite } from '../example-site/app.js';

// SPEC §20, issue 34 item 6: with `cors` on, the Markdown negotiated on a page URL (and on `/`) and the
// `/id/{id}` 303s are readable by a browser agent on another origin; the host's own answers on the same
// paths (its HTML, its 404s) get no CORS header, and with `cors` off nothing does.

const MARKDOWN = 'text/markdown, text/html, */*';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const OTHER_ORIGIN = 'http://agent.example.net';

const corsHeaders = (res: Response) => [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));

for (const backend of surfaceBackends) {
  describe(`CORS on negotiated Markdown and /id/{id} [${backend.name}]`, () => {
    let site: RunningSite;
    let off: { origin: string; close(): Promise<void> };
    let welcome: number;
    let hidden: number;
    before(async () => {
      site = await startExampleSite(backend);
      // The same content, served by a second instance with cors off.
      const second = await createExampleSite({ database: { kysely: site.content.db }, plugin: { cors: false } });
      const web = await listen(second.app);
      off = { origin: web.origin, close: async () => (await web.close(), await second.close()) };
      welcome = await idOf(site.content.db, DEMO.welcome);
      hidden = await idOf(site.content.db, DEMO.private);
    });
    after(async () => {
      await off?.close();
      await site?.close();
    });

    it('a page URL answered in Markdown carries Access-Control-Allow-Origin: * and exposes its headers; its HTML does not', async () => {
      for (const path of [`/en/page/${welcome}`, `/nl/page/${welcome}`, '/']) {
        const md = await fetch(`${site.origin}${path}`, { headers: { accept: MARKDOWN, origin: OTHER_ORIGIN } });
        assert.equal(md.status, 200, path);
        assert.match(md.headers.get('content-type')!, /^text\/markdown/, path);
        assert.equal(md.headers.get('access-control-allow-origin'), '*', path);
        assert.equal(md.headers.get('access-control-allow-credentials'), null, path);
        const exposed = md.headers.get('access-control-expose-headers')!.split(', ');
        for (const name of ['ETag', 'Link', 'Content-Language', 'Content-Location']) assert.ok(exposed.includes(name), `${path}: ${name} exposed`);
        const html = await fetch(`${site.origin}${path}`, { headers: { accept: BROWSER, origin: OTHER_ORIGIN } });
        assert.equal(html.status, 200, path);
        assert.match(html.headers.get('content-type')!, /^text\/html/, path);
        assert.deepEqual(corsHeaders(html), [], `${path}: the host's HTML gets no CORS header`);
      }
    });

    it("a private page falls through to the host's 404: nothing of the page", async () => {
      const res = await fetch(`${site.origin}/en/page/${hidden}`, { headers: { accept: MARKDOWN, origin: OTHER_ORIGIN } });
      assert.equal(res.status, 404);
      assert.ok(!(await res.text()).includes('embers'), 'nothing of the hidden page');
    });

    it('/id/{id}: the 303s carry the CORS headers, its preflight is 204, the host answer does not', async () => {
      for (const [accept, target] of [
        [MARKDOWN, `/agent/resource/${welcome}/markdown`],
        ['application/json', `/api/agent/resource/${welcome}`],
      ] as const) {
        const res = await fetch(`${site.origin}/id/${welcome}`, { headers: { accept, origin: OTHER_ORIGIN }, redirect: 'manual' });
        assert.equal(res.status, 303);
        assert.equal(new URL(res.headers.get('location')!).pathname, target);
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
      }
      const host = await fetch(`${site.origin}/id/${welcome}`, { headers: { accept: BROWSER, origin: OTHER_ORIGIN }, redirect: 'manual' });
      assert.equal(host.status, 302, "the host's own redirect");
      assert.deepEqual(corsHeaders(host), []);
      const preflight = await fetch(`${site.origin}/id/${welcome}`, {
        method: 'OPTIONS',
        headers: { origin: OTHER_ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.match(preflight.headers.get('access-control-allow-headers')!, /If-None-Match/);
    });

    it('cors off: the same answers carry no CORS header', async () => {
      for (const path of [`/en/page/${welcome}`, '/']) {
        const md = await fetch(`${off.origin}${path}`, { headers: { accept: MARKDOWN, origin: OTHER_ORIGIN } });
        assert.equal(md.status, 200);
        assert.match(md.headers.get('content-type')!, /^text\/markdown/);
        assert.deepEqual(corsHeaders(md), [], path);
      }
      const redirect = await fetch(`${off.origin}/id/${welcome}`, { headers: { accept: MARKDOWN, origin: OTHER_ORIGIN }, redirect: 'manual' });
      assert.equal(redirect.status, 303);
      assert.deepEqual(corsHeaders(redirect), []);
    });
  });
}

describe('a browser agent on another origin reads page Markdown and /id/{id} (Debian Chromium)', { skip: chromiumSkip }, () => {
  let site: RunningSite;
  let agentSite: Listening;
  let browser: Browser;
  let page: Page;
  let welcome: number;
  before(async () => {
    site = await startExampleSite(surfaceBackends[0]!);
    welcome = await idOf(site.content.db, DEMO.welcome);
    const app = express();
    app.get('/', (_req, res) => res.type('html').send('<!doctype html><title>a browser agent</title><p>agent'));
    agentSite = await listen(app);
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${agentSite.origin}/`);
  });
  after(async () => {
    await browser?.close();
    await agentSite?.close();
    await site?.close();
  });

  it('fetch with Accept: text/markdown reads the page URL and follows the /id/{id} redirect to the Markdown (304 when conditional)', async () => {
    const urls = [`${site.origin}/en/page/${welcome}`, `${site.origin}/id/${welcome}`];
    const reads = await page.evaluate(async (list) => {
      const out: { url: string; status?: number; type?: string | null; text?: string; etag?: string | null; again?: number; error?: string }[] = [];
      for (const url of list) {
        try {
          const res = await fetch(url, { headers: { Accept: 'text/markdown' }, cache: 'no-store' } as RequestInit);
          const text = await res.text();
          const etag = res.headers.get('ETag');
          // A conditional GET is preflighted (If-None-Match is not safelisted): only the plugin's own URL answers one.
          const again = url.includes('/id/') ? (await fetch(res.url, { headers: { Accept: 'text/markdown', 'If-None-Match': etag ?? '"none"' }, cache: 'no-store' } as RequestInit)).status : undefined;
          out.push({ url, status: res.status, type: res.headers.get('Content-Type'), text: text.slice(0, 200), etag, ...(again ? { again } : {}) });
        } catch (error) {
          out.push({ url, error: String(error) });
        }
      }
      return out;
    }, urls);
    for (const read of reads) {
      assert.equal(read.error, undefined, `${read.url}: ${read.error}`);
      assert.equal(read.status, 200, read.url);
      assert.match(read.type ?? '', /^text\/markdown/, read.url);
      assert.match(read.text ?? '', /^---\ntitle: /, read.url);
      assert.match(read.etag ?? '', /^"/, `${read.url}: the ETag is exposed`);
    }
    // The Markdown URL the redirect led to is a plugin route: its preflighted conditional GET is a 304.
    assert.equal(reads[1]!.again, 304);
  });
});
