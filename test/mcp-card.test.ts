import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Browser } from 'playwright-core';
import { surfaceBackends } from './support/backends.js';
import { chromiumSkip, launchChromium } from './support/chromium.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { rawRequest, startHostApp, type HostApp } from './support/fetchkit.js';

const PRIMARY = '/mcp/server-card';
const ALIASES = ['/.well-known/mcp/server-card.json', '/.well-known/mcp/server-card'];
const CARD_PATHS = [PRIMARY, ...ALIASES];
const CARD_TYPE = 'application/mcp-server-card+json';
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
};

/** The vendored schemas (see the README beside each), compiled once with ajv's 2020-12 build. */
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const fixture = (path: string) => JSON.parse(readFileSync(new URL(`./fixtures/${path}`, import.meta.url), 'utf8')) as Record<string, unknown>;
ajv.addSchema(fixture('server-card/server-card.schema.json'), 'server-card.schema.json');
const ardSchema = fixture('ard/ard-entry.schema.json');
const aiCatalogSchema = fixture('ard/ai-catalog.schema.json');
ajv.addSchema(ardSchema);
const validateCard = ajv.getSchema('server-card.schema.json#/$defs/ServerCard')!;
const validateArdManifest = ajv.getSchema(`${String(ardSchema.$id)}#/$defs/ardManifest`)!;
const validateAiCatalog = ajv.compile(aiCatalogSchema);

type Validator = typeof validateCard;
function assertValid(validate: Validator, value: unknown, what: string): void {
  assert.ok(validate(value), `${what}: ${ajv.errorsText(validate.errors)}`);
}

const json = (body: string) => JSON.parse(body) as Record<string, any>;

function assertCors(headers: http.IncomingHttpHeaders, what: string): void {
  for (const [name, value] of Object.entries(CORS)) assert.equal(headers[name], value, `${what}: ${name}`);
  assert.equal(headers['access-control-allow-credentials'], undefined, `${what}: never with credentials`);
  assert.equal(headers['set-cookie'], undefined, what);
}

