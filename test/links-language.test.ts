import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { analyze, fetchPage, rawRequest, type DiscoveredLink, type FetchKitPage } from './support/fetchkit.js';
import { ACCEPT, HOST_FEED, linksByRel, startPageHost, type PageHost } from './support/page-host.js';
import { DEMO } from '../example-site/seed.js';
import { mergeLinkValues } from '../src/links/link-format.js';

const OURS = ['text/markdown', 'application/json'];
/** The plugin's alternates (the host's feed alternate is not one of them). */
const ourAlternates = (links: DiscoveredLink[]) => links.filter((l) => l.rel === 'alternate' && OURS.includes(String(l.type)));

function assertAlternatesIn(page: FetchKitPage, origin: string, id: number, lang: string, where: string): void {
  for (const [source, links] of [['Link', page.headerLinks], ['<head>', page.headLinks]] as const) {
    const alternates = ourAlternates(links);
    assert.deepEqual(alternates.map((l) => l.type), ['application/json', 'text/markdown'], `${where} ${source}: JSON first, Markdown last`);
    assert.deepEqual(
      alternates.map((l) => [l.href, l.hreflang]),
      [
        [`${origin}/api/agent/resource/${id}?language=${lang}`, lang],
        [`${origin}/agent/resource/${id}/markdown?language=${lang}`, lang],
      ],
      `${where} ${source}`,
    );
  }
}

for (const backend of surfaceBackends) {
  describe(`Language-correct alternates [${backend.name}]`, () => {
    let demo: DemoDatabase;
    const hosts: Record<string, PageHost> = {};
    let welcome: number;
    before(async () => {
      demo = await openDemoDatabase(backend);
      await analyze(demo.db);
      welcome = await demo.id(DEMO.welcome);
      hosts.express5 = await startPageHost(demo.db, 'express5');
      hosts.express4 = await startPageHost(demo.db, 'express4');
    });
    after(async () => {
      for (const host of Object.values(hosts)) await host.close();
      await demo?.close();
    });

    for (const flavour of ['express5', 'express4'] as const) {
      describe(`on an ${flavour} host`, () => {
        it("every alternate in the Link header and <head> carries the page's language", async () => {
          const { origin } = hosts[flavour]!;
          for (const [path, lang] of [
            [`/en/page/${welcome}`, 'en'],
            [`/nl/page/${welcome}`, 'nl'],
            [`/custom/nl/${welcome}`, 'nl'],
            [`/custom/en/${welcome}`, 'en'],
            // The one-argument resourceLinks: the site's default language.
            [`/page/${welcome}`, 'en'],
            // A language that is not a site language is never advertised (the facade would answer 400).
            [`/de/page/${welcome}`, 'en'],
          ] as const) {
            const page = await fetchPage(`${origin}${path}`);
            assert.equal(page.status, 200, path);
            assertAlternatesIn(page, origin, welcome, lang, path);
          }
        });

        it('every advertised alternate answers 200 in the advertised language', async () => {
          const { origin } = hosts[flavour]!;
          for (const lang of ['en', 'nl']) {
            const page = await fetchPage(`${origin}/${lang}/page/${welcome}`);
            for (const link of ourAlternates(page.headerLinks)) {
              const res = await rawRequest(link.href);
              assert.equal(res.status, 200, link.href);
              if (link.type === 'text/markdown') assert.equal(res.headers['content-language'], lang);
              else assert.equal(JSON.parse(res.body).result.language, lang);
            }
          }
        });

        it('a dictionary-by-rel parse of the Link header yields the Markdown alternate', async () => {
          const { origin } = hosts[flavour]!;
          for (const [path, lang] of [[`/nl/page/${welcome}`, 'nl'], [`/custom/en/${welcome}`, 'en'], [`/page/${welcome}`, 'en']] as const) {
            for (const accept of [ACCEPT.browser, ACCEPT.fetchKit, ACCEPT.claudeCode]) {
              const res = await rawRequest(`${origin}${path}`, { headers: { accept } });
              const links = linksByRel(String(res.headers.link));
              assert.equal(links.alternate?.url, `${origin}/agent/resource/${welcome}/markdown?language=${lang}`, `${path} ${accept}`);
              assert.equal(links.alternate?.type, 'text/markdown');
              assert.equal(links.alternate?.hreflang, lang);
            }
          }
          // The host's own feed alternate, appended after the plugin's links, is kept, before the Markdown.
          const page = await fetchPage(`${origin}/nl/page/${welcome}`);
          const alternates = page.headerLinks.filter((l) => l.rel === 'alternate').map((l) => l.type);
          assert.deepEqual(alternates, ['text/html', 'text/html', 'application/json', 'application/rss+xml', 'text/markdown']);
        });

        it('pages that are not advertised keep no alternates in any language', async () => {
          const { origin } = hosts[flavour]!;
          for (const name of [DEMO.noindex, DEMO.pressRelease, DEMO.scheduled]) {
            const page = await fetchPage(`${origin}/nl/page/${await demo.id(name)}`);
            assert.deepEqual(ourAlternates(page.headerLinks), [], name);
            assert.deepEqual(ourAlternates(page.headLinks), [], name);
          }
        });
      });
    }
  });
}

