import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { callOk, type Structured, type ToolCaller } from './mcp-client.js';

/** Version negotiation of the v2 SDK client: `'legacy'` (its default), `'auto'` or a pinned revision. */
export type V2Negotiation = 'legacy' | 'auto' | { pin: string };

/** One POST the v2 client sent: the JSON-RPC method, the MCP headers and the revision its `_meta` named. */
export interface WireRequest {
  method: string;
  protocolHeader: string | null;
  methodHeader: string | null;
  nameHeader: string | null;
  metaVersion: string | undefined;
}

/** A connected v2 client and every request it sent, in order. */
export interface V2Connection {
  client: Client;
  wire: WireRequest[];
}

/**
 * The v2 SDK's own client (`@modelcontextprotocol/client`) over Streamable HTTP. Its default
 * negotiation is `'legacy'` (a 2025 `initialize`); `'auto'` probes with `server/discover` and, when the
 * server speaks 2026-07-28, sends the per-request envelope and headers from then on. `headers` go on
 * every request (a cookie, say).
 */
export async function connectMcpV2(url: string, negotiation: V2Negotiation = 'auto', headers: Record<string, string> = {}): Promise<V2Connection> {
  const wire: WireRequest[] = [];
  const recording: FetchLike = async (input, init) => {
    const sent = new Headers(init?.headers);
    if (init?.method === 'POST' && typeof init.body === 'string') {
      const body = JSON.parse(init.body) as { method?: string; params?: { _meta?: Record<string, unknown> } };
      wire.push({
        method: body.method ?? '',
        protocolHeader: sent.get('mcp-protocol-version'),
        methodHeader: sent.get('mcp-method'),
        nameHeader: sent.get('mcp-name'),
        metaVersion: body.params?._meta?.['io.modelcontextprotocol/protocolVersion'] as string | undefined,
      });
    }
    return fetch(input, init);
  };
  const client = new Client({ name: 'express-agent-discovery-v2-test', version: '1.0.0' }, { versionNegotiation: { mode: negotiation } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recording, requestInit: { headers } }));
  return { client, wire };
}

/** One answer of a paged tool: its structured result and its text. */
export interface ToolPage {
  structured: Structured;
  text: string;
}

/** Follows `next_arguments` to the end, keeping every page whole (its items, boundaries and text). */
export async function toolPages(client: ToolCaller, name: string, args: Record<string, unknown>): Promise<ToolPage[]> {
  const pages: ToolPage[] = [];
  let next: Record<string, unknown> | null = args;
  while (next) {
    const page = await callOk(client, name, next);
    pages.push(page);
    next = page.structured.next_arguments;
    if (pages.length > 1000) throw new Error('walk does not end');
  }
  return pages;
}

/** What `resources/list` pages have in common across clients and revisions. */
export interface ResourcePage {
  resources: { uri: string }[];
  more: boolean;
}

/**
 * Every page of `resources/list`, one request each. The v2 client aggregates all pages when called
 * without a cursor, so its first page is asked for with a plain `request`; the 1.x client answers
 * one page per call.
 */
export async function resourcePages(list: (cursor: string | undefined) => Promise<{ resources: { uri: string }[]; nextCursor?: string | undefined }>): Promise<ResourcePage[]> {
  const pages: ResourcePage[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    pages.push({ resources: page.resources, more: page.nextCursor !== undefined });
    cursor = page.nextCursor;
    if (pages.length > 1000) throw new Error('walk does not end');
  } while (cursor);
  return pages;
}

/** One page of `resources/list` through the v2 client, never its auto-aggregation. */
export function v2ResourcePage(client: Client) {
  return (cursor: string | undefined) =>
    cursor === undefined ? client.request({ method: 'resources/list', params: {} }) : client.listResources({ cursor });
}
