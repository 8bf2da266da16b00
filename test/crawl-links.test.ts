import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { createExampleSite, type ExampleSite } from '../example-site/app.js';
import { DEMO, seedDemoContent } from '../example-site/seed.js';
import { anonymousVisible } from '../src/content/visibility.js';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { parseLinkHeaders, rawRequest } from './support/fetchkit.js';
import { parseLlmsFile } from './support/llms-txt-reference.js';
import { connectMcp } from './support/mcp-client.js';

/**
 * Relations whose target is a protocol endpoint, not a document: a `rel="mcp"` link is the MCP
 * Streamable HTTP endpoint, which answers POST (GET may be 405 by that protocol). The crawler checks
 * such a link by speaking the protocol: an MCP client initializes and lists the tools.
 */
const ENDPOINT_RELATIONS = new Set(['mcp']);

/** Where a link was found, for the failure report. */
type Sources = Map<string, Set<string>>;

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };
const decodeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|apos);/g, (_, e: string) => ENTITY[e]!);

/** Every `href` and `src` attribute value of an HTML fragment. */
const htmlLinks = (html: string): string[] => [...html.matchAll(/\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)].map((m) => decodeHtml(m[1] ?? m[2]!));

/** The attributes of one HTML tag. */
const tagAttributes = (tag: string): Record<string, string> =>
  Object.fromEntries([...tag.matchAll(/([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)].map((m) => [m[1]!.toLowerCase(), decodeHtml(m[2] ?? m[3]!)]));

/** The `rel` and `href` of every `<link>` element. */
const linkElements = (html: string) => [...html.matchAll(/<link\b[^>]*>/gi)].map((m) => tagAttributes(m[0])).map((a) => ({ rel: a.rel ?? '', href: a.href ?? '' }));

/** Whether a link's relation makes its target a protocol endpoint. */
const isEndpoint = (rel: string) => rel.toLowerCase().split(/\s+/).some((r) => ENDPOINT_RELATIONS.has(r));

/** Every link and image destination of a Markdown text (inline form, escapes undone), and autolinks. */
function markdownLinks(markdown: string): string[] {
  const inline = [...markdown.matchAll(/\]\(((?:\\.|[^\\()\s])+)(?:\s+"(?:\\.|[^"\\])*")?\)/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
  const auto = [...markdown.matchAll(/<(https?:\/\/[^>\s]+)>/g)].map((m) => m[1]!);
  return [...inline, ...auto];
}

/** Every `href` and `anchor` value anywhere in a JSON document. */
function jsonLinks(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(jsonLinks);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => ((k === 'href' || k === 'anchor') && typeof v === 'string' ? [v] : jsonLinks(v)));
  }
  return [];
}

/** The YAML front matter of a Markdown document, parsed. */
function frontMatter(markdown: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(markdown);
  return m ? (parseYaml(m[1]!) as Record<string, unknown>) : {};
}

/** Runs `work` over `items`, `width` at a time. */
async function pool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

for (const backend of surfaceBackends) {
  describe(`every link an agent can find on the example site resolves [${backend.name}]`, () => {
    let content: TestDatabase;
    let site: ExampleSite;
    let server: Server;
    let origin: string;
    before(async () => {
      content = await backend.open();
      await seedDemoContent(content.db);
      site = await createExampleSite({ database: { kysely: content.db }, seed: false });
      server = site.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await new Promise((resolve) => server?.close(resolve));
      await site?.close();
      await content?.close();
    });

    const get = (url: string, accept = '*/*') => fetch(url, { redirect: 'manual', headers: { accept } });

    it('/sitemap.xml lists the home page and every public, indexable page in each of its languages, nothing else', async () => {
      const res = await get(`${origin}/sitemap.xml`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/xml/);
      const xml = await res.text();
      assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9" xmlns:xhtml="http:\/\/www\.w3\.org\/1999\/xhtml">/);
      const locs = [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]!);
      assert.equal(locs[0], `${origin}/`);
      const id = async (name: string) => (await content.db.selectFrom('rsc').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
      const welcome = await id(DEMO.welcome);
      for (const lang of ['en', 'nl']) assert.ok(locs.includes(`${origin}/${lang}/page/${welcome}`), lang);
      const englishOnly = await id(DEMO.englishOnly);
      assert.ok(locs.includes(`${origin}/en/page/${englishOnly}`));
      assert.ok(!locs.includes(`${origin}/nl/page/${englishOnly}`), 'only the languages a page has');
      for (const name of [DEMO.private, DEMO.unpublished, DEMO.scheduled, DEMO.expired, DEMO.noindex, DEMO.pressRelease, 'internal_notes', 'internal_link']) {
        const hidden = await id(name);
        assert.ok(!locs.some((l) => l.endsWith(`/page/${hidden}`)), name);
      }
      assert.equal(new Set(locs).size, locs.length, 'no duplicates');
      assert.ok(xml.includes('<lastmod>'), 'last modification dates');
    });

    it('/sitemap.xml takes its origin from a valid Host only (400 otherwise), or from baseUrl', async () => {
      const other = await rawRequest(`${origin}/sitemap.xml`, { headers: { host: 'Docs.Example.ORG:8080' } });
      assert.equal(other.status, 200);
      assert.ok(other.body.includes('<loc>http://docs.example.org:8080/</loc>'));
      for (const host of ['a b', 'x.example/evil', 'user@x.example', 'x.example:99999', '<script>']) {
        const res = await rawRequest(`${origin}/sitemap.xml`, { headers: { host } });
        assert.equal(res.status, 400, host);
        assert.doesNotMatch(res.body, /evil|script|user@/);
      }
      const configured = await createExampleSite({ database: { kysely: content.db }, seed: false, baseUrl: 'https://harbour.example' });
      const res = await request(configured.app).get('/sitemap.xml').set('Host', 'elsewhere.example');
      assert.ok(res.text.includes('<loc>https://harbour.example/</loc>'));
      assert.doesNotMatch(res.text, /elsewhere/);
      await configured.close();
    });

    it('serves the media it advertises: download_url with the medium\'s type and size, and the inline image', async () => {
      const json = (await (await get(`${origin}/api/agent/resource/${DEMO.image}`)).json()) as { result: { medium: { download_url: string; mime: string; size: number } } };
      const { download_url: url, mime, size } = json.result.medium;
      assert.ok(url.startsWith(`${origin}/media/attachment/`), url);
      for (const method of ['HEAD', 'GET']) {
        const res = await fetch(url, { method, redirect: 'manual' });
        assert.equal(res.status, 200, method);
        assert.equal(res.headers.get('content-type'), mime);
        assert.equal(Number(res.headers.get('content-length')), size);
        if (method === 'GET') assert.deepEqual(Buffer.from(await res.arrayBuffer()), readFileSync(path.resolve('example-site/media/attachment/harbour-dawn.png')));
      }
      const inline = await get(`${origin}/media/inline/harbour-small.png`);
      assert.equal(inline.status, 200);
      assert.equal(inline.headers.get('content-type'), 'image/png');
      assert.equal((await get(`${origin}/media/attachment/no-such.png`)).status, 404);
      assert.equal((await get(`${origin}/media/../package.json`)).status, 404);
    });

    it('crawl: the Link header and head of /, llms.txt, the API catalog, /api-help, the sitemap and every public demo resource\'s Markdown', async (t) => {
      const sources: Sources = new Map();
      const foreign = new Set<string>();
      const endpoints = new Set<string>();
      const found = (raw: string, documentUrl: string, from: string, rel = '') => {
        let url: URL;
        try {
          url = new URL(raw, documentUrl);
        } catch {
          sources.set(`(unparsable) ${raw}`, new Set([from]));
          return;
        }
        url.hash = '';
        if (url.origin !== origin) {
          foreign.add(url.href);
          return;
        }
        if (isEndpoint(rel)) endpoints.add(url.href);
        const set = sources.get(url.href) ?? new Set<string>();
        set.add(from);
        sources.set(url.href, set);
      };

      // The home page: its merged Link header and every link of its HTML (head and body).
      const home = await get(`${origin}/`, 'text/html');
      assert.equal(home.status, 200);
      const homeHeaderLinks = parseLinkHeaders(home.headers.get('link') ? [home.headers.get('link')!] : []);
      assert.ok(homeHeaderLinks.length >= 5, 'site-level links on /');
      for (const l of homeHeaderLinks) found(l.href, `${origin}/`, 'Link header of /', l.rel);
      const homeHtml = await home.text();
      const headEnd = homeHtml.indexOf('</head>');
      const headLinks = linkElements(homeHtml.slice(0, headEnd));
      assert.ok(headLinks.length >= 5, '<link> elements in the head of /');
      for (const l of headLinks) found(l.href, `${origin}/`, '<head> of /', l.rel);
      for (const href of htmlLinks(homeHtml.slice(headEnd))) found(href, `${origin}/`, 'body of /');

      // llms.txt, by the reference grammar: every item of every section.
      const llms = await (await get(`${origin}/llms.txt`)).text();
      const llmsDoc = parseLlmsFile(llms);
      assert.ok(llmsDoc.summary, 'the reference parser keeps the summary');
      const llmsItems = Object.values(llmsDoc.sections).flat();
      for (const i of llmsItems) found(i.url, `${origin}/llms.txt`, 'llms.txt');
      for (const href of markdownLinks(llmsDoc.info)) found(href, `${origin}/llms.txt`, 'llms.txt notes');

      // The API catalog: every href and anchor.
      const catalog = (await (await get(`${origin}/.well-known/api-catalog`)).json()) as unknown;
      const catalogLinks = jsonLinks(catalog);
      assert.ok(catalogLinks.length >= 5);
      for (const href of catalogLinks) found(href, `${origin}/.well-known/api-catalog`, 'API catalog');

      // /api-help: every href and src.
      const help = await (await get(`${origin}/api-help`)).text();
      for (const href of htmlLinks(help)) found(href, `${origin}/api-help`, '/api-help');

      // The sitemap: every loc.
      const sitemap = await (await get(`${origin}/sitemap.xml`)).text();
      for (const m of sitemap.matchAll(/<loc>([^<]*)<\/loc>/g)) found(decodeHtml(m[1]!), `${origin}/sitemap.xml`, 'sitemap');
      for (const m of sitemap.matchAll(/<xhtml:link rel="alternate" hreflang="[^"]*" href="([^"]*)"\/>/g)) found(decodeHtml(m[1]!), `${origin}/sitemap.xml`, 'sitemap alternate');

      // The Markdown of every public demo resource with a name (in both languages) and every Markdown
      // URL found above: the front matter's url and every link and image in the text.
      const named = await content.db.selectFrom('rsc as r').select('r.id').where('r.name', 'is not', null).where(anonymousVisible('r')).execute();
      const markdownUrls = new Set<string>(named.flatMap((r) => ['en', 'nl'].map((l) => `${origin}/agent/resource/${r.id}/markdown?language=${l}`)));
      for (const url of sources.keys()) if (/\/agent\/resource\/[^/]+\/markdown/.test(url)) markdownUrls.add(url);
      await pool([...markdownUrls], 4, async (url) => {
        const res = await get(url, 'text/markdown');
        assert.equal(res.status, 200, url);
        const md = await res.text();
        const url0 = frontMatter(md).url;
        assert.equal(typeof url0, 'string', `front matter url in ${url}`);
        found(url0 as string, url, 'Markdown front matter');
        for (const href of markdownLinks(md)) found(href, url, `Markdown ${new URL(url).pathname}`);
      });
      // The dead links seen before are now found and resolve below.
      for (const p of ['/media/inline/harbour-small.png', '/media/attachment/harbour-dawn.png', '/sitemap.xml']) assert.ok(sources.has(`${origin}${p}`), p);

      // Check every same-origin link with HEAD and GET (no redirects followed); an endpoint by its protocol.
      const failures: string[] = [];
      const urls = [...sources.keys()].sort();
      await pool(urls, 6, async (url) => {
        if (url.startsWith('(unparsable)')) {
          failures.push(url);
          return;
        }
        if (endpoints.has(url)) {
          try {
            const client = await connectMcp(url);
            const { tools } = await client.listTools();
            await client.close();
            if (!tools.length) failures.push(`${url} (MCP: no tools)`);
          } catch (error) {
            failures.push(`${url} (MCP: ${(error as Error).message})`);
          }
          return;
        }
        const headRes = await fetch(url, { method: 'HEAD', redirect: 'manual' });
        const getRes = await get(url);
        await getRes.arrayBuffer();
        if (headRes.status < 200 || headRes.status > 299 || getRes.status < 200 || getRes.status > 299) {
          failures.push(`${url} (HEAD ${headRes.status}, GET ${getRes.status}) from ${[...sources.get(url)!].join(', ')}`);
        }
      });

      t.diagnostic(`crawled ${urls.length} distinct same-origin links (${markdownUrls.size} Markdown documents read), ${(urls.length - endpoints.size) * 2} HEAD/GET requests`);
      t.diagnostic(`other origins, not followed: ${[...foreign].sort().join(', ') || 'none'}`);
      t.diagnostic(`protocol endpoints checked by their protocol: ${[...endpoints].join(', ') || 'none'}`);
      assert.deepEqual(failures.sort(), [], 'every same-origin link answers 2xx to HEAD and GET (an endpoint, its protocol)');
      assert.ok(sources.has(`${origin}/api/agent`), "the API catalog's anchor and item (the API root) were checked");
      assert.ok(urls.length > 100, 'the crawl reached the site');
    });
  });
}
