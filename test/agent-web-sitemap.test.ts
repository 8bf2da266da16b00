import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { validateXML } from 'xmllint-wasm';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { listen, walkRest } from './support/mcp-client.js';
import { REPO_ROOT } from './support/repo.js';
import { createExampleSite } from '../example-site/app.js';
import { DEMO } from '../example-site/seed.js';
import { idOf } from './support/demo.js';

// SPEC §20, issue 34 item 2: the opt-in sitemap.xml validates against the sitemaps schema, lists every
// public, indexable page in each of its languages with a full date-time lastmod and reciprocal hreflang
// alternates, becomes an index of parts past maxUrls, and is named in robots.txt and llms.txt.

const schema = (name: string) => ({ fileName: name, contents: readFileSync(new URL(`test/fixtures/sitemaps/${name}`, `file://${REPO_ROOT}/`), 'utf8') });
const FULL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function assertValid(xml: string, root: 'urlset' | 'sitemapindex'): Promise<void> {
  const result =
    root === 'urlset'
      ? await validateXML({ xml: [{ fileName: 'sitemap.xml', contents: xml }], schema: [schema('urlset-hreflang.xsd')], preload: [schema('sitemap.xsd'), schema('xhtml-link.xsd')] })
      : await validateXML({ xml: [{ fileName: 'sitemap.xml', contents: xml }], schema: [schema('siteindex.xsd')] });
  assert.ok(result.valid, result.errors.map((e) => e.rawMessage).join('\n'));
}

interface SitemapUrl {
  loc: string;
  lastmod: string | undefined;
  alternates: Map<string, string>;
}

/** The `<url>` entries of a urlset (the plugin writes one per line). */
function urlsOf(xml: string): SitemapUrl[] {
  return [...xml.matchAll(/<url><loc>([^<]+)<\/loc>(?:<lastmod>([^<]+)<\/lastmod>)?(.*?)<\/url>/g)].map((m) => ({
    loc: m[1]!.replace(/&amp;/g, '&'),
    lastmod: m[2],
    alternates: new Map([...m[3]!.matchAll(/<xhtml:link rel="alternate" hreflang="([^"]+)" href="([^"]+)"\/>/g)].map((a) => [a[1]!, a[2]!.replace(/&amp;/g, '&')])),
  }));
}

/** Asserts hreflang reciprocity: each alternate is itself listed, naming the same versions. */
function assertReciprocal(urls: readonly SitemapUrl[]): void {
  const byLoc = new Map(urls.map((u) => [u.loc, u]));
  for (const url of urls) {
    if (!url.alternates.size) continue;
    assert.ok([...url.alternates.values()].includes(url.loc), `${url.loc} names itself`);
    for (const href of url.alternates.values()) {
      const other = byLoc.get(href);
      assert.ok(other, `${href} (an alternate of ${url.loc}) is listed`);
      assert.deepEqual([...other.alternates.entries()].sort(), [...url.alternates.entries()].sort(), `${href} names the same versions`);
    }
  }
}