describe('Markdown alternates go last in the merged header', () => {
  it('whatever order they were set in, other values keeping their order', () => {
    const merged = mergeLinkValues([
      '</a.md>; rel="alternate"; type="text/markdown"; hreflang="nl"',
      '</a.json>; rel="alternate"; type="application/json"',
      HOST_FEED,
      '</hub>; rel="hub"',
    ]);
    assert.equal(
      merged,
      '</a.json>; rel="alternate"; type="application/json", <https://feeds.example.net/all.xml>; rel="alternate"; type="application/rss+xml", </hub>; rel="hub", </a.md>; rel="alternate"; type="text/markdown"; hreflang="nl"',
    );
    assert.equal(linksByRel(merged).alternate?.url, '/a.md');
    // A Markdown link of another relation is not moved.
    assert.equal(mergeLinkValues(['</x.md>; rel="describedby"; type="text/markdown"', '</y>; rel="next"']), '</x.md>; rel="describedby"; type="text/markdown", </y>; rel="next"');
  });

  it('the dictionary parse splits on commas only outside <> and quotes', () => {
    const links = linksByRel('</a,b>; rel="alternate"; title="x, y", </c>; rel="next alternate"');
    assert.equal(links.next?.url, '/c');
    assert.equal(links.alternate?.url, '/c');
    assert.equal(linksByRel('</a,b>; rel="alternate"; title="x, y"').alternate?.title, 'x, y');
  });
});

describe('resourceLinks arguments', () => {
  let host: PageHost;
  let demo: DemoDatabase;
  before(async () => {
    demo = await openDemoDatabase(surfaceBackends[0]!);
    host = await startPageHost(demo.db, 'express5');
  });
  after(async () => {
    await host?.close();
    await demo?.close();
  });

  it('accepts a parameter name or { id, language }', () => {
    for (const params of [undefined, 'id', 'slug', {}, { id: 'id' }, { id: 'id', language: 'lang' }, { language: 'lang' }]) {
      assert.equal(typeof host.agent.resourceLinks(params), 'function', JSON.stringify(params));
    }
  });

  it('rejects empty names, unknown keys and other values, naming the problem', () => {
    for (const [params, message] of [
      ['', /resourceLinks: id must be a non-empty route parameter name/],
      [{ id: '' }, /resourceLinks: id must be a non-empty route parameter name/],
      [{ language: '' }, /resourceLinks: language must be a non-empty route parameter name/],
      [{ id: 'id', lang: 'lang' }, /resourceLinks: unknown key "lang"/],
      [null, /resourceLinks: expected a route parameter name or \{ id, language \}/],
      [42, /resourceLinks: expected a route parameter name or \{ id, language \}/],
    ] as const) {
      assert.throws(() => host.agent.resourceLinks(params as never), (e: Error) => {
        assert.ok(e instanceof TypeError);
        assert.match(e.message, /^express-agent-discovery: /);
        assert.match(e.message, message);
        return true;
      }, JSON.stringify(params));
    }
  });
});
