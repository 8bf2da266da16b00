import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Request } from 'express';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { pluginApp } from './support/demo.js';
import { listen, type RawServer } from './support/raw-http.js';
import { callOk, connectMcp } from './support/mcp-client.js';
import type { AgentContext } from '../src/context.js';
import { mcpOriginAllowed } from '../src/mcp/mcp-origin.js';
import { resolveOptions } from '../src/options.js';

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
/** What the conformance suite's DNS-rebinding scenario sends. */
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'origin-test', version: '1.0.0' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** POSTs a JSON-RPC body to /mcp with the given headers: the status and the parsed body. */
async function post(web: RawServer, headers: Record<string, string>, body = LIST, path = '/mcp') {
  const res = await web.request({ method: 'POST', path, headers: { ...MCP_HEADERS, ...headers }, body });
  return { status: res.status, headers: res.headers, json: JSON.parse(res.body) as Record<string, any> };
}

const backend = surfaceBackends[0]!;

describe('MCP endpoint: Origin and Host (DNS rebinding)', () => {
  let content: TestDatabase;
  before(async () => {
    content = await backend.open();
  });
  after(async () => {
    await content?.close();
  });

  describe('without baseUrl: the request\'s own origin, on a loopback socket only under a loopback name', () => {
    let web: RawServer;
    let own: string;
    before(async () => {
      web = await listen((await pluginApp(content.db, { mcp: true })).app);
      own = `http://127.0.0.1:${web.port}`;
    });
    after(async () => web?.close());

    it('serves a request without Origin (a server-side agent), whatever its Host', async () => {
      assert.equal((await post(web, {})).status, 200);
      assert.equal((await post(web, { host: 'evil.example.com' })).status, 200);
    });

    it('serves the own origin under each loopback name', async () => {
      for (const [host, origin] of [[`127.0.0.1:${web.port}`, own], [`localhost:${web.port}`, `http://localhost:${web.port}`], [`[::1]:${web.port}`, `http://[::1]:${web.port}`]]) {
        const res = await post(web, { host: host!, origin: origin! });
        assert.equal(res.status, 200, host);
        assert.equal(res.json.result.tools.length, 5);
      }
      assert.equal((await post(web, { origin: own }, INITIALIZE)).status, 200, 'initialize');
    });

    it('refuses a foreign, null or look-alike Origin with 403 and a JSON-RPC error, before anything runs', async () => {
      for (const origin of ['https://evil.example', 'null', 'not a url', `https://127.0.0.1:${web.port}`, `http://127.0.0.1:${web.port + 1}`, `http://localhost:${web.port}`]) {
        const res = await post(web, { origin });
        assert.equal(res.status, 403, origin);
        assert.equal(res.json.jsonrpc, '2.0');
        assert.equal(res.json.error.code, -32000);
        assert.match(res.json.error.message, /Origin/);
        assert.equal(res.json.result, undefined);
        assert.equal(res.headers['access-control-allow-origin'], undefined);
      }
    });

    it('refuses the rebinding request: a foreign Host with its own Origin on a loopback socket', async () => {
      const res = await post(web, { host: 'evil.example.com', origin: 'http://evil.example.com' }, INITIALIZE);
      assert.equal(res.status, 403);
      assert.equal((await post(web, { host: `evil.example.com:${web.port}`, origin: `http://evil.example.com:${web.port}` })).status, 403);
    });

    it('refuses every method from a foreign origin (405 is for allowed ones); the server card stays open to all', async () => {
      for (const method of ['GET', 'DELETE', 'OPTIONS']) {
        assert.equal((await web.request({ method, path: '/mcp', headers: { origin: 'https://evil.example' } })).status, 403, method);
        assert.equal((await web.request({ method, path: '/mcp', headers: { origin: own } })).status, 405, method);
      }
      const card = await web.request({ path: '/mcp/server-card', headers: { origin: 'https://evil.example' } });
      assert.equal(card.status, 200);
      assert.equal(card.headers['access-control-allow-origin'], '*');
    });
  });

  describe('with baseUrl and allowedOrigins', () => {
    let web: RawServer;
    before(async () => {
      const { app } = await pluginApp(content.db, {
        baseUrl: 'https://docs.example.org/site',
        mcp: { allowedOrigins: ['http://localhost:6274/', 'https://App.Example.net'] },
      });
      web = await listen(app);
    });
    after(async () => web?.close());

    it('serves the base URL\'s origin and the listed ones, whatever the Host', async () => {
      for (const origin of ['https://docs.example.org', 'http://localhost:6274', 'https://app.example.net']) {
        assert.equal((await post(web, { origin })).status, 200, origin);
        assert.equal((await post(web, { origin, host: 'evil.example.com' })).status, 200, `${origin} (any Host)`);
      }
    });

    it('refuses the request\'s own origin when it is not the base URL\'s, and other ports and schemes', async () => {
      for (const origin of [`http://127.0.0.1:${web.port}`, 'http://docs.example.org', 'https://docs.example.org:8443', 'http://localhost:6275', 'https://evil.example']) {
        assert.equal((await post(web, { origin })).status, 403, origin);
      }
    });

    it('the SDK client connects, lists and calls with an allowed Origin, and is refused with another', async () => {
      const url = `http://127.0.0.1:${web.port}/mcp`;
      const client = await connectMcp(url, { origin: 'http://localhost:6274' });
      try {
        assert.equal((await client.listTools()).tools.length, 5);
        assert.ok(Array.isArray((await callOk(client, 'search', { pagelen: '1' })).structured.items));
      } finally {
        await client.close();
      }
      await assert.rejects(connectMcp(url, { origin: 'https://evil.example' }), /403|Forbidden/);
    });
  });

  it('a request on a non-loopback address may use its own Host-derived origin', () => {
    const ctx = { options: { baseUrl: undefined }, baseUrl: () => 'http://192.168.1.5:3000' } as unknown as AgentContext;
    const request = (origin: string | undefined, localAddress: string) =>
      ({ get: (h: string) => (h === 'origin' ? origin : h === 'host' ? '192.168.1.5:3000' : undefined), socket: { localAddress } }) as unknown as Request;
    assert.equal(mcpOriginAllowed(ctx, new Set(), request('http://192.168.1.5:3000', '192.168.1.5')), true);
    assert.equal(mcpOriginAllowed(ctx, new Set(), request('http://192.168.1.5:3000', '127.0.0.1')), false, 'the same Host on a loopback socket');
    assert.equal(mcpOriginAllowed(ctx, new Set(), request('http://192.168.1.5:3000', '::ffff:127.0.0.1')), false, 'IPv4-mapped loopback');
    assert.equal(mcpOriginAllowed(ctx, new Set(), request(undefined, '127.0.0.1')), true, 'no Origin');
  });

  it('options: allowedOrigins are origins, normalized and deduplicated; anything else names the option', () => {
    const base = { siteTitle: 'Site', database: { memory: true as const } };
    const resolved = resolveOptions({ ...base, mcp: { allowedOrigins: ['HTTPS://App.Example.org:443/', 'https://app.example.org', 'http://localhost:6274'] } });
    assert.deepEqual(resolved.mcp, { path: '/mcp', allowedOrigins: ['https://app.example.org', 'http://localhost:6274'] });
    assert.deepEqual(resolveOptions({ ...base, mcp: true }).mcp, { path: '/mcp', allowedOrigins: [] });
    for (const bad of ['app.example.org', 'https://app.example.org/path', 'https://app.example.org/?x', 'https://app.example.org#f', 'ftp://app.example.org', 'https://user@app.example.org', '*', 'null']) {
      assert.throws(() => resolveOptions({ ...base, mcp: { allowedOrigins: [bad] } }), /option "mcp\.allowedOrigins\[0\]": expected an origin/, bad);
    }
    assert.throws(() => resolveOptions({ ...base, mcp: { allowedOrigins: 'https://app.example.org' } }), /option "mcp/);
  });
});
