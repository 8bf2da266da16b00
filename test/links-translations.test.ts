import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { fetchPage, type DiscoveredLink, type FetchKitPage } from './support/fetchkit.js';
import { startPageHost, type PageHost } from './support/page-host.js';
import { createExampleSite } from '../example-site/app.js';
import { DEMO } from '../example-site/seed.js';

/** The human language versions a page names: `alternate` links of type text/html. */
const translations = (links: DiscoveredLink[]) => links.filter((l) => l.rel === 'alternate' && l.type === 'text/html').map((l) => [l.hreflang, l.href]);

function assertTranslations(page: FetchKitPage, want: (string | undefined)[][], where: string): void {
  assert.equal(page.status, 200, where);
  for (const [source, links] of [['Link', page.headerLinks], ['<head>', page.headLinks]] as const) {
    assert.deepEqual(translations(links), want, `${where} ${source}`);
    const alternates = links.filter((l) => l.rel === 'alternate');
    if (alternates.length) assert.equal(alternates.at(-1)!.type, 'text/markdown', `${where} ${source}: the Markdown stays the last alternate`);
  }
}

for (const backend of surfaceBackends) {
  describe(`Translations linked [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let host: PageHost;
    before(async () => {
      demo = await openDemoDatabase(backend);
      host = await startPageHost(demo.db, 'express5');
    });
    after(async () => {
      await host?.close();
      await demo?.close();
    });

    it('a page in English and Dutch names both human versions in its Link header and <head>, from either version', async () => {
      const welcome = await demo.id(DEMO.welcome);
      const both = [
        ['en', `${host.origin}/en/page/${welcome}`],
        ['nl', `${host.origin}/nl/page/${welcome}`],
      ];
      assertTranslations(await fetchPage(`${host.origin}/en/page/${welcome}`), both, 'the English page');
      assertTranslations(await fetchPage(`${host.origin}/nl/page/${welcome}`), both, 'the Dutch page');
    });

    it('a page in one language, and a page that is private or noindex, name no language versions', async () => {
      for (const name of [DEMO.englishOnly, DEMO.dutchOnly, DEMO.noindex]) {
        const id = await demo.id(name);
        const page = await fetchPage(`${host.origin}/en/page/${id}`);
        for (const links of [page.headerLinks, page.headLinks]) assert.deepEqual(translations(links), [], name);
      }
      const hidden = await demo.id(DEMO.private);
      const page = await fetchPage(`${host.origin}/en/page/${hidden}`, { cookie: 'session=admin' });
      assert.equal(page.status, 200, 'the administrator sees the private page');
      for (const links of [page.headerLinks, page.headLinks]) assert.deepEqual(translations(links), [], 'nothing advertised for a private page, even to its administrator');
    });

    it('the home page advertises its Markdown (the llms.txt body on /), unless markdownHome is off', async () => {
      const home = await fetchPage(`${host.origin}/`);
      for (const links of [home.headerLinks, home.headLinks]) {
        assert.deepEqual(links.filter((l) => l.rel === 'alternate').map((l) => [l.href, l.type]), [[`${host.origin}/`, 'text/markdown']]);
      }
      const markdown = await fetch(`${host.origin}/`, { headers: { accept: 'text/markdown' } });
      assert.match(markdown.headers.get('content-type') ?? '', /^text\/markdown/);
      const off = await startPageHost(demo.db, 'express5', { markdownHome: false });
      try {
        const page = await fetchPage(`${off.origin}/`);
        for (const links of [page.headerLinks, page.headLinks]) assert.equal(links.filter((l) => l.rel === 'alternate').length, 0);
      } finally {
        await off.close();
      }
    });

    it("the example site's sitemap lists each language version of a page as an xhtml:link alternate", async () => {
      const site = await createExampleSite({ database: { kysely: demo.db }, seed: false });
      try {
        const welcome = await demo.id(DEMO.welcome);
        const englishOnly = await demo.id(DEMO.englishOnly);
        const res = await request(site.app).get('/sitemap.xml').set('host', 'site.example');
        assert.equal(res.status, 200);
        assert.match(res.text, /xmlns:xhtml="http:\/\/www\.w3\.org\/1999\/xhtml"/);
        const entry = (path: string) => new RegExp(`<url><loc>http://site\\.example${path}</loc><lastmod>[^<]+</lastmod>(.*?)</url>`).exec(res.text)?.[1];
        const alternates = `<xhtml:link rel="alternate" hreflang="en" href="http://site.example/en/page/${welcome}"/><xhtml:link rel="alternate" hreflang="nl" href="http://site.example/nl/page/${welcome}"/>`;
        assert.equal(entry(`/en/page/${welcome}`), alternates);
        assert.equal(entry(`/nl/page/${welcome}`), alternates);
        assert.equal(entry(`/en/page/${englishOnly}`), '', 'one language: no alternates');
      } finally {
        await site.close();
      }
    });
  });
}
