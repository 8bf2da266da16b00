import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { analyze, headerLines, rawRequest } from './support/fetchkit.js';
import { ACCEPT, linksByRel, startPageHost, type PageHost } from './support/page-host.js';
import { DEMO } from '../example-site/seed.js';
import { createExampleSite, type ExampleSite } from '../example-site/app.js';
import { adminCookie } from '../example-site/session.js';
import { createAgentDiscovery } from '../src/index.js';

const MARKDOWN = 'text/markdown; charset=utf-8';
const ADMIN = { cookie: 'session=admin' };
const PRIVATE_CACHE = 'private, max-age=0, must-revalidate';
const MARKDOWN_ACCEPTS = [ACCEPT.claudeCode, ACCEPT.cursor, ACCEPT.markdownOnly];
const HTML_ACCEPTS: (string | undefined)[] = [ACCEPT.browser, ACCEPT.fetchKit, ACCEPT.any, undefined, ACCEPT.markdownLower];

type Raw = Awaited<ReturnType<typeof rawRequest>>;

const get = (url: string, accept: string | undefined, extra: Record<string, string> = {}, method = 'GET'): Promise<Raw> =>
  rawRequest(url, { method, headers: { ...(accept === undefined ? {} : { accept }), ...extra } });

function assertVaryAccept(res: Raw, what: string): void {
  assert.match(String(res.headers.vary ?? ''), /\bAccept\b/i, `${what}: Vary: Accept`);
}

/** The one merged Link header of a response. */
function linkHeader(res: Raw): string {
  const lines = headerLines(res.rawHeaders, 'link');
  assert.equal(lines.length, 1, 'one merged Link header');
  return lines[0]!;
}

