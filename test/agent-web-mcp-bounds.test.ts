import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { callError, connectMcp, walkRest, type ToolCaller } from './support/mcp-client.js';
import { connectMcpV2, type V2Connection } from './support/mcp-v2-client.js';
import { insertResource } from '../example-site/content-store.js';

// SPEC §20, issue 34 item 9: a JSON-RPC batch holds at most 10 calls (more: one JSON-RPC error), and one
// tool result holds at most 50,000 characters (its text and its structured result together): a page is
// cut and continued with `skip`, a long Markdown is answered in parts continued with `start`. Both SDK
// lines (the 1.x client, 2025-11-25; the v2 client, 2026-07-28) see the same bounded answers.

const MAX_CHARS = 50_000;
const MAX_BATCH = 10;
const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' };

interface RawResult {
  structuredContent?: Record<string, any>;
  content: { type: string; text?: string }[];
  isError?: boolean;
}

/** A tool call's whole result, and how many characters a host counts of it (its text and its structured result). */
async function callRaw(client: ToolCaller, name: string, args: Record<string, unknown>): Promise<{ result: RawResult; chars: number }> {
  const result = (await client.callTool({ name, arguments: args })) as RawResult;
  const text = result.content.map((c) => c.text ?? '').join('');
  return { result, chars: text.length + (result.structuredContent ? JSON.stringify(result.structuredContent).length : 0) };
}

/** Walks a paged tool by next_arguments: every item, the size of the largest result and the arguments of each call. */
async function walkBounded(client: ToolCaller, name: string, args: Record<string, unknown>) {
  const items: Record<string, unknown>[] = [];
  const calls: Record<string, unknown>[] = [];
  let largest = 0;
  let next: Record<string, unknown> | null = args;
  while (next) {
    calls.push(next);
    const { result, chars } = await callRaw(client, name, next);
    assert.ok(!result.isError, JSON.stringify(result.content));
    largest = Math.max(largest, chars);
    const structured = result.structuredContent!;
    assert.equal(structured.next, structured.next_arguments !== null);
    assert.deepEqual(JSON.parse(result.content[0]!.text!), structured, 'the text is the structured result');
    items.push(...structured.items);
    next = structured.next_arguments;
    assert.ok(calls.length < 200, 'the walk ends');
  }
  return { items, largest, calls };
}

/** A paragraph of about 400 characters; `n` of them make a long article. */
const paragraph = (i: number) => `<p>Paragraph ${i}: ${'the tide comes in over the old harbour wall and goes out again, '.repeat(6)}</p>`;

