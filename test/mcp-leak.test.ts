import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { backends } from './support/backends.js';
import { callError, callOk, connectMcp, walkRest, walkTool } from './support/mcp-client.js';
import { ModernMcpClient } from './support/mcp-modern-client.js';
import { insertLeakStates, leakState, startLeakSite, type LeakSite } from './support/leak-states.js';


for (const backend of backends) {
  describe(`MCP tools never leak, in 2025-11-25 and 2026-07-28 [${backend.name}]`, () => {
    let web: LeakSite;
    let client: Client;
    let modern: ModernMcpClient;
    before(async () => {
      web = await startLeakSite(backend);
      client = await connectMcp(`${web.origin}/mcp`);
      modern = new ModernMcpClient(`${web.origin}/mcp`);
    });
    after(async () => {
      await client?.close();
      await web?.close();
    });

    it('no private, unpublished, out-of-window or (for search and resources/list) noindex resource appears', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(leakState, { minLength: 1, maxLength: 16 }), async (states) => {
          const rows = await insertLeakStates(web.content.db, web.cats, states);
          const ours = (ids: number[]) => ids.filter((id) => rows.some((r) => r.id === id)).sort((a, b) => a - b);
          const expected = rows.filter((r) => r.listed).map((r) => r.id).sort((a, b) => a - b);
          for (const [revision, c] of [['2025-11-25', client], ['2026-07-28', modern]] as const) {
            for (const args of [{ pagelen: '3' }, { text: 'harbour', pagelen: '4', sort: 'newest' }, { sort: 'modified', pagelen: '100' }] as Record<string, string>[]) {
              const tool = await walkTool(c, 'search', args);
              assert.deepEqual(ours(tool.map((i) => i.id)), expected, `${revision} ${JSON.stringify(args)}`);
              const rest = await walkRest(`${web.origin}/api/agent/search?${new URLSearchParams(args)}`);
              assert.deepEqual(tool, rest, `${revision}: the tool and the route agree`);
            }
            const listed: number[] = [];
            let cursor: string | undefined;
            do {
              const page = await c.listResources(cursor ? { cursor } : {});
              listed.push(...page.resources.map((r) => Number(/\/agent\/resource\/(\d+)\/markdown$/.exec(r.uri)![1])));
              cursor = page.nextCursor;
            } while (cursor);
            assert.deepEqual(ours(listed), expected, `${revision} resources/list`);
            const missing = await callError(c, 'read_resource', { id: '999999999' });
            for (const r of rows) {
              const uri = `${web.origin}/agent/resource/${r.id}/markdown`;
              if (r.visible) {
                assert.equal((await callOk(c, 'read_resource', { id: String(r.id) })).structured.id, r.id);
                assert.equal((await c.readResource({ uri })).contents.length, 1);
              } else {
                // Missing, private, unpublished and out-of-window: the same "not found", byte for byte.
                assert.equal(await callError(c, 'read_resource', { id: r.id }), missing, revision);
                assert.equal(await callError(c, 'related', { id: r.id }), missing, revision);
                await assert.rejects(c.readResource({ uri }), /resource not found/, revision);
              }
            }
          }
        }),
        { numRuns: backend.name === 'pglite' ? 6 : 12 },
      );
    });

    it('schema lists only public, indexable vocabulary', async () => {
      for (const c of [client, modern]) {
        const ids = (await walkTool(c, 'schema', { kind: 'category', pagelen: '2' })).map((i) => i.id);
        assert.ok(ids.includes(web.cats.plain!));
        for (const hidden of [web.cats.noindex, web.cats.below_noindex, web.cats.hidden]) assert.ok(!ids.includes(hidden!));
      }
    });
  });
}