for (const backend of surfaceBackends) {
  describe(`Markdown on page URLs [${backend.name}]`, () => {
    let demo: DemoDatabase;
    const hosts: Record<string, PageHost> = {};
    let welcome: number;
    before(async () => {
      demo = await openDemoDatabase(backend);
      await analyze(demo.db);
      welcome = await demo.id(DEMO.welcome);
      hosts.express5 = await startPageHost(demo.db, 'express5');
      hosts.express4 = await startPageHost(demo.db, 'express4');
      hosts.off = await startPageHost(demo.db, 'express5', { markdownHome: false });
    });
    after(async () => {
      for (const host of Object.values(hosts)) await host.close();
      await demo?.close();
    });

    for (const flavour of ['express5', 'express4'] as const) {
      describe(`on an ${flavour} host`, () => {
        it('agents preferring Markdown get the Markdown route\'s body, private, with Content-Location and the Link header', async () => {
          const { origin } = hosts[flavour]!;
          const markdownUrl = `${origin}/agent/resource/${welcome}/markdown?language=en`;
          const dedicated = await get(markdownUrl, undefined);
          assert.equal(dedicated.status, 200);
          for (const accept of MARKDOWN_ACCEPTS) {
            const res = await get(`${origin}/en/page/${welcome}`, accept);
            assert.equal(res.status, 200, accept);
            assert.equal(res.headers['content-type'], MARKDOWN, accept);
            assert.equal(res.body, dedicated.body, `${accept}: the same body as the Markdown URL`);
            assert.equal(res.headers['content-language'], 'en');
            assert.equal(res.headers['content-location'], markdownUrl);
            assert.equal(res.headers['cache-control'], PRIVATE_CACHE);
            assert.match(String(res.headers.etag), /^"/, 'a strong ETag');
            assertVaryAccept(res, accept);
            const links = linksByRel(linkHeader(res));
            for (const rel of ['api-catalog', 'service-desc', 'service-doc', 'describedby', 'ard']) assert.ok(links[rel], `${accept}: rel=${rel}`);
            assert.equal(links.alternate?.url, markdownUrl);
          }
        });

        it('browsers, FetchKit, */*, no Accept and a lower Markdown q get the host\'s HTML, with Vary: Accept', async () => {
          const { origin } = hosts[flavour]!;
          for (const accept of HTML_ACCEPTS) {
            const res = await get(`${origin}/en/page/${welcome}`, accept);
            assert.equal(res.status, 200, String(accept));
            assert.match(String(res.headers['content-type']), /^text\/html/, String(accept));
            assert.match(res.body, new RegExp(`<h1>Page ${welcome} \\(en\\)</h1>`));
            assert.equal(res.headers['content-location'], undefined);
            assertVaryAccept(res, String(accept));
          }
        });

        it('HEAD answers like GET without a body; a matching If-None-Match gets 304', async () => {
          const { origin } = hosts[flavour]!;
          const url = `${origin}/en/page/${welcome}`;
          const full = await get(url, ACCEPT.claudeCode);
          const head = await get(url, ACCEPT.claudeCode, {}, 'HEAD');
          assert.equal(head.status, 200);
          assert.equal(head.body, '');
          for (const name of ['content-type', 'content-length', 'etag', 'content-location', 'cache-control', 'content-language', 'vary']) {
            assert.equal(head.headers[name], full.headers[name], name);
          }
          for (const method of ['GET', 'HEAD']) {
            const cond = await get(url, ACCEPT.cursor, { 'if-none-match': String(full.headers.etag) }, method);
            assert.equal(cond.status, 304, method);
            // As fetch() sends a conditional request.
            const fetchLike = await get(url, ACCEPT.cursor, { 'if-none-match': String(full.headers.etag), 'cache-control': 'no-cache', pragma: 'no-cache' }, method);
            assert.equal(fetchLike.status, 304, `${method} with no-cache`);
            assert.equal(cond.body, '');
            assertVaryAccept(cond, `304 ${method}`);
          }
          const htmlHead = await get(url, ACCEPT.browser, {}, 'HEAD');
          assert.match(String(htmlHead.headers['content-type']), /^text\/html/);
          assertVaryAccept(htmlHead, 'HTML HEAD');
        });

        // The host's own ACL hides private and unpublished pages (404) but not a scheduled one (200).
        for (const [label, name] of [['private', DEMO.private], ['unpublished', DEMO.unpublished], ['scheduled', DEMO.scheduled]] as const) {
          it(`a ${label} page falls through to the host unchanged (its own answer, or the administrator's HTML)`, async () => {
            const { origin } = hosts[flavour]!;
            const id = await demo.id(name);
            for (const path of [`/en/page/${id}`, `/custom/en/${id}`]) {
              const asBrowser = await get(`${origin}${path}`, ACCEPT.browser);
              const asAgent = await get(`${origin}${path}`, ACCEPT.claudeCode);
              assert.equal(asAgent.status, name === DEMO.scheduled ? 200 : 404, path);
              assert.equal(asAgent.status, asBrowser.status);
              assert.match(String(asAgent.headers['content-type']), /^text\/html/);
              assert.equal(asAgent.headers['content-type'], asBrowser.headers['content-type']);
              assert.equal(asAgent.body, asBrowser.body);
              const admin = await get(`${origin}${path}`, ACCEPT.claudeCode, ADMIN);
              assert.equal(admin.status, 200, `${path} admin`);
              assert.match(String(admin.headers['content-type']), /^text\/html/);
              assert.equal(admin.headers['cache-control'], undefined);
              assertVaryAccept(admin, `${path} admin`);
            }
          });
        }

        it('a missing resource and a reference that is not one fall through to the host', async () => {
          const { origin } = hosts[flavour]!;
          for (const ref of ['999999999', 'no_such_page', 'Not-A-Ref']) {
            const res = await get(`${origin}/en/page/${ref}`, ACCEPT.markdownOnly);
            assert.equal(res.status, 404, ref);
            assert.match(String(res.headers['content-type']), /^text\/html/);
          }
        });

        it('a public noindex page (and one in a noindex category) gets Markdown, without alternates', async () => {
          const { origin } = hosts[flavour]!;
          for (const name of [DEMO.noindex, DEMO.pressRelease]) {
            const id = await demo.id(name);
            const res = await get(`${origin}/en/page/${id}`, ACCEPT.claudeCode);
            assert.equal(res.status, 200, name);
            assert.equal(res.headers['content-type'], MARKDOWN);
            assert.equal(res.body, (await get(`${origin}/agent/resource/${id}/markdown?language=en`, undefined)).body);
            assert.equal(linksByRel(linkHeader(res)).alternate, undefined, `${name}: not advertised`);
          }
        });

        it('the Dutch page gets the Dutch Markdown; an unknown page language the default one', async () => {
          const { origin } = hosts[flavour]!;
          const nl = await get(`${origin}/nl/page/${welcome}`, ACCEPT.cursor);
          assert.equal(nl.status, 200);
          assert.equal(nl.headers['content-language'], 'nl');
          assert.match(nl.body, /^# Welkom op de voorbeeldsite/m);
          assert.equal(nl.headers['content-location'], `${origin}/agent/resource/${welcome}/markdown?language=nl`);
          assert.equal(nl.body, (await get(`${origin}/agent/resource/${welcome}/markdown?language=nl`, undefined)).body);
          const de = await get(`${origin}/de/page/${welcome}`, ACCEPT.cursor);
          assert.equal(de.headers['content-language'], 'en');
          assert.equal(de.headers['content-location'], `${origin}/agent/resource/${welcome}/markdown?language=en`);
          // A resource without Dutch text: the Markdown falls back to English, as its Markdown URL does.
          const englishOnly = await demo.id(DEMO.englishOnly);
          const fallback = await get(`${origin}/nl/page/${englishOnly}`, ACCEPT.claudeCode);
          assert.equal(fallback.headers['content-language'], 'en');
        });

        it('the one-argument resourceLinks and a custom controller negotiate the same way', async () => {
          const { origin } = hosts[flavour]!;
          const plain = await get(`${origin}/page/${welcome}`, ACCEPT.claudeCode);
          assert.equal(plain.headers['content-type'], MARKDOWN);
          assert.equal(plain.headers['content-language'], 'en');
          const custom = await get(`${origin}/custom/nl/${welcome}`, ACCEPT.claudeCode);
          assert.equal(custom.headers['content-type'], MARKDOWN);
          assert.equal(custom.headers['content-language'], 'nl');
          assertVaryAccept(custom, 'custom Markdown');
          const customHtml = await get(`${origin}/custom/nl/${welcome}`, ACCEPT.fetchKit);
          assert.match(String(customHtml.headers['content-type']), /^text\/html/);
          assertVaryAccept(customHtml, 'custom HTML');
        });

        it('/ gives agents preferring Markdown the llms.txt body; everyone else the host\'s home page', async () => {
          const { origin } = hosts[flavour]!;
          const llms = await get(`${origin}/llms.txt`, undefined);
          for (const accept of MARKDOWN_ACCEPTS) {
            const res = await get(`${origin}/`, accept);
            assert.equal(res.status, 200, accept);
            assert.equal(res.headers['content-type'], MARKDOWN);
            assert.equal(res.body, llms.body);
            assert.equal(res.headers['content-location'], `${origin}/llms.txt`);
            assert.equal(res.headers['cache-control'], PRIVATE_CACHE);
            assertVaryAccept(res, accept);
            // Scanners read the site-level links on `/` whatever they accept.
            assert.ok(linksByRel(linkHeader(res))['api-catalog']);
          }
          const head = await get(`${origin}/`, ACCEPT.markdownOnly, {}, 'HEAD');
          assert.equal(head.status, 200);
          assert.equal(head.body, '');
          assert.equal(head.headers['content-type'], MARKDOWN);
          const cond = await get(`${origin}/`, ACCEPT.markdownOnly, { 'if-none-match': String(head.headers.etag) });
          assert.equal(cond.status, 304);
          for (const accept of HTML_ACCEPTS) {
            const res = await get(`${origin}/`, accept);
            assert.match(String(res.headers['content-type']), /^text\/html/, String(accept));
            assert.match(res.body, /<h1>Home<\/h1>/);
            assertVaryAccept(res, String(accept));
          }
        });
      });
    }

    it('with markdownHome: false, / is always the host\'s home page', async () => {
      for (const accept of [...MARKDOWN_ACCEPTS, ACCEPT.browser]) {
        const res = await get(`${hosts.off!.origin}/`, accept);
        assert.equal(res.status, 200);
        assert.match(String(res.headers['content-type']), /^text\/html/, accept);
        assert.match(res.body, /<h1>Home<\/h1>/);
      }
      // Pages still negotiate: the option is only about the home page.
      assert.equal((await get(`${hosts.off!.origin}/en/page/${welcome}`, ACCEPT.claudeCode)).headers['content-type'], MARKDOWN);
    });

    it('/id/{id} negotiation keeps the language query', async () => {
      const { origin } = hosts.express5!;
      const res = await get(`${origin}/id/${welcome}?language=nl`, ACCEPT.claudeCode);
      assert.equal(res.status, 303);
      assert.equal(res.headers.location, `${origin}/agent/resource/${welcome}/markdown?language=nl`);
      assert.equal((await get(String(res.headers.location), undefined)).headers['content-language'], 'nl');
    });

    describe('the example site', () => {
      let site: ExampleSite;
      before(async () => {
        site = await createExampleSite({ database: { kysely: demo.db }, seed: false, baseUrl: 'https://harbour.example' });
      });
      after(() => site?.close());

      it('its Dutch page gives agents the Dutch Markdown, browsers the Dutch HTML', async () => {
        const md = await request(site.app).get(`/nl/page/${welcome}`).set('Accept', ACCEPT.claudeCode);
        assert.equal(md.status, 200);
        assert.equal(md.headers['content-type'], MARKDOWN);
        assert.equal(md.headers['content-language'], 'nl');
        assert.equal(md.headers['content-location'], `https://harbour.example/agent/resource/${welcome}/markdown?language=nl`);
        assert.match(md.text, /^# Welkom op de voorbeeldsite/m);
        const html = await request(site.app).get(`/nl/page/${welcome}`).set('Accept', ACCEPT.browser);
        assert.match(html.headers['content-type']!, /^text\/html/);
        assert.match(html.text, /<html lang="nl"/);
        assert.match(html.headers.vary!, /\bAccept\b/i);
        const alternates = [...html.text.matchAll(/<link rel="alternate"[^>]*>/g)].map((m) => m[0]).filter((l) => !l.includes('type="text/html"'));
        assert.equal(alternates.length, 2, 'the JSON and the Markdown (besides the language versions)');
        for (const l of alternates) assert.match(l, /\?language=nl" type="[^"]+" hreflang="nl">/);
      });

      it('an unknown language segment is not a page: the host\'s 404, in Markdown for an agent (agent.markdownNotFound)', async () => {
        const res = await request(site.app).get(`/de/page/${welcome}`).set('Accept', ACCEPT.claudeCode);
        assert.equal(res.status, 404);
        assert.match(res.headers['content-type']!, /^text\/markdown/);
        assert.match(res.text, /^# Not found\n/);
        const html = await request(site.app).get(`/de/page/${welcome}`).set('Accept', ACCEPT.browser);
        assert.equal(html.status, 404);
        assert.match(html.headers['content-type']!, /^text\/html/);
      });

      it('the administrator sees a private page in HTML even with an agent Accept', async () => {
        const id = await demo.id(DEMO.private);
        const res = await request(site.app).get(`/en/page/${id}`).set('Accept', ACCEPT.claudeCode).set('Cookie', adminCookie(site.session));
        assert.equal(res.status, 200);
        assert.match(res.headers['content-type']!, /^text\/html/);
        const anonymous = await request(site.app).get(`/en/page/${id}`).set('Accept', ACCEPT.claudeCode);
        assert.equal(anonymous.status, 404);
      });

      it('/ answers agents with llms.txt as Markdown; /id/{id}?language=nl leads browsers to the Dutch page', async () => {
        const home = await request(site.app).get('/').set('Accept', ACCEPT.markdownOnly);
        assert.equal(home.headers['content-type'], MARKDOWN);
        assert.equal(home.text, (await request(site.app).get('/llms.txt')).text);
        const redirect = await request(site.app).get(`/id/${welcome}?language=nl`).set('Accept', ACCEPT.browser);
        assert.equal(redirect.status, 302);
        assert.equal(redirect.headers.location, `/nl/page/${welcome}`);
      });
    });
  });
}

describe('options of page negotiation', () => {
  it('markdownHome must be a boolean', async () => {
    await assert.rejects(
      createAgentDiscovery({ siteTitle: 'S', database: { memory: true }, markdownHome: 'yes' as unknown as boolean }),
      /express-agent-discovery: invalid options: option "markdownHome": /,
    );
  });
});
