import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceNotFoundError, UriTemplate } from '@modelcontextprotocol/client';
import { surfaceBackends } from './support/backends.js';
import { idOf } from './support/demo.js';
import { insertLeakStates, leakState, startLeakSite, type LeakSite } from './support/leak-states.js';
import { callError, callOk, connectMcp, walkRest } from './support/mcp-client.js';
import { MODERN_REVISION, ModernMcpClient } from './support/mcp-modern-client.js';
import { connectMcpV2, resourcePages, toolPages, v2ResourcePage, type V2Connection } from './support/mcp-v2-client.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { adminCookie } from '../example-site/session.js';
import { DEMO } from '../example-site/seed.js';

const LEGACY_REVISION = '2025-11-25';
/** The example site's 300 notes of one shape are older than this; the other demo resources are newer. */
const RECENT = new Date(Date.now() - 60 * 86_400_000).toISOString().slice(0, 10);
/** Of the 300 notes, the reads below take every SAMPLE-th (an MCP call costs tens of ms on a loaded machine). */
const SAMPLE = 25;
/** What a miss reads as, through every client: missing, private and unpublished alike. */
const NOT_FOUND = '{"status":"error","error":"not_found","message":"resource not found"}';
/** Words only the example site's hidden resources contain. */
const SECRETS = /SECRET|GEHEIM|salar/i;
const SEARCHES: Record<string, string>[] = [
  { pagelen: '100' },
  { sort: 'newest', pagelen: '3', publication_after: RECENT },
  { text: 'harbour', pagelen: '40', sort: 'modified' },
  { cat: 'person', pagelen: '1' },
];

const legacyResourcePage = (client: LegacyClient) => (cursor: string | undefined) => client.listResources(cursor === undefined ? {} : { cursor });
const resourceId = (uri: string) => Number(/\/agent\/resource\/(\d+)\/markdown$/.exec(uri)![1]);

