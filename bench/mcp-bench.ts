/**
 * MCP tool calls vs the REST routes they mirror, side by side in one run, on the example site over
 * PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; a database of its
 * own, `ead_bench_mcp`, seeded with the demo content and dropped afterwards). 20 connections,
 * interleaved rounds:
 *   - GET /api/agent/search?sort=newest&pagelen=20  vs  POST /mcp tools/call search {sort:newest,pagelen:20}
 *   - GET /api/agent/resource/welcome               vs  POST /mcp tools/call read_resource {id:welcome}
 * Then prints a short client transcript (search → read_resource → related) through the SDK's client.
 *
 *   npx tsx bench/mcp-bench.ts
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pg from 'pg';
import { sql } from 'kysely';
import autocannon from 'autocannon';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createExampleSite } from '../example-site/app.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'ead_bench_mcp';
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = 2;

async function admin(query: string): Promise<void> {
  const c = new pg.Client({ connectionString: SERVER });
  await c.connect();
  await c.query(query);
  await c.end();
}

const toolCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

async function rate(origin: string, target: { path: string; body?: string }): Promise<{ rps: number; p50: number; errors: number }> {
  const result = await autocannon({
    url: `${origin}${target.path}`,
    connections: 20,
    duration: DURATION,
    ...(target.body
      ? { method: 'POST' as const, body: target.body, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }
      : {}),
  });
  return { rps: result.requests.average, p50: result.latency.p50, errors: result.errors + result.non2xx };
}

async function transcript(origin: string): Promise<void> {
  const client = new Client({ name: 'bench-transcript', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const short = (v: unknown) => JSON.stringify(v).slice(0, 240);
  out(`initialize → ${short(client.getServerVersion())}`);
  const search = await client.callTool({ name: 'search', arguments: { text: 'harbour', pagelen: '2' } });
  const s = search.structuredContent as { items: { id: number; title: string; page_url: string }[]; next_arguments: unknown };
  out(`search {text:"harbour", pagelen:"2"} → ${short(s.items.map((i) => ({ id: i.id, title: i.title, page_url: i.page_url })))}`);
  out(`  next_arguments → ${short(s.next_arguments)}`);
  const id = String(s.items[0]!.id);
  const read = await client.callTool({ name: 'read_resource', arguments: { id, language: 'nl' } });
  const r = read.structuredContent as Record<string, unknown>;
  out(`read_resource {id:"${id}", language:"nl"} → ${short({ title: r.title, page_url: r.page_url, language: r.language, license: r.license })}`);
  out(`  text → ${short((read.content as { text: string }[])[0]!.text.split('\n').slice(0, 3).join(' / '))}`);
  const related = await client.callTool({ name: 'related', arguments: { id, predicate: 'subject' } });
  const rel = related.structuredContent as { items: { predicate: { name: string }; resource: { id: number; title: string } }[] };
  out(`related {id:"${id}", predicate:"subject"} → ${short(rel.items.map((i) => ({ predicate: i.predicate.name, id: i.resource.id, title: i.resource.title })))}`);
  const bad = await client.callTool({ name: 'search', arguments: { pagelen: '500' } });
  out(`search {pagelen:"500"} → isError ${bad.isError}: ${(bad.content as { text: string }[])[0]!.text}`);
  await client.close();
}

async function main(): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${DB_NAME}`);
  const url = new URL(SERVER);
  url.pathname = `/${DB_NAME}`;
  const site = await createExampleSite({ database: { url: url.toString() } });
  // Planner statistics for the freshly seeded demo, as autovacuum would give a live site.
  await sql`ANALYZE`.execute(site.agent.database.db);
  const server: Server = site.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const pairs = [
      { label: 'search sort=newest pagelen=20', rest: { path: '/api/agent/search?sort=newest&pagelen=20' }, mcp: { path: '/mcp', body: toolCall('search', { sort: 'newest', pagelen: '20' }) } },
      { label: 'read welcome', rest: { path: '/api/agent/resource/welcome' }, mcp: { path: '/mcp', body: toolCall('read_resource', { id: 'welcome' }) } },
    ];
    for (const pair of pairs) {
      const rest: number[] = [];
      const mcp: number[] = [];
      let restP50 = 0;
      let mcpP50 = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const a = await rate(origin, pair.rest);
        const b = await rate(origin, pair.mcp);
        if (a.errors || b.errors) throw new Error(`${pair.label}: ${a.errors} REST and ${b.errors} MCP errors`);
        rest.push(a.rps);
        mcp.push(b.rps);
        restP50 = a.p50;
        mcpP50 = b.p50;
      }
      const avg = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
      process.stdout.write(
        `${pair.label}: REST ${avg(rest).toFixed(0)} req/s (p50 ${restP50} ms), MCP ${avg(mcp).toFixed(0)} calls/s (p50 ${mcpP50} ms), MCP/REST ${(avg(mcp) / avg(rest)).toFixed(2)}\n`,
      );
    }
    process.stdout.write('\ntranscript:\n');
    await transcript(origin);
  } finally {
    server.closeAllConnections();
    server.close();
    await site.close();
    await admin(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`mcp-bench: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
