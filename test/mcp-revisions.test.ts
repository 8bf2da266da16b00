import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { surfaceBackends } from './support/backends.js';
import { callError, callOk, connectMcp, walkRest, walkTool } from './support/mcp-client.js';
import { MODERN_REVISION, ModernMcpClient, ModernMcpError } from './support/mcp-modern-client.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { adminCookie } from '../example-site/session.js';
import { DEMO } from '../example-site/seed.js';

const LEGACY_REVISION = '2025-11-25';
/** Where a 2026-07-28 result names the server. */
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** Every page of `resources/list`, in order. */
async function listAll(client: { listResources(p: { cursor?: string }): Promise<{ resources: { uri: string }[]; nextCursor?: string }> }) {
  const pages: { uri: string }[][] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    pages.push(page.resources);
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

for (const backend of surfaceBackends) {
  describe(`MCP: 2026-07-28 and 2025-11-25 on one endpoint [${backend.name}]`, () => {
    let web: RunningSite;
    let legacy: Client;
    let modern: ModernMcpClient;
    let mcpUrl: string;
    before(async () => {
      web = await startExampleSite(backend, { analyze: true });
      mcpUrl = `${web.origin}/mcp`;
      legacy = await connectMcp(mcpUrl);
      modern = new ModernMcpClient(mcpUrl);
    });
    after(async () => {
      await legacy?.close();
      await web?.close();
    });

    it('the SDK client negotiates 2025-11-25; server/discover answers the stateless revision with the same server', async () => {
      assert.equal((legacy as unknown as { transport: { protocolVersion?: string } }).transport.protocolVersion, LEGACY_REVISION);
      const { status, headers, body } = await modern.exchange('server/discover');
      assert.equal(status, 200);
      assert.match(headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(headers.get('cache-control'), 'no-store');
      assert.equal(headers.get('x-content-type-options'), 'nosniff');
      assert.equal(headers.get('mcp-session-id'), null, 'stateless');
      const discovered = body.result;
      assert.ok(discovered.supportedVersions.includes(MODERN_REVISION));
      assert.deepEqual(discovered._meta[SERVER_INFO], legacy.getServerVersion());
      assert.deepEqual(Object.keys(discovered.capabilities).sort(), Object.keys(legacy.getServerCapabilities()!).sort());
      assert.equal(discovered.instructions, legacy.getInstructions());
      assert.equal(discovered.resultType, 'complete');
    });

    it('the request that got "400 Unsupported protocol version" is answered', async () => {
      const res = await modern.exchange('tools/list');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.result.resultType, 'complete');
      const { tools } = await legacy.listTools();
      const { resultType: _complete, ttlMs: _ttl, cacheScope: _scope, _meta, ...listed } = res.body.result;
      assert.deepEqual(_meta[SERVER_INFO], legacy.getServerVersion(), 'every result names the server');
      assert.deepEqual(listed, { tools }, 'the same tools, schemas and annotations');
    });

    it('search: both revisions and the REST route walk the same pages to the same items', async () => {
      for (const args of [{ pagelen: '7' }, { sort: 'newest', pagelen: '4' }, { text: 'harbour', pagelen: '3', sort: 'modified' }] as Record<string, string>[]) {
        const rest = await walkRest(`${web.origin}/api/agent/search?${new URLSearchParams(args)}`);
        assert.ok(rest.length > 0);
        assert.deepEqual(await walkTool(modern, 'search', args), rest, `2026-07-28 ${JSON.stringify(args)}`);
        assert.deepEqual(await walkTool(legacy, 'search', args), rest, `2025-11-25 ${JSON.stringify(args)}`);
      }
      // A continuation from one revision continues in the other.
      const first = await callOk(modern, 'search', { sort: 'newest', pagelen: '2' });
      const viaLegacy = await callOk(legacy, 'search', first.structured.next_arguments);
      const viaModern = await callOk(modern, 'search', first.structured.next_arguments);
      assert.deepEqual(viaModern, viaLegacy);
    });

    it('read_resource, related and schema answer the same in both revisions', async () => {
      for (const [tool, args] of [
        ['read_resource', { id: DEMO.welcome, language: 'nl' }],
        ['read_resource', { id: DEMO.image }],
        ['related', { id: DEMO.welcome, pagelen: '2' }],
        ['schema', { kind: 'predicate' }],
      ] as const) {
        assert.deepEqual(await callOk(modern, tool, args), await callOk(legacy, tool, args), `${tool} ${JSON.stringify(args)}`);
      }
      const raw = await modern.callTool({ name: 'read_resource', arguments: { id: DEMO.welcome } });
      assert.equal(raw.resultType, 'complete');
      assert.match(raw.content[0].text, /^---|# /);
    });

    it('resources: the same template, pages and Markdown in both revisions', async () => {
      assert.deepEqual((await modern.listResourceTemplates()).resourceTemplates, (await legacy.listResourceTemplates()).resourceTemplates);
      const strip = (pages: { uri: string }[][]) => pages.map((p) => p.map((r) => ({ ...r })));
      const modernPages = await listAll(modern);
      assert.deepEqual(strip(modernPages), strip(await listAll(legacy)));
      assert.ok(modernPages.flat().length > 0);
      const uri = modernPages[0]![0]!.uri;
      const read = await modern.readResource({ uri });
      assert.equal(read.resultType, 'complete');
      assert.equal(read.contents[0]!.text, await (await fetch(uri)).text());
      assert.deepEqual(read.contents, (await legacy.readResource({ uri })).contents);
    });

    it('misses and bad arguments fail alike: tool errors byte for byte, and -32602 for a resource not found', async () => {
      for (const [tool, args] of [
        ['read_resource', { id: DEMO.private }],
        ['read_resource', { id: 'no_such_resource' }],
        ['related', { id: DEMO.unpublished }],
        ['search', { pagelen: '0' }],
        ['search', { text: true }],
      ] as const) {
        assert.equal(await callError(modern, tool, args), await callError(legacy, tool, args), `${tool} ${JSON.stringify(args)}`);
      }
      for (const name of [DEMO.private, DEMO.unpublished, 'no_such_resource']) {
        const uri = `${web.origin}/agent/resource/${name}/markdown`;
        await assert.rejects(modern.readResource({ uri }), (e: ModernMcpError) => e.code === -32602 && /resource not found/.test(e.message) && (e.data as { uri: string }).uri === uri, name);
        await assert.rejects(legacy.readResource({ uri }), (e: { code: number }) => e.code === -32602, name);
      }
      await assert.rejects(modern.listResources({ cursor: 'nonsense' }), (e: ModernMcpError) => e.code === -32602);
      await assert.rejects(modern.callTool({ name: 'write_resource', arguments: {} }), (e: ModernMcpError) => e.code === -32602);
    });

    it("an administrator's cookie changes nothing in 2026-07-28 either", async () => {
      const admin = new ModernMcpClient(mcpUrl, { cookie: adminCookie(web.site.session) });
      assert.deepEqual(await walkTool(admin, 'search', { pagelen: '50' }), await walkTool(modern, 'search', { pagelen: '50' }));
      assert.equal(await callError(admin, 'read_resource', { id: DEMO.private }), await callError(modern, 'read_resource', { id: DEMO.private }));
      const res = await admin.exchange('tools/list');
      assert.equal(res.headers.get('set-cookie'), null);
    });

    it('the 2026-07-28 wire rules are enforced: headers must match the envelope', async () => {
      const call = { name: 'search', arguments: { pagelen: '1' } };
      const rejected = [
        await modern.exchange('tools/call', call, 'search', { 'mcp-method': '' }),
        await modern.exchange('tools/call', call, 'schema'),
        await modern.exchange('tools/call', call),
        await modern.exchange('tools/list', {}, undefined, { 'mcp-protocol-version': '2099-01-01' }),
      ];
      for (const res of rejected) {
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.jsonrpc, '2.0');
        assert.ok(res.body.error.code < 0);
      }
      // The protocol-version header alone, without the envelope, is an invalid request, not a 2025 call.
      const bare = await fetch(mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN_REVISION },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(bare.status, 400);
      assert.equal(((await bare.json()) as { error: { code: number } }).error.code, -32602);
      // An envelope naming a revision the server does not speak: the error lists the ones it does.
      const future = await modern.exchange('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {} } }, undefined, { 'mcp-protocol-version': '2099-01-01' });
      assert.equal(future.status, 400);
      assert.ok(JSON.stringify(future.body.error).includes(MODERN_REVISION));
      // initialize and ping belong to 2025: not methods of the stateless revision.
      for (const method of ['initialize', 'ping']) {
        const res = await modern.exchange(method);
        assert.equal(res.body.error?.code, -32601, method);
      }
    });

    it('a foreign Origin is refused in both revisions; no Origin is served in both', async () => {
      const foreign = new ModernMcpClient(mcpUrl, { origin: 'https://evil.example' });
      const res = await foreign.exchange('server/discover');
      assert.equal(res.status, 403);
      await assert.rejects(connectMcp(mcpUrl, { origin: 'https://evil.example' }));
      assert.equal((await modern.exchange('server/discover')).status, 200);
    });
  });
}
