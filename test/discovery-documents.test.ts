import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { analyze, headerLines, rawRequest, startHostApp, type HostApp } from './support/fetchkit.js';
import { parseLlmsFile } from './support/llms-txt-reference.js';
import { renderMarkdown } from './support/published-text.js';

const DOCUMENTS = {
  '/api-help': /^text\/html; charset=utf-8$/,
  '/openapi.json': /^application\/openapi\+json$/,
  '/.well-known/api-catalog': /^application\/linkset\+json; profile="https:\/\/www\.rfc-editor\.org\/info\/rfc9727"$/,
  '/llms.txt': /^text\/plain; charset=utf-8$/,
  '/.well-known/ard.json': /^application\/json$/,
} as const;

/**
 * llms.txt as the llmstxt.org reference parser reads it (every section line a link item, else it
 * throws), plus what that parser leaves unchecked: exactly one H1 and one `>` line before the sections,
 * and a summary it actually kept.
 */
function parseLlmsTxt(text: string) {
  const doc = parseLlmsFile(text);
  const start = text.split(/^##/m)[0]!;
  assert.equal((start.match(/^# /gm) ?? []).length, 1, 'exactly one H1');
  assert.equal((start.match(/^>/gm) ?? []).length, 1, 'exactly one summary line');
  assert.ok(doc.summary !== null, 'the reference parser keeps the summary');
  assert.ok(doc.info.trim(), 'notes between the summary and the sections');
  return doc;
}

const json = (body: string) => JSON.parse(body) as Record<string, any>;

for (const backend of surfaceBackends) {
  describe(`discovery documents [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let host: HostApp;
    before(async () => {
      demo = await openDemoDatabase(backend);
      await analyze(demo.db);
      host = await startHostApp(demo.db, { sitemapUrl: '/sitemap.xml' });
    });
    after(async () => {
      await host?.close();
      await demo?.close();
    });

    for (const [docPath, contentType] of Object.entries(DOCUMENTS)) {
      describe(docPath, () => {
        it('GET: 200, its media type, no-cache, a strong ETag, no cookie', async () => {
          const res = await rawRequest(`${host.origin}${docPath}`);
          assert.equal(res.status, 200);
          assert.match(String(res.headers['content-type']), contentType);
          assert.equal(res.headers['cache-control'], 'no-cache');
          assert.match(String(res.headers.etag), /^"[^"]+"$/, 'strong ETag');
          assert.equal(res.headers['set-cookie'], undefined);
          assert.ok(res.body.length > 0);
        });
        it('HEAD: the same status and headers, no body', async () => {
          const get = await rawRequest(`${host.origin}${docPath}`);
          const head = await rawRequest(`${host.origin}${docPath}`, { method: 'HEAD' });
          assert.equal(head.status, get.status);
          assert.equal(head.body, '');
          for (const name of ['content-type', 'content-length', 'etag', 'cache-control', 'link']) {
            assert.equal(head.headers[name], get.headers[name], name);
          }
        });
        it('If-None-Match with the ETag: 304 on GET and HEAD', async () => {
          const { headers } = await rawRequest(`${host.origin}${docPath}`);
          for (const method of ['GET', 'HEAD']) {
            const res = await rawRequest(`${host.origin}${docPath}`, { method, headers: { 'if-none-match': String(headers.etag) } });
            assert.equal(res.status, 304, method);
            assert.equal(res.body, '');
          }
          const stale = await rawRequest(`${host.origin}${docPath}`, { headers: { 'if-none-match': '"stale"' } });
          assert.equal(stale.status, 200);
        });
        it('other methods: 405 with Allow: GET, HEAD', async () => {
          for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
            const res = await rawRequest(`${host.origin}${docPath}`, { method });
            assert.equal(res.status, 405, method);
            assert.equal(res.headers.allow, 'GET, HEAD');
          }
        });
        it('no redirect, and the same ETag for the same content', async () => {
          const a = await rawRequest(`${host.origin}${docPath}`);
          const b = await rawRequest(`${host.origin}${docPath}`);
          assert.equal(a.headers.location, undefined);
          assert.equal(a.headers.etag, b.headers.etag);
        });
      });
    }

    it('other /.well-known paths fall through to the host (404)', async () => {
      for (const p of ['/.well-known/mcp/server-card.json', '/.well-known/anything', '/.well-known/ard.json/x', '/.well-known/']) {
        const res = await rawRequest(`${host.origin}${p}`, { method: 'HEAD' });
        assert.equal(res.status, 404, p);
      }
      const get = await rawRequest(`${host.origin}/.well-known/security.txt`);
      assert.equal(get.body, 'host 404');
    });

    describe('/.well-known/api-catalog', () => {
      it('is an RFC 9264 linkset with the API context and the catalog item', async () => {
        const res = await rawRequest(`${host.origin}/.well-known/api-catalog`);
        const doc = json(res.body);
        assert.deepEqual(Object.keys(doc), ['linkset']);
        const api = doc.linkset.find((c: any) => c['service-desc']);
        assert.equal(api['service-desc'][0].href, `${host.origin}/openapi.json`);
        assert.equal(api['service-doc'][0].href, `${host.origin}/api-help`);
        assert.equal(api['service-meta'][0].href, `${host.origin}/.well-known/ard.json`);
        const self = doc.linkset.find((c: any) => c.anchor === `${host.origin}/.well-known/api-catalog`);
        assert.deepEqual(self.item, [{ href: api.anchor }]);
        for (const ctx of doc.linkset) for (const [rel, targets] of Object.entries(ctx)) if (rel !== 'anchor') assert.ok(Array.isArray(targets), rel);
      });
      it('GET and HEAD carry Link rel="api-catalog" to itself', async () => {
        for (const method of ['GET', 'HEAD']) {
          const res = await rawRequest(`${host.origin}/.well-known/api-catalog`, { method });
          assert.deepEqual(headerLines(res.rawHeaders, 'link'), [`<${host.origin}/.well-known/api-catalog>; rel="api-catalog"`]);
        }
      });
    });

    describe('/llms.txt', () => {
      it('follows the llmstxt.org format as the reference parser reads it', async () => {
        const doc = parseLlmsTxt((await rawRequest(`${host.origin}/llms.txt`)).body);
        assert.equal(doc.title, 'Example Site');
        assert.equal(doc.summary, 'Articles about harbours and open data.');
        for (const items of Object.values(doc.sections)) for (const item of items) assert.match(item.url, /^http:\/\/127\.0\.0\.1:\d+\//);
        assert.ok(doc.sections.API!.some((i) => i.url === `${host.origin}/openapi.json`));
        assert.ok(doc.sections.API!.some((i) => i.url === `${host.origin}/api-help`));
        assert.deepEqual(doc.sections.Optional!.map((i) => i.url), [`${host.origin}/sitemap.xml`]);
      });
      it('one working search link per public, indexable top-level category, nothing private or noindex', async () => {
        const text = (await rawRequest(`${host.origin}/llms.txt`)).body;
        const doc = parseLlmsTxt(text);
        const cats = doc.sections['Browse by category']!;
        assert.deepEqual(cats.map((c) => new URL(c.url).searchParams.get('cat')), ['text', 'person', 'keyword', 'image']);
        for (const c of cats) {
          const res = await rawRequest(c.url);
          assert.equal(res.status, 200, c.url);
          assert.ok(json(res.body).result.items.length > 0, `${c.url} finds something`);
        }
        assert.doesNotMatch(text, /press_release|Press releases|internal_notes|Internal notes|meta\b|SECRET/);
      });
    });

    describe('/.well-known/ard.json', () => {
      it('one entry for the content API (SPEC §9), no trust manifest by default', async () => {
        const doc = json((await rawRequest(`${host.origin}/.well-known/ard.json`)).body);
        assert.equal(doc.entries.length, 1);
        const [entry] = doc.entries;
        assert.equal(entry.identifier, 'urn:air:agent.localhost:content:api', 'an IP host gets the reserved placeholder');
        assert.equal(entry.type, 'application/openapi+json');
        assert.equal(entry.url, `${host.origin}/openapi.json`);
        assert.ok(entry.displayName && entry.description);
        assert.ok(entry.representativeQueries.length >= 2 && entry.representativeQueries.length <= 5);
        assert.ok(!Number.isNaN(Date.parse(entry.updatedAt)));
        assert.equal(entry.trustManifest, undefined);
      });
      it('identifier from the configured base URL: host lower-case, no port; configurable namespace and trust identity', async () => {
        const other = await startHostApp(demo.db, {
          baseUrl: 'https://Docs.Example.ORG:8443',
          ard: { namespace: 'news', name: 'reader', representativeQueries: ['a', 'b'], identity: { trustManifestUrl: 'https://docs.example.org/trust.json' } },
        });
        try {
          const doc = json((await rawRequest(`${other.origin}/.well-known/ard.json`)).body);
          assert.equal(doc.entries[0].identifier, 'urn:air:docs.example.org:news:reader');
          assert.equal(doc.entries[0].url.toLowerCase(), 'https://docs.example.org:8443/openapi.json');
          assert.deepEqual(doc.entries[0].representativeQueries, ['a', 'b']);
          assert.equal(doc.entries[0].trustManifest.identity, 'https://docs.example.org/trust.json');
        } finally {
          await other.close();
        }
      });
    });

    describe('/api-help', () => {
      it('links to every discovery document and the sitemap, and explains each operation', async () => {
        const html = (await rawRequest(`${host.origin}/api-help`)).body;
        for (const p of ['/openapi.json', '/.well-known/api-catalog', '/llms.txt', '/.well-known/ard.json', '/sitemap.xml']) {
          assert.ok(html.includes(`href="${host.origin}${p}"`), p);
        }
        const openapi = json((await rawRequest(`${host.origin}/openapi.json`)).body);
        for (const [p, item] of Object.entries<any>(openapi.paths)) {
          assert.ok(html.includes(`id="${item.get.operationId}"`), item.get.operationId);
          assert.ok(html.includes(`${p}</code>`), p);
        }
      });
      it('has a clickable full-text search example that finds real content', async () => {
        const html = (await rawRequest(`${host.origin}/api-help`)).body;
        const hrefs = [...html.matchAll(/href="([^"]*\/api\/agent\/search\?[^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
        const text = hrefs.find((h) => new URL(h).searchParams.has('text'));
        assert.ok(text, 'a text search example');
        for (const href of hrefs) {
          const res = await rawRequest(href);
          assert.equal(res.status, 200, href);
          assert.ok(json(res.body).result.items.length > 0, `${href} finds something`);
        }
      });
      it('a site override of agent_api_help wins over the plugin template', async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'ead-help-'));
        writeFileSync(path.join(dir, 'agent_api_help.njk'), '<p>Custom help for {{ discovery.site.title }}: {{ discovery.operations.length }} operations, {{ "<b>" }}</p>');
        const other = await startHostApp(demo.db, { templateDirs: [dir] });
        try {
          const res = await rawRequest(`${other.origin}/api-help`);
          assert.match(res.body, /^<p>Custom help for Example Site: \d+ operations, &lt;b&gt;<\/p>$/);
        } finally {
          await other.close();
          rmSync(dir, { recursive: true });
        }
      });
      it('a template that cannot render is a 503 with no-store, never an empty 200', async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'ead-help-'));
        writeFileSync(path.join(dir, 'agent_api_help.njk'), '{% for x in %}broken');
        const other = await startHostApp(demo.db, { templateDirs: [dir] });
        try {
          const res = await rawRequest(`${other.origin}/api-help`);
          assert.equal(res.status, 503);
          assert.equal(res.headers['cache-control'], 'no-store');
          assert.ok(res.headers['retry-after']);
        } finally {
          await other.close();
          rmSync(dir, { recursive: true });
        }
      });
    });

    describe('absolute URLs', () => {
      it('use the configured base URL', async () => {
        const other = await startHostApp(demo.db, { baseUrl: 'https://www.example.org' });
        try {
          const catalog = json((await rawRequest(`${other.origin}/.well-known/api-catalog`)).body);
          assert.equal(catalog.linkset[0]['service-desc'][0].href, 'https://www.example.org/openapi.json');
          const llms = (await rawRequest(`${other.origin}/llms.txt`)).body;
          assert.doesNotMatch(llms, /127\.0\.0\.1/);
        } finally {
          await other.close();
        }
      });
      it('X-Forwarded-Host and -Proto count only when trust proxy says so', async () => {
        const forwarded = { 'x-forwarded-host': 'public.example.com', 'x-forwarded-proto': 'https' };
        const untrusted = json((await rawRequest(`${host.origin}/.well-known/ard.json`, { headers: forwarded })).body);
        assert.equal(untrusted.entries[0].url, `${host.origin}/openapi.json`);
        const proxied = await startHostApp(demo.db);
        try {
          (proxied.server.listeners('request')[0] as unknown as { set(k: string, v: unknown): void }).set('trust proxy', 'loopback');
          const trusted = json((await rawRequest(`${proxied.origin}/.well-known/ard.json`, { headers: forwarded })).body);
          assert.equal(trusted.entries[0].url, 'https://public.example.com/openapi.json');
          assert.equal(trusted.entries[0].identifier, 'urn:air:public.example.com:content:api');
        } finally {
          await proxied.close();
        }
      });
    });

    describe('hostile site title and description', () => {
      const title = 'Evil <script>alert("t")</script> "Site" \'x\'\r\nX-Injected: yes';
      const description = 'Desc </p><script>alert(1)</script> & "quotes"\r\nSet-Cookie: a=b\n## Not a section';
      let evil: HostApp;
      before(async () => {
        evil = await startHostApp(demo.db, { siteTitle: title, description });
      });
      after(() => evil.close());

      it('every document answers 200 with no injected header', async () => {
        for (const p of [...Object.keys(DOCUMENTS), '/', `/page/welcome`]) {
          const res = await rawRequest(`${evil.origin}${p}`);
          assert.equal(res.status, 200, p);
          assert.equal(res.headers['x-injected'], undefined);
          assert.equal(res.headers['set-cookie'], undefined);
        }
      });
      it('the API help page escapes them', async () => {
        const html = (await rawRequest(`${evil.origin}/api-help`)).body;
        assert.doesNotMatch(html, /<script>alert/);
        assert.match(html, /Evil &lt;script&gt;alert\(&quot;t&quot;\)&lt;\/script&gt; &quot;Site&quot; &#39;x&#39;/);
        assert.match(html, /Desc &lt;\/p&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;quotes&quot;/);
      });
      it('llms.txt keeps one H1 and one summary line', async () => {
        const doc = parseLlmsTxt((await rawRequest(`${evil.origin}/llms.txt`)).body);
        // The site title is plain text like the description: escaped, one line.
        assert.equal(doc.title, 'Evil \\<script>alert("t")\\</script> "Site" \'x\' X-Injected: yes');
        // The description is plain text: Markdown-escaped, no tag in it reaches an agent as HTML.
        assert.equal(doc.summary, 'Desc \\</p>\\<script>alert(1)\\</script> & "quotes" Set-Cookie: a=b ## Not a section');
        assert.equal(doc.sections['Not a section'], undefined);
      });
      it('llms.txt and a category llms.txt render with no element the title or description made', async () => {
        const root = (await rawRequest(`${evil.origin}/llms.txt`)).body;
        const category = parseLlmsTxt(root).sections['Category indexes']![0]!.url;
        const scoped = await rawRequest(category.replace(/^https?:\/\/[^/]+/, evil.origin));
        assert.equal(scoped.status, 200, category);
        for (const [name, body] of [['llms.txt', root], [category, scoped.body]] as const) {
          const { elements, text } = renderMarkdown(body);
          assert.ok(!elements.includes('script'), `${name}: ${elements.join(' ')}`);
          assert.match(text, /Evil <script>alert\("t"\)<\/script> "Site"/, `${name} reads as the title typed`);
        }
      });
      it('JSON documents carry them as data', async () => {
        const ard = json((await rawRequest(`${evil.origin}/.well-known/ard.json`)).body);
        assert.match(ard.entries[0].displayName, /^Evil <script>/);
        assert.doesNotMatch(ard.entries[0].displayName, /[\r\n]/);
      });
    });
  });
}
