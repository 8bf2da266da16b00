import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Express } from 'express';

/** An app listening on a loopback port. */
export interface Listening {
  origin: string;
  close(): Promise<void>;
}

export async function listen(app: Express): Promise<Listening> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The SDK's own client over Streamable HTTP, initialized; `headers` go on every request (a cookie, say). */
export async function connectMcp(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'express-agent-discovery-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export type Structured = Record<string, any>;

/**
 * What the walks below need of a client: the SDK's `Client` (2025-11-25, initialized) and the raw
 * 2026-07-28 `ModernMcpClient` both have it.
 */
export interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** Calls a tool and returns its structured result; a tool error fails with its text. */
export async function callOk(client: ToolCaller, name: string, args: Record<string, unknown>): Promise<{ structured: Structured; text: string }> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (res.isError) throw new Error(`tool ${name} failed: ${JSON.stringify(res.content)}`);
  const text = res.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  return { structured: res.structuredContent as Structured, text };
}

/** Calls a tool that must fail: its error text (the facade's error envelope). */
export async function callError(client: ToolCaller, name: string, args: Record<string, unknown>): Promise<string> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!res.isError) throw new Error(`tool ${name} succeeded with ${JSON.stringify(args)}`);
  return res.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** Follows `next_arguments` to the end; every page's items, in order. */
export async function walkTool(client: ToolCaller, name: string, args: Record<string, unknown>): Promise<Structured[]> {
  const items: Structured[] = [];
  let next: Record<string, unknown> | null = args;
  let pages = 0;
  while (next) {
    const { structured } = await callOk(client, name, next);
    items.push(...structured.items);
    next = structured.next_arguments;
    if (++pages > 1000) throw new Error('walk does not end');
  }
  return items;
}

/** Follows `next_url` of a REST read to the end; every page's items, in order. */
export async function walkRest(url: string, headers: Record<string, string> = {}): Promise<Structured[]> {
  const items: Structured[] = [];
  let next: string | null = url;
  while (next) {
    const res = await fetch(next, { headers });
    if (res.status !== 200) throw new Error(`${next}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { result: { items: Structured[]; next_url: string | null } };
    items.push(...body.result.items);
    next = body.result.next_url;
  }
  return items;
}