for (const backend of surfaceBackends) {
  describe(`bounded MCP answers [${backend.name}]`, () => {
    let site: RunningSite;
    let mcpUrl: string;
    let legacy: LegacyClient;
    let v2: V2Connection;
    let longId: number;
    let longMarkdown: string;
    before(async () => {
      site = await startExampleSite(backend);
      mcpUrl = `${site.origin}/mcp`;
      longId = await insertResource(site.content.db, {
        name: 'long_article',
        category: 'article',
        title: { en: 'A very long article' },
        summary: { en: 'Longer than one MCP tool result.' },
        body: { en: Array.from({ length: 170 }, (_, i) => paragraph(i)).join('') },
      });
      const read = await fetch(`${site.origin}/agent/resource/${longId}/markdown`);
      longMarkdown = await read.text();
      assert.equal(read.status, 200, longMarkdown.slice(0, 200));
      assert.ok(longMarkdown.length > 1.3 * MAX_CHARS, `the article is long (${longMarkdown.length})`);
      legacy = await connectMcp(mcpUrl);
      v2 = await connectMcpV2(mcpUrl);
    });
    after(async () => {
      await v2?.client.close();
      await legacy?.close();
      await site?.close();
    });

    it(`a batch of more than ${MAX_BATCH} calls is one JSON-RPC error; ${MAX_BATCH} are answered`, async () => {
      const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search', arguments: { text: 'harbour' } } });
      for (const size of [MAX_BATCH + 1, 50]) {
        const res = await fetch(mcpUrl, { method: 'POST', headers: LEGACY_HEADERS, body: JSON.stringify(Array.from({ length: size }, (_, i) => call(i + 1))) });
        assert.equal(res.status, 400);
        const body = (await res.json()) as { error: { code: number; message: string }; id: unknown };
        assert.ok(!Array.isArray(body), 'one error, not one per call');
        assert.equal(body.error.code, -32600);
        assert.match(body.error.message, new RegExp(`at most ${MAX_BATCH} calls`));
        assert.equal(body.id, null);
      }
      const res = await fetch(mcpUrl, { method: 'POST', headers: LEGACY_HEADERS, body: JSON.stringify(Array.from({ length: MAX_BATCH }, (_, i) => call(i + 1))) });
      assert.notEqual(res.status, 400, 'a batch at the limit is not refused for its size');
    });

    it('search with pagelen 100: every result under 50,000 characters, the walk by next_arguments (skip) lists exactly the REST walk, through both SDK lines', async () => {
      const rest = await walkRest(`${site.origin}/api/agent/search?pagelen=100`);
      const viaLegacy = await walkBounded(legacy, 'search', { pagelen: '100' });
      assert.ok(viaLegacy.largest <= MAX_CHARS, `largest result ${viaLegacy.largest}`);
      assert.ok(viaLegacy.calls.some((c) => 'skip' in c), 'a page was cut and continued with skip');
      assert.deepEqual(viaLegacy.items, rest);
      const viaV2 = await walkBounded(v2.client, 'search', { pagelen: '100' });
      assert.deepEqual(viaV2.calls, viaLegacy.calls);
      assert.deepEqual(viaV2.items, rest);
    });

    it('read_resource of a long article: parts under 50,000 characters, continued with start, that join to the Markdown read', async () => {
      for (const client of [legacy, v2.client]) {
        let text = '';
        let args: Record<string, unknown> | undefined = { id: String(longId) };
        let parts = 0;
        while (args) {
          const { result, chars } = await callRaw(client, 'read_resource', args);
          assert.ok(!result.isError);
          assert.ok(chars <= MAX_CHARS, `part ${parts}: ${chars} characters`);
          assert.equal(result.structuredContent!.id, longId);
          let part = result.content[0]!.text!;
          part = part.replace(/^\[… continued from character \d+ of \d+\]\n\n/, '');
          const note = /\n\n\[… cut at character (\d+) of (\d+) to keep this result under 50000 characters\. Read on with read_resource (\{.*\}), or fetch the whole Markdown: (\S+)\]\n$/.exec(part);
          if (note) {
            assert.equal(Number(note[2]), longMarkdown.length);
            assert.equal(new URL(note[4]!).pathname, `/agent/resource/${longId}/markdown`);
            args = JSON.parse(note[3]!) as Record<string, unknown>;
            assert.equal(args.start, note[1]);
            part = part.slice(0, note.index);
          } else {
            args = undefined;
          }
          text += part;
          parts++;
        }
        assert.ok(parts >= 2, `${parts} parts`);
        assert.equal(text, longMarkdown, 'the parts join to the whole');
      }
    });

    it('a short read is whole, and bad bound arguments are 400s naming them', async () => {
      const { result } = await callRaw(legacy, 'read_resource', { id: 'welcome' });
      assert.equal(result.content[0]!.text, await (await fetch(`${site.origin}/agent/resource/welcome/markdown`)).text());
      assert.match(await callError(legacy, 'read_resource', { id: String(longId), start: String(longMarkdown.length + 5) }), /start.*is past the end/);
      assert.match(await callError(legacy, 'read_resource', { id: 'welcome', start: '-1' }), /start/);
      assert.match(await callError(v2.client, 'search', { skip: '100' }), /skip/);
      assert.match(await callError(v2.client, 'search', { skip: 'x' }), /skip/);
    });
  });
}
