import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { idOf } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';

// SPEC §20, issue 34 item 11: every Markdown answer (page URL, `/`, the Markdown read, the llms files,
// Markdown 404s) carries `x-markdown-tokens`, the documented estimate: UTF-8 bytes ÷ 4, rounded up.

const MARKDOWN = 'text/markdown, text/html, */*';

const estimate = (bytes: number) => Math.ceil(bytes / 4);

for (const backend of surfaceBackends) {
  describe(`x-markdown-tokens on every Markdown answer [${backend.name}]`, () => {
    let site: RunningSite;
    let paths: { path: string; accept?: string; status: number }[];
    before(async () => {
      site = await startExampleSite(backend);
      const welcome = await idOf(site.content.db, DEMO.welcome);
      const llms = await (await fetch(`${site.origin}/llms.txt`)).text();
      const category = /\((https?:\/\/[^)]+\/llms\/[^)]+\.txt)\)/.exec(llms)?.[1];
      assert.ok(category, 'llms.txt links a category llms.txt');
      paths = [
        { path: `/en/page/${welcome}`, accept: MARKDOWN, status: 200 },
        { path: `/nl/page/${welcome}`, accept: MARKDOWN, status: 200 },
        { path: '/', accept: MARKDOWN, status: 200 },
        { path: `/agent/resource/${welcome}/markdown`, status: 200 },
        { path: `/agent/resource/${welcome}/markdown?language=nl`, status: 200 },
        { path: '/llms.txt', status: 200 },
        { path: new URL(category).pathname, status: 200 },
        { path: '/llms-full.txt', status: 200 },
        { path: '/agent/resource/999999/markdown', accept: MARKDOWN, status: 404 },
        { path: '/en/page/999999', accept: MARKDOWN, status: 404 },
      ];
    });
    after(() => site?.close());

    it('the header is the estimate of the bytes sent, on GET, HEAD and 304 alike, and exposed to browsers', async () => {
      for (const { path, accept, status } of paths) {
        const headers: Record<string, string> = accept ? { accept } : {};
        const res = await fetch(`${site.origin}${path}`, { headers });
        assert.equal(res.status, status, path);
        const bytes = Buffer.byteLength(await res.text());
        assert.ok(bytes > 0, path);
        assert.equal(res.headers.get('x-markdown-tokens'), String(estimate(bytes)), path);
        const head = await fetch(`${site.origin}${path}`, { method: 'HEAD', headers });
        assert.equal(head.headers.get('x-markdown-tokens'), String(estimate(bytes)), `HEAD ${path}`);
        const etag = res.headers.get('etag');
        if (etag) {
          const again = await fetch(`${site.origin}${path}`, { headers: { ...headers, 'if-none-match': etag } });
          assert.equal(again.status, 304, path);
          assert.equal(again.headers.get('x-markdown-tokens'), String(estimate(bytes)), `304 ${path}`);
        }
        if (res.headers.get('access-control-allow-origin')) {
          assert.match(res.headers.get('access-control-expose-headers') ?? '', /x-markdown-tokens/, path);
        }
      }
    });

    it('JSON answers and HTML pages carry none', async () => {
      for (const path of ['/api/agent/search', '/openapi.json', `/en/page/${await idOf(site.content.db, DEMO.welcome)}`]) {
        const res = await fetch(`${site.origin}${path}`);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get('x-markdown-tokens'), null, path);
      }
    });

    it('the estimate counts bytes, not characters: a Dutch page with its accents costs no fewer tokens than its bytes say', async () => {
      const res = await fetch(`${site.origin}/agent/resource/${await idOf(site.content.db, DEMO.welcome)}/markdown?language=nl`);
      const text = await res.text();
      assert.ok(Number(res.headers.get('x-markdown-tokens')) >= Math.ceil(text.length / 4));
    });
  });
}
