import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';
import {
  BROWSER_ACCEPT,
  FETCHKIT_ACCEPT,
  WEBSUB_HUB,
  fetchPage,
  headerLines,
  parseLinkHeaders,
  probeConventionalPaths,
  rawRequest,
  startHostApp,
  type DiscoveredLink,
  type FetchKitPage,
  type HostApp,
  analyze,
} from './support/fetchkit.js';

const SITE_RELS = ['api-catalog', 'service-desc', 'service-doc', 'describedby', 'ard'];
const ADMIN = { cookie: 'session=admin' };

const alternates = (links: DiscoveredLink[]) => links.filter((l) => l.rel === 'alternate' && l.type !== 'text/html').map((l) => l.type).sort();
const rels = (links: DiscoveredLink[]) => links.map((l) => l.rel);

/** Header links and head links carry the same set (same href, rel, type). */
function assertSameLinks(page: FetchKitPage): void {
  const key = (l: DiscoveredLink) => `${l.rel} ${l.href} ${l.type ?? ''}`;
  const ours = (l: DiscoveredLink) => SITE_RELS.includes(l.rel) || l.rel === 'alternate';
  assert.deepEqual(page.headerLinks.filter(ours).map(key).sort(), page.headLinks.filter(ours).map(key).sort());
}

for (const backend of surfaceBackends) {
  for (const flavour of ['express5', 'express4'] as const) {
    describe(`FetchKit-style client on a ${flavour} host [${backend.name}]`, () => {
      let demo: DemoDatabase;
      let host: HostApp;
      before(async () => {
        demo = await openDemoDatabase(backend);
        await analyze(demo.db);
        host = await startHostApp(demo.db, {}, flavour);
      });
      after(async () => {
        await host?.close();
        await demo?.close();
      });

      it('a public page: site links and both alternates, in one Link header and in <head>', async () => {
        const page = await fetchPage(`${host.origin}/page/${DEMO.welcome}`);
        assert.equal(page.status, 200);
        assert.match(page.contentType, /^text\/html/);
        assert.equal(page.linkHeaderLines.length, 1, 'one merged Link header');
        for (const rel of SITE_RELS) assert.ok(rels(page.headerLinks).includes(rel), `header rel=${rel}`);
        assert.deepEqual(alternates(page.headerLinks), ['application/json', 'text/markdown']);
        assert.deepEqual(alternates(page.headLinks), ['application/json', 'text/markdown']);
        assertSameLinks(page);
        for (const l of page.headerLinks) assert.match(l.href, /^https?:\/\//, 'absolute');
        const md = page.headerLinks.find((l) => l.rel === 'alternate' && l.type === 'text/markdown')!;
        assert.equal(md.href, `${host.origin}/agent/resource/${DEMO.welcome}/markdown?language=en`);
        const json = page.headerLinks.find((l) => l.rel === 'alternate' && l.type === 'application/json')!;
        assert.equal(json.href, `${host.origin}/api/agent/resource/${DEMO.welcome}?language=en`);
        // The JSON alternate really answers.
        assert.equal((await rawRequest(json.href)).status, 200);
      });

      it("the host's WebSub value is kept exactly once", async () => {
        for (const path of [`/page/${DEMO.welcome}`, `/custom/${DEMO.welcome}`]) {
          const page = await fetchPage(`${host.origin}${path}`);
          const hubs = page.headerLinks.filter((l) => l.rel === 'hub');
          assert.equal(hubs.length, 1, path);
          assert.equal(hubs[0]!.href, /<([^>]+)>/.exec(WEBSUB_HUB)![1]);
        }
        const page = await fetchPage(`${host.origin}/page/${DEMO.welcome}`);
        assert.equal(page.headerLinks.filter((l) => l.rel === 'self').length, 1);
      });

      it('head signals: <link> and <meta> in <head>, nothing in the body', async () => {
        const page = await fetchPage(`${host.origin}/page/${DEMO.welcome}`);
        const metas = Object.fromEntries(page.metas.map((m) => [m.name, m.content]));
        assert.equal(metas.llms, `${host.origin}/llms.txt`);
        assert.equal(metas['api-catalog'], `${host.origin}/.well-known/api-catalog`);
        assert.equal(metas['service-desc'], `${host.origin}/openapi.json`);
        assert.doesNotMatch(page.bodyHtml, /llms\.txt|api-help|openapi|markdown/);
      });

      it('HEAD-probes the ten conventional paths: llms.txt, api-catalog and the Agent Skills index by a direct 2xx, the rest 404', async () => {
        const probes = await probeConventionalPaths(host.origin);
        assert.equal(probes.length, 10);
        const published = ['/.well-known/agent-skills/index.json', '/.well-known/api-catalog', '/llms.txt'];
        for (const p of probes) assert.equal(p.status, published.includes(p.path) ? 200 : 404, p.path);
        assert.deepEqual(probes.filter((p) => p.verified).map((p) => p.path).sort(), published);
      });

      for (const [label, name] of [
        ['private', DEMO.private],
        ['unpublished', DEMO.unpublished],
        ['scheduled', DEMO.scheduled],
        ['noindex', DEMO.noindex],
        ['in a noindex category', DEMO.pressRelease],
      ] as const) {
        it(`no alternates on a ${label} page, anonymous or signed in as administrator`, async () => {
          for (const headers of [{}, ADMIN]) {
            for (const path of [`/page/${name}`, `/custom/${name}`]) {
              const page = await fetchPage(`${host.origin}${path}`, headers);
              assert.deepEqual(alternates(page.headerLinks), [], `${path} ${JSON.stringify(headers)} header`);
              assert.deepEqual(alternates(page.headLinks), [], `${path} ${JSON.stringify(headers)} head`);
              if (page.status === 200) for (const rel of SITE_RELS) assert.ok(rels(page.headerLinks).includes(rel), rel);
            }
          }
        });
      }

      it('the administrator really sees the private page (the host ACL), still without alternates', async () => {
        const anonymous = await fetchPage(`${host.origin}/page/${DEMO.private}`);
        const admin = await fetchPage(`${host.origin}/page/${DEMO.private}`, ADMIN);
        assert.equal(anonymous.status, 404);
        assert.equal(admin.status, 200);
        assert.deepEqual(alternates(admin.headerLinks), []);
      });

      it('a public page reached through a numeric id gets the same alternates', async () => {
        const id = await demo.id(DEMO.welcome);
        const page = await fetchPage(`${host.origin}/page/${id}`);
        assert.deepEqual(alternates(page.headerLinks), ['application/json', 'text/markdown']);
        assert.ok(page.headerLinks.some((l) => l.href === `${host.origin}/agent/resource/${id}/markdown?language=en`));
      });

      it('the home page carries the site-level links on GET and HEAD', async () => {
        for (const method of ['GET', 'HEAD']) {
          const res = await rawRequest(`${host.origin}/`, { method, headers: { accept: FETCHKIT_ACCEPT } });
          assert.deepEqual(rels(parseLinkHeaders(headerLines(res.rawHeaders, 'link'))), [...SITE_RELS, 'alternate'], method);
        }
      });

      it("the plugin's own API responses carry no site-level links", async () => {
        for (const path of ['/api/agent/search', '/api-help', '/llms.txt', '/openapi.json']) {
          const res = await rawRequest(`${host.origin}${path}`);
          assert.deepEqual(rels(parseLinkHeaders(headerLines(res.rawHeaders, 'link'))), [], path);
        }
      });

      describe('/id/{id} negotiation', () => {
        it('text/markdown → 303 to the absolute Markdown URL, with Vary: Accept', async () => {
          const id = await demo.id(DEMO.welcome);
          const res = await rawRequest(`${host.origin}/id/${id}`, { headers: { accept: 'text/markdown' } });
          assert.equal(res.status, 303);
          assert.equal(res.headers.location, `${host.origin}/agent/resource/${id}/markdown`);
          assert.match(String(res.headers.vary), /\bAccept\b/i);
        });
        it('application/json (or preferred by q-value) → 303 to the JSON read', async () => {
          const id = await demo.id(DEMO.welcome);
          for (const accept of ['application/json', 'text/html;q=0.5, application/json', 'text/markdown;q=0.4, application/json;q=0.9']) {
            const res = await rawRequest(`${host.origin}/id/${id}`, { headers: { accept } });
            assert.equal(res.status, 303, accept);
            assert.equal(res.headers.location, `${host.origin}/api/agent/resource/${id}`);
          }
          const md = await rawRequest(`${host.origin}/id/${id}`, { headers: { accept: 'application/json;q=0.5, text/markdown' } });
          assert.equal(md.headers.location, `${host.origin}/agent/resource/${id}/markdown`);
        });
        it('HEAD negotiates the same way', async () => {
          const id = await demo.id(DEMO.welcome);
          const res = await rawRequest(`${host.origin}/id/${id}`, { method: 'HEAD', headers: { accept: 'text/markdown' } });
          assert.equal(res.status, 303);
        });
        it('the language query is passed on', async () => {
          const id = await demo.id(DEMO.welcome);
          const res = await rawRequest(`${host.origin}/id/${id}?language=nl`, { headers: { accept: 'application/json' } });
          assert.equal(res.headers.location, `${host.origin}/api/agent/resource/${id}?language=nl`);
        });
        it("FetchKit's Accept, a browser's, */* and none fall through to the host's HTML", async () => {
          const id = await demo.id(DEMO.welcome);
          for (const headers of [{ accept: FETCHKIT_ACCEPT }, { accept: BROWSER_ACCEPT }, { accept: '*/*' }, {}, { accept: 'text/plain' }] as Record<string, string>[]) {
            const res = await rawRequest(`${host.origin}/id/${id}`, { headers });
            assert.equal(res.status, 200, JSON.stringify(headers));
            assert.match(String(res.headers['content-type']), /^text\/html/);
            assert.match(res.body, /entity/);
            assert.match(String(res.headers.vary), /\bAccept\b/i);
          }
        });
      });
    });
  }
}