for (const backend of surfaceBackends) {
  describe(`MCP: the v2 SDK client (2026-07-28) and the 1.x SDK client agree on the example site [${backend.name}]`, () => {
    let web: RunningSite;
    let mcpUrl: string;
    let legacy: LegacyClient;
    let v2: V2Connection;
    let raw: ModernMcpClient;
    /** Every resource search lists, in its order. */
    let listedIds: number[];
    /** The ids of the recent demo resources. */
    let recentIds: number[];
    /** The recent demo resources and every SAMPLE-th of the others. */
    const toRead = (id: number) => recentIds.includes(id) || listedIds.indexOf(id) % SAMPLE === 0;
    before(async () => {
      web = await startExampleSite(backend, { analyze: true });
      mcpUrl = `${web.origin}/mcp`;
      legacy = await connectMcp(mcpUrl);
      v2 = await connectMcpV2(mcpUrl);
      raw = new ModernMcpClient(mcpUrl);
      const ids = (args: Record<string, string>) => walkRest(`${web.origin}/api/agent/search?${new URLSearchParams(args)}`).then((items) => items.map((i) => i.id as number));
      listedIds = await ids({ pagelen: '100' });
      recentIds = await ids({ pagelen: '100', publication_after: RECENT });
    });
    after(async () => {
      await v2?.client.close();
      await legacy?.close();
      await web?.close();
    });

    it('connects by server/discover and negotiates 2026-07-28, the same server the 1.x client initialized', async () => {
      const { client, wire } = v2;
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN_REVISION);
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(wire[0]?.method, 'server/discover');
      assert.ok(!wire.some((r) => r.method === 'initialize' || r.method.startsWith('notifications/initialized')), 'no initialize handshake');
      assert.ok(client.getDiscoverResult()?.supportedVersions.includes(MODERN_REVISION));
      assert.deepEqual(client.getServerVersion(), legacy.getServerVersion());
      assert.deepEqual(Object.keys(client.getServerCapabilities()!).sort(), Object.keys(legacy.getServerCapabilities()!).sort());
      assert.equal(client.getInstructions(), legacy.getInstructions());
      assert.equal((legacy as unknown as { transport: { protocolVersion?: string } }).transport.protocolVersion, LEGACY_REVISION);
    });

    it("pinned to 2026-07-28 it connects too; with the SDK's default negotiation it initializes as 2025-11-25", async () => {
      const pinned = await connectMcpV2(mcpUrl, { pin: MODERN_REVISION });
      assert.equal(pinned.client.getNegotiatedProtocolVersion(), MODERN_REVISION);
      assert.deepEqual((await pinned.client.callTool({ name: 'schema', arguments: { kind: 'category' } })).structuredContent, (await legacy.callTool({ name: 'schema', arguments: { kind: 'category' } })).structuredContent);
      await pinned.client.close();
      const byDefault = await connectMcpV2(mcpUrl, 'legacy');
      assert.equal(byDefault.client.getNegotiatedProtocolVersion(), LEGACY_REVISION);
      assert.equal(byDefault.client.getProtocolEra(), 'legacy');
      assert.equal(byDefault.wire[0]?.method, 'initialize');
      await byDefault.client.close();
    });

    it('lists the same five read-only tools, schemas and annotations', async () => {
      const { tools } = await v2.client.listTools();
      assert.deepEqual(tools, (await legacy.listTools()).tools);
      assert.deepEqual(tools.map((t) => t.name), ['search', 'read_resource', 'related', 'schema', 'changes']);
    });

    it('search: every page through next_arguments, its boundaries and its text, as the 1.x and the raw client see them', async () => {
      for (const args of SEARCHES) {
        const pages = await toolPages(v2.client, 'search', args);
        assert.ok(pages.length > 1, `${JSON.stringify(args)} spans pages`);
        assert.deepEqual(pages, await toolPages(legacy, 'search', args), `1.x ${JSON.stringify(args)}`);
        assert.deepEqual(pages, await toolPages(raw, 'search', args), `raw 2026-07-28 ${JSON.stringify(args)}`);
        const items = pages.flatMap((p) => p.structured.items);
        assert.deepEqual(items, await walkRest(`${web.origin}/api/agent/search?${new URLSearchParams(args)}`), 'the REST walk');
        assert.equal(new Set(items.map((i) => i.id)).size, items.length, 'each item once');
        for (const page of pages) assert.deepEqual(JSON.parse(page.text), page.structured);
      }
    });

    it('read_resource: every search result reads the same Markdown and citation fields', async () => {
      const ids = (await toolPages(v2.client, 'search', { pagelen: '100' })).flatMap((p) => p.structured.items.map((i: { id: number }) => i.id));
      assert.deepEqual(ids, listedIds);
      assert.ok(recentIds.length >= 10 && ids.length > 300);
      for (const id of ids.filter(toRead)) {
        const read = await callOk(v2.client, 'read_resource', { id: String(id) });
        assert.equal(read.structured.id, id);
        assert.deepEqual(read, await callOk(legacy, 'read_resource', { id: String(id) }), `resource ${id}`);
        assert.equal(read.text, await (await fetch(`${web.origin}/agent/resource/${id}/markdown`)).text(), `Markdown of ${id}`);
      }
      const dutch = await callOk(v2.client, 'read_resource', { id: DEMO.welcome, language: 'nl' });
      assert.deepEqual(dutch, await callOk(legacy, 'read_resource', { id: DEMO.welcome, language: 'nl' }));
      assert.match(dutch.text, /Welkom/);
    });

    it('resources/list: the same pages through the cursors, and every listed resource reads the same', async () => {
      const pages = await resourcePages(v2ResourcePage(v2.client));
      assert.ok(pages.length > 1, 'more than one page');
      assert.deepEqual(pages, await resourcePages(legacyResourcePage(legacy)));
      const uris = pages.flatMap((p) => p.resources.map((r) => r.uri));
      // Called without a cursor, the v2 client walks the cursors itself.
      assert.deepEqual((await v2.client.listResources()).resources.map((r) => r.uri), uris);
      assert.deepEqual(uris.map(resourceId).sort((a, b) => a - b), [...listedIds].sort((a, b) => a - b), 'what search lists');
      for (const uri of uris.filter((u) => toRead(resourceId(u)))) {
        const { contents } = await v2.client.readResource({ uri });
        assert.equal(contents.length, 1);
        assert.deepEqual(contents, (await legacy.readResource({ uri })).contents, uri);
      }
    });

    it('a URI of the resource template, expanded by the v2 SDK, reads what the Markdown route answers', async () => {
      const { resourceTemplates } = await v2.client.listResourceTemplates();
      assert.deepEqual(resourceTemplates, (await legacy.listResourceTemplates()).resourceTemplates);
      assert.equal(resourceTemplates.length, 1);
      const template = new UriTemplate(resourceTemplates[0]!.uriTemplate);
      const welcome = await idOf(web.content.db, DEMO.welcome);
      for (const variables of [{ id: String(welcome) }, { id: String(welcome), language: 'nl' }, { id: DEMO.about, language: 'en' }] as Record<string, string>[]) {
        const uri = template.expand(variables);
        assert.ok(uri.startsWith(`${web.origin}/agent/resource/`), uri);
        const { contents } = await v2.client.readResource({ uri });
        assert.equal(contents[0]!.uri, uri);
        assert.equal((contents[0] as { text: string }).text, await (await fetch(uri)).text(), uri);
        assert.deepEqual(contents, (await legacy.readResource({ uri })).contents, uri);
      }
      await assert.rejects(v2.client.readResource({ uri: template.expand({ id: String(welcome), language: 'fr' }) }), (e: { code: number }) => e.code === -32602);
    });

    it('never leaks: private, unpublished, scheduled and expired resources are in no result and read as "resource not found"', async () => {
      const hidden = [DEMO.private, DEMO.unpublished, DEMO.scheduled, DEMO.expired];
      const hiddenIds = await Promise.all(hidden.map((name) => idOf(web.content.db, name)));
      const seen: string[] = [];
      for (const args of [...SEARCHES, { text: 'secret', pagelen: '10' }, { text: 'salaries' }]) {
        for (const page of await toolPages(v2.client, 'search', args)) {
          assert.ok(!page.structured.items.some((i: { id: number }) => hiddenIds.includes(i.id)), JSON.stringify(args));
          seen.push(page.text);
        }
      }
      for (const page of await toolPages(v2.client, 'related', { id: DEMO.popularKeyword, direction: 'in', pagelen: '100' })) {
        assert.ok(!page.structured.items.some((i: { id: number }) => hiddenIds.includes(i.id)), 'related');
        seen.push(page.text);
      }
      const listed = (await v2.client.listResources()).resources;
      assert.ok(!listed.some((r) => hiddenIds.includes(resourceId(r.uri))), 'resources/list');
      seen.push(JSON.stringify(listed));
      seen.push((await callOk(v2.client, 'read_resource', { id: DEMO.privateRef })).text);
      assert.doesNotMatch(seen.join('\n'), SECRETS);
      for (const [i, name] of hidden.entries()) {
        for (const id of [name, String(hiddenIds[i]), hiddenIds[i]!]) {
          const text = await callError(v2.client, 'read_resource', { id });
          assert.equal(text, NOT_FOUND, `${name} as ${JSON.stringify(id)}`);
          assert.equal(text, await callError(legacy, 'read_resource', { id }));
          assert.equal(await callError(v2.client, 'related', { id }), NOT_FOUND);
        }
        const uri = `${web.origin}/agent/resource/${hiddenIds[i]}/markdown`;
        await assert.rejects(v2.client.readResource({ uri }), (e: unknown) => e instanceof ResourceNotFoundError && e.code === -32602 && e.uri === uri && /resource not found/.test(e.message), name);
      }
      assert.equal(await callError(v2.client, 'read_resource', { id: '999999999' }), NOT_FOUND, 'a missing one reads the same');
      // Readable but never listed: a noindex resource.
      const noindex = await idOf(web.content.db, DEMO.noindex);
      assert.ok(!listed.some((r) => resourceId(r.uri) === noindex));
      assert.equal((await callOk(v2.client, 'read_resource', { id: DEMO.noindex })).structured.id, noindex);
    });

    it("an administrator's cookie changes nothing through the v2 client", async () => {
      const admin = await connectMcpV2(mcpUrl, 'auto', { cookie: adminCookie(web.site.session) });
      assert.deepEqual(await toolPages(admin.client, 'search', { pagelen: '100' }), await toolPages(v2.client, 'search', { pagelen: '100' }));
      assert.equal(await callError(admin.client, 'read_resource', { id: DEMO.private }), NOT_FOUND);
      await admin.client.close();
    });

    it('every request the v2 client sent named 2026-07-28 in its envelope and its headers', () => {
      assert.ok(v2.wire.length > 100);
      for (const r of v2.wire) {
        assert.equal(r.protocolHeader, MODERN_REVISION, r.method);
        assert.equal(r.metaVersion, MODERN_REVISION, r.method);
        assert.equal(r.methodHeader, r.method);
        if (r.method === 'tools/call' || r.method === 'resources/read') assert.ok(r.nameHeader, `${r.method} carries Mcp-Name`);
      }
    });
  });

  describe(`MCP: the never-leak property through the v2 SDK client [${backend.name}]`, () => {
    let web: LeakSite;
    let legacy: LegacyClient;
    let v2: V2Connection;
    before(async () => {
      web = await startLeakSite(backend);
      legacy = await connectMcp(`${web.origin}/mcp`);
      v2 = await connectMcpV2(`${web.origin}/mcp`);
    });
    after(async () => {
      await v2?.client.close();
      await legacy?.close();
      await web?.close();
    });

    it('lists exactly the public, indexable resources and reads only the visible ones, as the 1.x client does', async () => {
      assert.equal(v2.client.getNegotiatedProtocolVersion(), MODERN_REVISION);
      await fc.assert(
        fc.asyncProperty(fc.array(leakState, { minLength: 1, maxLength: 12 }), async (states) => {
          const rows = await insertLeakStates(web.content.db, web.cats, states);
          const ours = (ids: number[]) => ids.filter((id) => rows.some((r) => r.id === id)).sort((a, b) => a - b);
          const expected = rows.filter((r) => r.listed).map((r) => r.id).sort((a, b) => a - b);
          const pages = await toolPages(v2.client, 'search', { text: 'harbour', pagelen: '3' });
          assert.deepEqual(ours(pages.flatMap((p) => p.structured.items.map((i: { id: number }) => i.id))), expected, 'search');
          assert.deepEqual(pages, await toolPages(legacy, 'search', { text: 'harbour', pagelen: '3' }));
          const listed = await resourcePages(v2ResourcePage(v2.client));
          assert.deepEqual(ours(listed.flatMap((p) => p.resources.map((r) => resourceId(r.uri)))), expected, 'resources/list');
          for (const r of rows) {
            const uri = `${web.origin}/agent/resource/${r.id}/markdown`;
            if (r.visible) {
              assert.deepEqual(await callOk(v2.client, 'read_resource', { id: String(r.id) }), await callOk(legacy, 'read_resource', { id: String(r.id) }));
              assert.equal((await v2.client.readResource({ uri })).contents.length, 1);
            } else {
              assert.equal(await callError(v2.client, 'read_resource', { id: r.id }), NOT_FOUND);
              await assert.rejects(v2.client.readResource({ uri }), (e: unknown) => e instanceof ResourceNotFoundError);
            }
          }
        }),
        { numRuns: backend.name === 'pglite' ? 4 : 8 },
      );
    });
  });
}
