/**
 * Discovery benchmark: HEAD and GET of each discovery document, and a host page with and without
 * the Link-merging middleware, on a loopback server over the embedded database (or DATABASE_URL).
 *
 *   npx tsx bench/discovery-bench.ts            # 2-second runs, 20 connections
 *   BENCH_SECONDS=3 npx tsx bench/discovery-bench.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import express from 'express';
import { sql } from 'kysely';
import { createAgentDiscovery } from '../src/index.js';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { isSeeded, seedDemoContent } from '../example-site/seed.js';

const SECONDS = Math.min(3, Number(process.env.BENCH_SECONDS ?? 2));
const CONNECTIONS = 20;

interface Row {
  target: string;
  method: string;
  rps: number;
  p50: number;
  p99: number;
}

/** http-parser-js's "headers complete" callback slot; returning true tells it a response has no body. */
const ON_HEADERS_COMPLETE = 2;

/**
 * autocannon's parser does not know a HEAD response has no body and waits for Content-Length bytes;
 * for HEAD runs its headers-complete callback is made to answer "skip the body", as Node's own client does.
 */
function headAwareClient(client: unknown): void {
  const parser = (client as { parser: Record<number, unknown> }).parser;
  let handler: ((opts: unknown) => void) | undefined;
  Object.defineProperty(parser, ON_HEADERS_COMPLETE, {
    configurable: true,
    get: () => (opts: unknown) => {
      handler?.(opts);
      return true;
    },
    set: (fn: (opts: unknown) => void) => {
      handler = fn;
    },
  });
}

async function run(url: string, method: 'GET' | 'HEAD'): Promise<Omit<Row, 'target' | 'method'>> {
  const result = await autocannon({
    url,
    method,
    connections: CONNECTIONS,
    duration: SECONDS,
    ...(method === 'HEAD' ? { setupClient: headAwareClient as autocannon.Options['setupClient'] } : {}),
  });
  if (result.non2xx || result.errors) throw new Error(`${method} ${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function listen(app: express.Express): Promise<{ origin: string; server: http.Server }> {
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const content = process.env.DATABASE_URL ? await openDatabase({ url: process.env.DATABASE_URL }) : await openDatabase({ memory: true });
await migrateToLatest(content.db);
if (!(await isSeeded(content.db))) await seedDemoContent(content.db);
await sql`ANALYZE`.execute(content.db);

const agent = await createAgentDiscovery({
  siteTitle: 'Bench Site',
  description: 'Articles about harbours and open data.',
  languages: ['en', 'nl'],
  database: { kysely: content.db },
});
const hostPage = (_req: express.Request, res: express.Response) => {
  res.append('Link', '<https://hub.example.net/>; rel="hub"');
  res.type('html').send('<!doctype html><html><head><title>Page</title></head><body><p>Hello</p></body></html>');
};
const withLinks = express();
withLinks.use(agent.linkHeaders);
withLinks.use(agent.router);
withLinks.get('/page', hostPage);
withLinks.get('/resource/:id', async (req, res) => {
  await agent.setResourceHeaders(req, res, String(req.params.id));
  hostPage(req, res);
});
const without = express();
without.get('/page', hostPage);

const a = await listen(withLinks);
const b = await listen(without);
const rows: Row[] = [];
const documents = ['/.well-known/api-catalog', '/llms.txt', '/openapi.json', '/.well-known/ard.json', '/api-help'];
try {
  for (const path of documents) {
    for (const method of ['HEAD', 'GET'] as const) rows.push({ target: path, method, ...(await run(`${a.origin}${path}`, method)) });
  }
  for (const method of ['HEAD', 'GET'] as const) {
    rows.push({ target: 'host page, no Link middleware', method, ...(await run(`${b.origin}/page`, method)) });
    rows.push({ target: 'host page, Link middleware', method, ...(await run(`${a.origin}/page`, method)) });
  }
  rows.push({ target: 'resource page, setResourceHeaders', method: 'GET', ...(await run(`${a.origin}/resource/welcome`, 'GET')) });
} finally {
  a.server.close();
  b.server.close();
  await content.close();
}

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const lines = [
  `discovery bench: ${content.kind === 'pglite' ? 'PGlite' : 'PostgreSQL'}, ${CONNECTIONS} connections, ${SECONDS} s per run`,
  `${pad('target', 38)}${pad('method', 8)}${pad('req/s', 10)}${pad('p50 ms', 8)}p99 ms`,
  ...rows.map((r) => `${pad(r.target, 38)}${pad(r.method, 8)}${pad(Math.round(r.rps), 10)}${pad(r.p50, 8)}${r.p99}`),
];
for (const method of ['HEAD', 'GET']) {
  const off = rows.find((r) => r.target === 'host page, no Link middleware' && r.method === method)!;
  const on = rows.find((r) => r.target === 'host page, Link middleware' && r.method === method)!;
  lines.push(`Link middleware on a host page (${method}): ${(on.rps / off.rps).toFixed(2)}× the throughput without it (p50 ${off.p50} → ${on.p50} ms)`);
}
process.stdout.write(`${lines.join('\n')}\n`);
