import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { analyze, fetchPage, headerLines, parseLinkHeaders, probeConventionalPaths, rawRequest, startHostApp, type HostApp } from './support/fetchkit.js';
import { callOk, connectMcp } from './support/mcp-client.js';
import { DEMO } from '../example-site/seed.js';

const CARD = '/.well-known/mcp/server-card.json';
/** Where the extension reserves the card: under the endpoint. */
const PRIMARY_CARD = '/mcp/server-card';
const json = (body: string) => JSON.parse(body) as Record<string, any>;

/** The entry rules of an ARD manifest: every entry, whatever it points at. */
async function assertArdEntry(entry: Record<string, any>, host: string): Promise<void> {
  assert.match(entry.identifier, new RegExp(`^urn:air:${host.replace(/\./g, '\\.')}:[a-z0-9][a-z0-9-]*:[a-z0-9][a-z0-9-]*$`));
  assert.ok(typeof entry.displayName === 'string' && entry.displayName.length > 0 && !/[\r\n]/.test(entry.displayName));
  assert.ok(typeof entry.description === 'string' && entry.description.length > 0);
  assert.ok(Array.isArray(entry.representativeQueries) && entry.representativeQueries.length >= 2 && entry.representativeQueries.length <= 5);
  assert.ok(!Number.isNaN(Date.parse(entry.updatedAt)) && new Date(entry.updatedAt).toISOString() === entry.updatedAt);
  assert.equal(entry.trustManifest, undefined);
  const res = await rawRequest(entry.url);
  assert.equal(res.status, 200, entry.url);
  assert.equal(String(res.headers['content-type']).split(';')[0], entry.type, 'served with the type the entry names');
}

