import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { listen } from './support/mcp-client.js';
import { idOf } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';
import { createExampleSite } from '../example-site/app.js';
import { adminCookie } from '../example-site/session.js';

// SPEC §20, issue 34 item 4: with `markdownTwins`, `<page URL>.md` and `/index.md` answer the page's
// Markdown as the negotiated answer does (visibility, language, headers); anything else on a `.md` URL
// is the Markdown 404, never the host's HTML.

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SECRET = /embers|SECRET|GEHEIM/;

async function assertMarkdown404(res: Response, what: string): Promise<void> {
  assert.equal(res.status, 404, what);
  assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8', what);
  assert.equal(res.headers.get('cache-control'), 'no-store', what);
  assert.equal(res.headers.get('etag'), null, what);
  const text = await res.text();
  assert.match(text, /^# Not found\n/, what);
  assert.ok(!SECRET.test(text), `${what}: nothing of a hidden page`);
}

for (const backend of surfaceBackends) {
  describe(`.md twins of the pages [${backend.name}]`, () => {
    let site: RunningSite;
    let welcome: number;
    let hidden: number;
    let unpublished: number;
    before(async () => {
      site = await startExampleSite(backend);
      welcome = await idOf(site.content.db, DEMO.welcome);
      hidden = await idOf(site.content.db, DEMO.private);
      unpublished = await idOf(site.content.db, DEMO.unpublished);
    });
    after(() => site?.close());

    it("<page URL>.md is the page's Markdown in its language, whatever the Accept, with the negotiated answer's headers", async () => {
      for (const lang of ['en', 'nl']) {
        const read = await (await fetch(`${site.origin}/agent/resource/${welcome}/markdown?language=${lang}`)).text();
        const negotiated = await fetch(`${site.origin}/${lang}/page/${welcome}`, { headers: { accept: 'text/markdown' } });
        for (const accept of [undefined, '*/*', BROWSER, 'text/markdown']) {
          const res = await fetch(`${site.origin}/${lang}/page/${welcome}.md`, { headers: accept ? { accept } : {} });
          assert.equal(res.status, 200, `${lang} ${accept}`);
          assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8');
          assert.equal(await res.text(), read, `${lang} ${accept}: the Markdown read's body`);
          for (const name of ['content-language', 'content-location', 'cache-control', 'etag', 'x-markdown-tokens', 'link', 'access-control-allow-origin']) {
            assert.equal(res.headers.get(name), negotiated.headers.get(name), `${lang} ${accept}: ${name}`);
          }
          assert.equal(res.headers.get('content-language'), lang);
        }
        const etag = negotiated.headers.get('etag')!;
        const again = await fetch(`${site.origin}/${lang}/page/${welcome}.md`, { headers: { 'if-none-match': etag } });
        assert.equal(again.status, 304);
        const head = await fetch(`${site.origin}/${lang}/page/${welcome}.md`, { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(head.headers.get('etag'), etag);
        assert.equal(await head.text(), '');
      }
    });

    it('/index.md is the home page in Markdown (the llms.txt body)', async () => {
      const res = await fetch(`${site.origin}/index.md`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8');
      assert.equal(await res.text(), await (await fetch(`${site.origin}/llms.txt`)).text());
      assert.match(res.headers.get('content-location')!, /\/llms\.txt$/);
    });

    it('a hidden, unpublished or missing page, a page of the host that has no Markdown and a path that is no page: the Markdown 404, for an administrator too', async () => {
      const cookie = adminCookie(site.site.session);
      for (const path of [`/en/page/${hidden}.md`, `/nl/page/${unpublished}.md`, '/en/page/99999.md', '/de/page/1.md', '/login.md', '/no/such/page.md', '/llms.txt.md']) {
        await assertMarkdown404(await fetch(`${site.origin}${path}`, { headers: { accept: BROWSER } }), path);
        await assertMarkdown404(await fetch(`${site.origin}${path}`, { headers: { accept: BROWSER, cookie } }), `${path} (admin)`);
      }
      // The administrator's own HTML of the private page is still there, without .md.
      const html = await fetch(`${site.origin}/en/page/${hidden}`, { headers: { accept: BROWSER, cookie } });
      assert.equal(html.status, 200);
      assert.match(html.headers.get('content-type')!, /^text\/html/);
    });

    it('only GET and HEAD are rewritten; /.md is left alone', async () => {
      const post = await fetch(`${site.origin}/en/page/${welcome}.md`, { method: 'POST', headers: { accept: BROWSER } });
      assert.equal(post.status, 404);
      assert.match(post.headers.get('content-type')!, /^text\/html/);
      const bare = await fetch(`${site.origin}/.md`, { headers: { accept: BROWSER } });
      assert.equal(bare.status, 404);
      assert.match(bare.headers.get('content-type')!, /^text\/html/);
    });

    it('markdownTwins off: a .md URL is the host\'s 404 (in Markdown only for an agent that asks for it)', async () => {
      const second = await createExampleSite({ database: { kysely: site.content.db }, plugin: { markdownTwins: false } });
      const web = await listen(second.app);
      try {
        const browser = await fetch(`${web.origin}/en/page/${welcome}.md`, { headers: { accept: BROWSER } });
        assert.equal(browser.status, 404);
        assert.match(browser.headers.get('content-type')!, /^text\/html/);
        const agent = await fetch(`${web.origin}/en/page/${welcome}.md`);
        await assertMarkdown404(agent, 'off, no Accept');
      } finally {
        await web.close();
        await second.close();
      }
    });
  });
}
