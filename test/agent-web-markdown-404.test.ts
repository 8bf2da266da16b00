import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { listen, type Listening } from './support/mcp-client.js';
import { idOf, pluginApp } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';

// SPEC §20, issue 34 item 5: the host's own 404s answer an agent that asked for Markdown in Markdown,
// through `agent.markdownNotFound` mounted before the host's 404 handler (the example site does).

const MARKDOWN = 'text/markdown, text/html, */*';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

async function assertMarkdown404(res: Response, what: string): Promise<string> {
  assert.equal(res.status, 404, what);
  assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8', what);
  assert.equal(res.headers.get('cache-control'), 'no-store', what);
  assert.match(res.headers.get('vary') ?? '', /Accept/, what);
  const text = await res.text();
  assert.match(text, /^# Not found\n/, what);
  assert.match(text, /\[Search this site\]\(\/api\/agent\/search\)/, what);
  assert.match(text, /\[llms\.txt\]\(\/llms\.txt\)/, what);
  return text;
}

for (const backend of surfaceBackends) {
  describe(`Markdown 404s on the host's pages [${backend.name}]`, () => {
    let site: RunningSite;
    let hidden: number;
    before(async () => {
      site = await startExampleSite(backend);
      hidden = await idOf(site.content.db, DEMO.private);
    });
    after(() => site?.close());

    it('a missing or hidden page asked for in Markdown is a Markdown 404 (with CORS on the example site)', async () => {
      for (const path of ['/en/page/99999', `/en/page/${hidden}`, '/no/such/page', '/de/page/1']) {
        const res = await fetch(`${site.origin}${path}`, { headers: { accept: MARKDOWN } });
        const text = await assertMarkdown404(res, path);
        assert.equal(res.headers.get('access-control-allow-origin'), '*', path);
        assert.ok(!/embers|Members/.test(text), `${path}: nothing of the hidden page`);
        const head = await fetch(`${site.origin}${path}`, { method: 'HEAD', headers: { accept: MARKDOWN } });
        assert.equal(head.status, 404);
        assert.equal(head.headers.get('content-type'), 'text/markdown; charset=utf-8');
        assert.equal(await head.text(), '');
      }
    });

    it("a browser, FetchKit and */* get the host's HTML 404 page", async () => {
      for (const accept of [BROWSER, 'text/html, text/markdown, text/plain, */*;q=0.8', '*/*']) {
        const res = await fetch(`${site.origin}/en/page/99999`, { headers: { accept } });
        assert.equal(res.status, 404, accept);
        assert.match(res.headers.get('content-type')!, /^text\/html/, accept);
        assert.equal(res.headers.get('access-control-allow-origin'), null, accept);
      }
    });

    it('a .md URL that is no page is a Markdown 404 (the example site has .md twins: whatever the Accept)', async () => {
      for (const accept of [undefined, '*/*', 'text/markdown', BROWSER]) {
        const res = await fetch(`${site.origin}/no/such/page.md`, { headers: accept ? { accept } : {} });
        await assertMarkdown404(res, String(accept));
      }
    });

    it('other methods go on to the host', async () => {
      const res = await fetch(`${site.origin}/en/page/99999`, { method: 'DELETE', headers: { accept: MARKDOWN } });
      assert.equal(res.status, 404);
      assert.match(res.headers.get('content-type')!, /^text\/html/);
    });
  });
}

describe('agent.markdownNotFound on a host without cors', () => {
  let host: Listening;
  let close: () => Promise<void>;
  before(async () => {
    const content = await surfaceBackends[0]!.openSeeded();
    const { agent } = await pluginApp(content.db);
    const app = express();
    app.use(agent.router);
    app.get('/sent', (_req, res) => res.type('text').send('already answered'));
    app.use(agent.markdownNotFound);
    app.use((_req, res) => res.status(404).type('html').send('<h1>Not found</h1>'));
    host = await listen(app);
    close = async () => (await host.close(), await agent.close(), await content.close());
  });
  after(() => close?.());

  it('answers Markdown without any CORS header, a .md URL unless a browser asks, and leaves answered requests alone', async () => {
    const res = await fetch(`${host.origin}/nothing/here`, { headers: { accept: MARKDOWN } });
    await assertMarkdown404(res, '/nothing/here');
    assert.deepEqual([...res.headers.keys()].filter((k) => k.startsWith('access-control-')), []);
    const html = await fetch(`${host.origin}/nothing/here`, { headers: { accept: BROWSER } });
    assert.equal(await html.text(), '<h1>Not found</h1>');
    // Without .md twins, a .md URL is a Markdown 404 unless the request prefers HTML as a browser does.
    for (const accept of [undefined, '*/*']) await assertMarkdown404(await fetch(`${host.origin}/no/such/page.md`, { headers: accept ? { accept } : {} }), `.md ${accept}`);
    const browser = await fetch(`${host.origin}/no/such/page.md`, { headers: { accept: BROWSER } });
    assert.equal(await browser.text(), '<h1>Not found</h1>');
    const sent = await fetch(`${host.origin}/sent`, { headers: { accept: MARKDOWN } });
    assert.equal(sent.status, 200);
    assert.equal(await sent.text(), 'already answered');
  });
});