for (const backend of surfaceBackends) {
  describe(`MCP discovery [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let on: HostApp;
    let off: HostApp;
    before(async () => {
      demo = await openDemoDatabase(backend);
      await analyze(demo.db);
      on = await startHostApp(demo.db, { mcp: true });
      off = await startHostApp(demo.db);
    });
    after(async () => {
      await on?.close();
      await off?.close();
      await demo?.close();
    });

    it('a stock client finds the endpoint from the home page: Link header or <head> → server card → endpoint', async () => {
      const home = await fetchPage(`${on.origin}/`);
      const headerMcp = home.headerLinks.find((l) => l.rel === 'mcp');
      const headMcp = home.headLinks.find((l) => l.rel === 'mcp');
      assert.equal(headerMcp?.href, `${on.origin}/mcp`);
      assert.equal(headMcp?.href, `${on.origin}/mcp`);
      assert.deepEqual(home.metas.filter((m) => m.name === 'mcp'), [{ name: 'mcp', content: `${on.origin}/mcp` }]);
      const probes = await probeConventionalPaths(on.origin);
      assert.deepEqual(probes.filter((p) => p.verified).map((p) => p.path).sort(), ['/.well-known/agent-skills/index.json', '/.well-known/api-catalog', CARD, '/llms.txt']);
      const card = json((await rawRequest(`${on.origin}${CARD}`)).body);
      assert.deepEqual(Object.keys(card), ['$schema', 'name', 'version', 'title', 'description', 'websiteUrl', 'remotes']);
      assert.equal(card.$schema, 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json');
      assert.match(card.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
      assert.ok(card.description.length <= 100 && card.title.length <= 100);
      assert.deepEqual(card.remotes, [{ type: 'streamable-http', url: headerMcp!.href }]);
      const client = await connectMcp(String(card.remotes?.[0]?.url));
      try {
        assert.equal(client.getServerVersion()?.name, card.name);
        assert.equal(client.getServerVersion()?.version, card.version);
        const { structured } = await callOk(client, 'search', { pagelen: '1' });
        assert.equal(structured.items.length, 1);
      } finally {
        await client.close();
      }
    });

    it('the server card: GET and HEAD, direct 200, no-cache, strong ETag and 304, 405 otherwise; at <endpoint>/server-card and the well-known aliases', async () => {
      for (const path of [PRIMARY_CARD, CARD, '/.well-known/mcp/server-card']) {
        const get = await rawRequest(`${on.origin}${path}`);
        assert.equal(get.status, 200, path);
        assert.equal(get.headers['content-type'], 'application/mcp-server-card+json');
        assert.equal(get.headers['cache-control'], 'no-cache');
        assert.equal(get.headers['access-control-allow-origin'], '*');
        assert.match(String(get.headers.etag), /^"[^"]+"$/);
        assert.equal(get.headers.location, undefined);
        const head = await rawRequest(`${on.origin}${path}`, { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(head.body, '');
        assert.equal(head.headers.etag, get.headers.etag);
        const cached = await rawRequest(`${on.origin}${path}`, { headers: { 'if-none-match': String(get.headers.etag) } });
        assert.equal(cached.status, 304);
        for (const method of ['POST', 'PUT', 'DELETE']) {
          const res = await rawRequest(`${on.origin}${path}`, { method });
          assert.equal(res.status, 405, `${path} ${method}`);
          assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
        }
      }
    });

    it('the ARD manifest lists the API and the MCP server, both by the same entry rules', async () => {
      const ard = json((await rawRequest(`${on.origin}/.well-known/ard.json`)).body);
      assert.equal(ard.entries.length, 2);
      const [api, mcp] = ard.entries;
      assert.equal(api.type, 'application/openapi+json');
      assert.equal(mcp.type, 'application/mcp-server-card+json');
      assert.equal(mcp.url, `${on.origin}${PRIMARY_CARD}`);
      assert.equal(mcp.identifier, 'urn:air:agent.localhost:content:mcp', 'an IP host gets the reserved placeholder publisher');
      assert.notEqual(api.identifier, mcp.identifier);
      for (const entry of ard.entries) await assertArdEntry(entry, 'agent.localhost');
    });

    it('/.well-known/ai-catalog.json is the same manifest as /.well-known/ard.json (as an AI Catalog), on and off', async () => {
      for (const host of [on, off]) {
        const ard = await rawRequest(`${host.origin}/.well-known/ard.json`);
        for (const method of ['GET', 'HEAD']) {
          const legacy = await rawRequest(`${host.origin}/.well-known/ai-catalog.json`, { method });
          assert.equal(legacy.status, 200);
          assert.equal(legacy.headers['content-type'], 'application/ai-catalog+json');
          assert.equal(legacy.headers.etag, ard.headers.etag);
          assert.equal(legacy.body, method === 'GET' ? ard.body : '');
        }
        assert.equal((await rawRequest(`${host.origin}/.well-known/ai-catalog.json`, { method: 'POST' })).status, 405);
      }
    });

    it('llms.txt and API help mention the endpoint when on, and their links resolve', async () => {
      const llms = (await rawRequest(`${on.origin}/llms.txt`)).body;
      const line = llms.split('\n').find((l) => l.startsWith('- [MCP server card]('));
      assert.ok(line, llms);
      assert.ok(line!.includes(`(${on.origin}${PRIMARY_CARD})`) && line!.includes(`${on.origin}/mcp`));
      const help = (await rawRequest(`${on.origin}/api-help`)).body;
      assert.ok(help.includes(`href="${on.origin}${PRIMARY_CARD}"`));
      assert.ok(help.includes(`<code>${on.origin}/mcp</code>`));
      assert.doesNotMatch((await rawRequest(`${off.origin}/llms.txt`)).body, /MCP/);
      assert.doesNotMatch((await rawRequest(`${off.origin}/api-help`)).body, /MCP|\/mcp/);
    });

    it('a resource page advertises rel="mcp" beside its alternates; the plugin\'s own responses do not', async () => {
      const page = await fetchPage(`${on.origin}/page/${DEMO.welcome}`);
      assert.ok(page.headerLinks.some((l) => l.rel === 'mcp'));
      assert.ok(page.headLinks.some((l) => l.rel === 'mcp'));
      const api = await rawRequest(`${on.origin}/api/agent/search`);
      assert.deepEqual(headerLines(api.rawHeaders, 'link'), []);
    });

    it('MCP off: nothing changes — /mcp and the card are the host\'s 404, no rel="mcp", one ARD entry', async () => {
      for (const path of ['/mcp', CARD, '/.well-known/mcp/server-card', PRIMARY_CARD]) {
        for (const method of ['GET', 'POST', 'HEAD']) {
          const res = await rawRequest(`${off.origin}${path}`, { method });
          assert.equal(res.status, 404, `${method} ${path}`);
          if (method !== 'HEAD') assert.equal(res.body, 'host 404');
        }
      }
      const home = await fetchPage(`${off.origin}/`);
      assert.ok(!home.headerLinks.some((l) => l.rel === 'mcp'));
      assert.ok(!home.headLinks.some((l) => l.rel === 'mcp'));
      assert.ok(!home.metas.some((m) => m.name === 'mcp'));
      // The site-level set, and nothing for MCP (the home page's own Markdown alternate aside).
      const siteRels = parseLinkHeaders(home.linkHeaderLines).map((l) => l.rel).filter((rel) => rel !== 'alternate');
      assert.deepEqual(siteRels, ['api-catalog', 'service-desc', 'service-doc', 'describedby', 'ard']);
      const probes = await probeConventionalPaths(off.origin);
      assert.equal(probes.find((p) => p.path === CARD)!.status, 404);
      const ard = json((await rawRequest(`${off.origin}/.well-known/ard.json`)).body);
      assert.deepEqual(ard.entries.map((e: { type: string }) => e.type), ['application/openapi+json']);
    });

    it('a custom path and a public base URL: the card, the links and the name follow them', async () => {
      const custom = await startHostApp(demo.db, { mcp: { path: '/agents/mcp' }, baseUrl: 'https://Docs.Example.ORG' });
      try {
        const card = json((await rawRequest(`${custom.origin}${CARD}`)).body);
        assert.equal(card.name, 'org.example.docs/mcp');
        assert.deepEqual(card.remotes, [{ type: 'streamable-http', url: 'https://docs.example.org/agents/mcp' }]);
        const home = await fetchPage(`${custom.origin}/`);
        assert.equal(home.headerLinks.find((l) => l.rel === 'mcp')?.href, 'https://docs.example.org/agents/mcp');
        assert.equal((await rawRequest(`${custom.origin}/mcp`, { method: 'POST' })).status, 404);
        const client = await connectMcp(`${custom.origin}/agents/mcp`);
        try {
          const { structured } = await callOk(client, 'search', { pagelen: '1' });
          assert.match(structured.items[0].page_url, /^https:\/\/docs\.example\.org\//);
        } finally {
          await client.close();
        }
      } finally {
        await custom.close();
      }
    });

    it('an IPv6 host yields a card name the card pattern accepts', async () => {
      const v6 = await startHostApp(demo.db, { mcp: true, baseUrl: 'http://[::1]:8080' });
      try {
        const card = json((await rawRequest(`${v6.origin}${CARD}`)).body);
        assert.match(card.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
      } finally {
        await v6.close();
      }
    });
  });
}