describe('the vendored schemas reject what they must', () => {
  const card = { $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json', name: 'org.example/mcp', version: '1.0.0', description: 'x' };
  it('a card with the v2 `$schema`, without a name or with a long description fails the server-card schema', () => {
    assertValid(validateCard, card, 'the minimal v1 card');
    assert.equal(validateCard({ ...card, $schema: 'https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json' }), false);
    assert.equal(validateCard({ ...card, name: undefined }), false);
    assert.equal(validateCard({ ...card, description: 'x'.repeat(101) }), false);
  });
  it('an ARD entry with both url and data, or without a type, fails the ARD manifest schema', () => {
    const entry = { identifier: 'urn:air:example.org:content:mcp', displayName: 'x', type: CARD_TYPE, url: 'https://example.org/mcp/server-card' };
    assertValid(validateArdManifest, { entries: [entry] }, 'a minimal manifest');
    assert.equal(validateArdManifest({ entries: [{ ...entry, data: {} }] }), false);
    assert.equal(validateArdManifest({ entries: [{ ...entry, type: undefined }] }), false);
    assert.equal(validateAiCatalog({ specVersion: '1.0', entries: [{ ...entry, identifier: 'urn:ai:example.org:x' }] }), false);
  });
});

for (const backend of surfaceBackends) {
  describe(`MCP server card, AI Catalog and ARD [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let on: HostApp;
    let off: HostApp;
    before(async () => {
      demo = await openDemoDatabase(backend);
      on = await startHostApp(demo.db, { mcp: true });
      off = await startHostApp(demo.db);
    });
    after(async () => {
      await on?.close();
      await off?.close();
      await demo?.close();
    });

    it('the card validates against the extension\'s schema and names the endpoint', async () => {
      const res = await rawRequest(`${on.origin}${PRIMARY}`, { headers: { accept: CARD_TYPE } });
      assert.equal(res.status, 200);
      const card = json(res.body);
      assertValid(validateCard, card, 'the served card');
      assert.equal(card.$schema, 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json');
      assert.deepEqual(card.remotes, [{ type: 'streamable-http', url: `${on.origin}/mcp` }]);
    });

    it('the card validates on a custom path, a public base URL and an IPv6 host', async () => {
      for (const options of [{ mcp: { path: '/agents/mcp' }, baseUrl: 'https://Docs.Example.ORG' }, { mcp: true, baseUrl: 'http://[::1]:8080' }]) {
        const host = await startHostApp(demo.db, options);
        try {
          const path = options.mcp === true ? PRIMARY : '/agents/mcp/server-card';
          const res = await rawRequest(`${host.origin}${path}`);
          assert.equal(res.status, 200, path);
          assertValid(validateCard, json(res.body), options.baseUrl);
          assert.equal((await rawRequest(`${host.origin}${ALIASES[0]}`)).body, res.body, 'the alias serves the same card');
          if (options.mcp !== true) assert.equal((await rawRequest(`${host.origin}${PRIMARY}`)).status, 404, 'only under the configured path');
        } finally {
          await host.close();
        }
      }
    });

    it('every card path answers the same bytes and ETag, with the card\'s media type and CORS headers', async () => {
      const answers = await Promise.all(CARD_PATHS.map((path) => rawRequest(`${on.origin}${path}`)));
      for (const [i, res] of answers.entries()) {
        const path = CARD_PATHS[i]!;
        assert.equal(res.status, 200, path);
        assert.equal(res.headers['content-type'], CARD_TYPE, path);
        assert.equal(res.headers['cache-control'], 'no-cache', path);
        assert.match(String(res.headers.etag), /^"[^"]+"$/, path);
        assert.equal(res.headers.location, undefined, path);
        assertCors(res.headers, path);
        assert.equal(res.body, answers[0]!.body, path);
        assert.equal(res.headers.etag, answers[0]!.headers.etag, path);
      }
    });

    it('an OPTIONS preflight is 204 with the CORS headers, no body and no credentials', async () => {
      for (const path of CARD_PATHS) {
        const res = await rawRequest(`${on.origin}${path}`, {
          method: 'OPTIONS',
          headers: { origin: 'http://localhost:9', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
        });
        assert.equal(res.status, 204, path);
        assert.equal(res.body, '');
        assertCors(res.headers, path);
        assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
        assert.equal(res.headers['access-control-max-age'], '7200');
      }
    });

    it('conditional GET and HEAD: 304 on a matching If-None-Match (CORS headers kept), 200 otherwise', async () => {
      for (const path of CARD_PATHS) {
        const get = await rawRequest(`${on.origin}${path}`);
        const etag = String(get.headers.etag);
        for (const method of ['GET', 'HEAD']) {
          const cached = await rawRequest(`${on.origin}${path}`, { method, headers: { 'if-none-match': etag, origin: 'http://localhost:9' } });
          assert.equal(cached.status, 304, `${method} ${path}`);
          assert.equal(cached.body, '');
          assert.equal(cached.headers.etag, etag);
          assertCors(cached.headers, `${method} ${path} 304`);
        }
        const stale = await rawRequest(`${on.origin}${path}`, { headers: { 'if-none-match': '"stale"' } });
        assert.equal(stale.status, 200);
        assert.equal(stale.body, get.body);
        const head = await rawRequest(`${on.origin}${path}`, { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(head.body, '');
        assert.equal(head.headers.etag, etag);
      }
    });

    it('other methods are 405 with `Allow: GET, HEAD, OPTIONS`', async () => {
      for (const path of CARD_PATHS) {
        for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
          const res = await rawRequest(`${on.origin}${path}`, { method });
          assert.equal(res.status, 405, `${method} ${path}`);
          assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
          assert.equal(json(res.body).error, 'method_not_allowed');
          assertCors(res.headers, `${method} ${path}`);
        }
      }
    });

    it('MCP off: no card at any path, OPTIONS included (the host\'s 404)', async () => {
      for (const path of CARD_PATHS) {
        for (const method of ['GET', 'OPTIONS']) {
          const res = await rawRequest(`${off.origin}${path}`, { method });
          assert.equal(res.status, 404, `${method} ${path}`);
          assert.equal(res.body, 'host 404');
          assert.equal(res.headers['access-control-allow-origin'], undefined);
        }
      }
    });

    it('/.well-known/ai-catalog.json is served as application/ai-catalog+json, /.well-known/ard.json as application/json', async () => {
      for (const host of [on, off]) {
        for (const method of ['GET', 'HEAD']) {
          const catalog = await rawRequest(`${host.origin}/.well-known/ai-catalog.json`, { method });
          assert.equal(catalog.status, 200);
          assert.equal(catalog.headers['content-type'], 'application/ai-catalog+json');
          const ard = await rawRequest(`${host.origin}/.well-known/ard.json`, { method });
          assert.equal(ard.headers['content-type'], 'application/json');
          assert.equal(catalog.body, ard.body);
        }
      }
    });

    it('both manifests validate against the ARD v0.91 manifest schema and the ai-catalog schema, MCP on and off', async () => {
      for (const [host, count] of [[on, 2], [off, 1]] as const) {
        for (const path of ['/.well-known/ard.json', '/.well-known/ai-catalog.json']) {
          const manifest = json((await rawRequest(`${host.origin}${path}`)).body);
          assertValid(validateArdManifest, manifest, path);
          assertValid(validateAiCatalog, manifest, path);
          assert.equal(manifest.specVersion, '1.0');
          assert.equal(manifest.entries.length, count);
          for (const entry of manifest.entries) {
            assert.ok(entry.representativeQueries.length >= 2 && entry.representativeQueries.length <= 5);
          }
        }
      }
      const [, mcp] = json((await rawRequest(`${on.origin}/.well-known/ard.json`)).body).entries;
      assert.equal(mcp.type, CARD_TYPE);
      assert.equal(mcp.url, `${on.origin}${PRIMARY}`, 'the entry points at the card under the endpoint');
    });
  });
}

describe('the card from a page on another origin, in a real browser (Debian Chromium)', { skip: chromiumSkip }, () => {
  let demo: DemoDatabase;
  let site: HostApp;
  let other: http.Server;
  let otherOrigin: string;
  let browser: Browser;
  before(async () => {
    demo = await openDemoDatabase(surfaceBackends[0]!);
    site = await startHostApp(demo.db, { mcp: true });
    other = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Another origin</title>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => other?.close(resolve));
    await site?.close();
    await demo?.close();
  });

  it('fetch() reads the card and its ETag, then revalidates with If-None-Match (a preflighted request) to a 304', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${otherOrigin}/`);
      const result = await page.evaluate(async (url) => {
        const first = await fetch(url, { headers: { accept: 'application/mcp-server-card+json' } });
        const etag = first.headers.get('etag');
        const card = (await first.json()) as { name: string; $schema: string };
        const again = await fetch(url, { headers: { 'if-none-match': etag ?? '' } });
        return { status: first.status, type: first.headers.get('content-type'), etag, card, revalidated: again.status, etagAgain: again.headers.get('etag') };
      }, `${site.origin}${PRIMARY}`);
      assert.notEqual(new URL(site.origin).origin, otherOrigin);
      assert.equal(result.status, 200);
      assert.equal(result.type, CARD_TYPE);
      assert.match(String(result.etag), /^"[^"]+"$/, 'ETag is exposed to the page');
      assert.equal(result.card.$schema, 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json');
      assert.equal(result.revalidated, 304);
      assert.equal(result.etagAgain, result.etag);
    } finally {
      await page.close();
    }
  });
});