for (const backend of surfaceBackends) {
  describe(`sitemap.xml [${backend.name}]`, () => {
    let site: RunningSite;
    before(async () => {
      site = await startExampleSite(backend);
    });
    after(() => site?.close());

    it('a urlset that validates, every public indexable page in each language with a full date-time lastmod, hreflang reciprocal', async () => {
      const res = await fetch(`${site.origin}/sitemap.xml`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/xml; charset=utf-8');
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      const xml = await res.text();
      await assertValid(xml, 'urlset');
      const urls = urlsOf(xml);
      assert.equal(urls[0]!.loc, `${site.origin}/`, 'the home page first');
      const pages = urls.slice(1);
      for (const u of pages) assert.match(u.lastmod ?? '', FULL_DATE_TIME, u.loc);
      // The home page changes with every public page: its lastmod is the newest of theirs.
      const newest = pages.map((u) => u.lastmod!).sort().at(-1);
      assert.equal(urls[0]!.lastmod, newest, 'the home page carries the newest public change');
      assertReciprocal(pages);
      // Exactly what search lists, each in its languages.
      const listed = await walkRest(`${site.origin}/api/agent/search?pagelen=100`);
      const ids = new Set(pages.map((u) => Number(/\/page\/(\d+)$/.exec(u.loc)![1])));
      assert.deepEqual([...ids].sort((a, b) => a - b), listed.map((i) => i.id as number).sort((a, b) => a - b));
      for (const item of listed) {
        for (const language of item.available_languages as string[]) assert.ok(pages.some((u) => u.loc === `${site.origin}/${language}/page/${item.id}`), `${item.id} ${language}`);
      }
      for (const hidden of [DEMO.private, DEMO.unpublished, DEMO.noindex, DEMO.expired, DEMO.scheduled]) {
        const id = await idOf(site.content.db, hidden);
        assert.ok(!ids.has(id), `${hidden} is not listed`);
      }
      const etag = res.headers.get('etag')!;
      assert.equal((await fetch(`${site.origin}/sitemap.xml`, { headers: { 'if-none-match': etag } })).status, 304);
    });

    it('named in robots.txt and llms.txt', async () => {
      assert.match(await (await fetch(`${site.origin}/robots.txt`)).text(), new RegExp(`\\nSitemap: ${site.origin}/sitemap\\.xml\\n`));
      assert.ok((await (await fetch(`${site.origin}/llms.txt`)).text()).includes(`(${site.origin}/sitemap.xml)`));
    });

    it('past maxUrls: an index of parts that validate, each within the bound, together the same pages', async () => {
      const whole = urlsOf(await (await fetch(`${site.origin}/sitemap.xml`)).text());
      const second = await createExampleSite({ database: { kysely: site.content.db }, plugin: { sitemap: { maxUrls: 100 } } });
      const web = await listen(second.app);
      try {
        const index = await (await fetch(`${web.origin}/sitemap.xml`)).text();
        await assertValid(index, 'sitemapindex');
        const parts = [...index.matchAll(/<sitemap><loc>([^<]+)<\/loc><lastmod>([^<]+)<\/lastmod><\/sitemap>/g)];
        assert.ok(parts.length >= 4, `${parts.length} parts`);
        const urls: SitemapUrl[] = [];
        for (const [, loc, lastmod] of parts) {
          assert.match(lastmod!, FULL_DATE_TIME);
          assert.match(new URL(loc!).pathname, /^\/sitemaps\/\d+\.xml$/);
          const part = await (await fetch(loc!)).text();
          await assertValid(part, 'urlset');
          const partUrls = urlsOf(part);
          assert.ok(partUrls.length <= 100, `${loc}: ${partUrls.length} URLs`);
          urls.push(...partUrls);
        }
        assertReciprocal(urls.slice(1));
        const origin = (u: SitemapUrl) => u.loc.replace(web.origin, site.origin);
        assert.deepEqual(urls.map(origin), whole.map((u) => u.loc), 'the parts list the same pages, the home page first');
        assert.equal((await fetch(`${web.origin}/sitemaps/999999999.xml`)).status, 404);
        assert.equal((await fetch(`${web.origin}/sitemaps/abc.xml`)).status, 400);
      } finally {
        await web.close();
        await second.close();
      }
    });

    it('off: the host\'s 404, and robots.txt names no sitemap', async () => {
      const second = await createExampleSite({ database: { kysely: site.content.db }, plugin: { sitemap: false } });
      const web = await listen(second.app);
      try {
        assert.equal((await fetch(`${web.origin}/sitemap.xml`, { headers: { accept: 'text/html' } })).status, 404);
        assert.doesNotMatch(await (await fetch(`${web.origin}/robots.txt`)).text(), /Sitemap:/);
      } finally {
        await web.close();
        await second.close();
      }
    });
  });
}
