/**
 * Facade benchmark on real PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres).
 * Seeds `BENCH_ROWS` resources (default 1,000,000) into its own database `ead_bench_facade` (kept
 * between runs), then reports side by side, interleaved in one run:
 *   - search browse: first page vs a deep page through the continuation vs the OFFSET read at the same depth
 *   - text search p50/p99
 *   - /api/agent/resource/{id} and the Markdown route's throughput vs a bare Express + pg endpoint reading one row by key
 *
 *   npx tsx bench/facade-bench.ts
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import pg from 'pg';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { createAgentDiscovery } from '../src/index.js';
import { insertCategory } from '../example-site/content-store.js';
import { keptContentToSeed, keptDatabase } from './kept-database.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const DB_NAME = 'ead_bench_facade';
const WORDS = ['harbour', 'quay', 'ship', 'tide', 'crane', 'dock', 'ferry', 'pier', 'cargo', 'lighthouse', 'anchor', 'canal'];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const ms = (x: number) => x.toFixed(2);

async function seed(url: string): Promise<void> {
  const content = await keptContentToSeed(url, ROWS, DB_NAME);
  if (!content) return;
  const { db } = content;
  const article = await insertCategory(db, { name: 'article' });
  const started = Date.now();
  for (let from = 1; from <= ROWS; from += 100_000) {
    const to = Math.min(ROWS, from + 99_999);
    await sql`
      INSERT INTO rsc (category_id, is_published, visibility, publication_start, modified, language, title, summary, body)
      SELECT ${article}, (i % 50) <> 0, CASE WHEN i % 97 = 0 THEN 'members' ELSE 'public' END,
             timestamptz '2015-01-01' + (i % 300000) * interval '17 minutes',
             timestamptz '2020-01-01' + ((i * 7919) % 1000000) * interval '1 minute',
             '{en,nl}',
             jsonb_build_object('en', 'Note ' || i || ' about the ' || (${sql.val(WORDS)}::text[])[1 + i % 12], 'nl', 'Notitie ' || i),
             jsonb_build_object('en', 'A ' || (${sql.val(WORDS)}::text[])[1 + (i / 12) % 12] || ' and a ' || (${sql.val(WORDS)}::text[])[1 + (i / 144) % 12]),
             jsonb_build_object('en', '<p>Body ' || i || ' mentions the ' || (${sql.val(WORDS)}::text[])[1 + (i / 7) % 12] || '.</p>')
      FROM generate_series(${from}::bigint, ${to}::bigint) AS i`.execute(db);
    process.stdout.write(`  ${to} rows (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  await sql`ANALYZE`.execute(db);
  await content.close();
}

function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

async function timed(url: string): Promise<{ ms: number; body: any }> {
  const t = process.hrtime.bigint();
  const res = await fetch(url);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, body };
}

async function throughput(url: string, paths: string[]): Promise<{ rps: number; p50: number; p99: number }> {
  let i = 0;
  const result = await autocannon({
    url,
    connections: 20,
    duration: 4,
    requests: [{ setupRequest: (req: any) => ({ ...req, path: paths[i++ % paths.length] }) }],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function main(): Promise<void> {
  const url = await keptDatabase(SERVER, DB_NAME);
  await seed(url);
  // Named prepared statements as a direct connection would use them (BENCH_PREPARED=0: unnamed).
  const agent = await createAgentDiscovery({ siteTitle: 'Bench', database: { url, poolSize: 10, preparedStatements: process.env.BENCH_PREPARED !== '0' } });
  const app = express();
  app.use(agent.router);
  const { server, base } = await listen(app);

  // A bare Express + pg endpoint reading one row by primary key: the floor for the resource read.
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const bare = express();
  bare.get('/row/:id', async (req, res) => {
    const r = await pool.query('SELECT id, title, summary, body FROM rsc WHERE id = $1', [Number(req.params.id)]);
    res.json(r.rows[0] ?? null);
  });
  const bareServer = await listen(bare);

  const PAGELEN = 20;
  const DEPTH_PAGE = 499; // 499 × 20 = 9,980: the deepest page under the 10,000-candidate bound
  const browse = `${base}/api/agent/search?sort=newest&pagelen=${PAGELEN}`;
  let next: string = (await timed(browse)).body.result.next_url;
  for (let p = 2; p < DEPTH_PAGE; p++) next = (await timed(next)).body.result.next_url;
  const deepUrl = next;
  const offsetUrl = `${browse}&page=${DEPTH_PAGE}`;
  const a = (await timed(deepUrl)).body.result.items.map((i: any) => i.id);
  const b = (await timed(offsetUrl)).body.result.items.map((i: any) => i.id);
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('deep page via continuation differs from the OFFSET page');

  const first: number[] = [];
  const deep: number[] = [];
  const offset: number[] = [];
  for (let r = 0; r < 60; r++) {
    first.push((await timed(browse)).ms);
    deep.push((await timed(deepUrl)).ms);
    offset.push((await timed(offsetUrl)).ms);
  }
  const text: number[] = [];
  for (let r = 0; r < 120; r++) {
    const q = `${WORDS[r % WORDS.length]} ${WORDS[(r * 5) % WORDS.length]}`;
    text.push((await timed(`${base}/api/agent/search?text=${encodeURIComponent(q)}&pagelen=${PAGELEN}`)).ms);
  }

  const ids = Array.from({ length: 500 }, (_, i) => 1000 + i * 1777).filter((id) => id % 50 !== 0 && id % 97 !== 0);
  const plugin = await throughput(base, ids.map((id) => `/api/agent/resource/${id}`));
  const markdown = await throughput(base, ids.map((id) => `/agent/resource/${id}/markdown`));
  const floor = await throughput(bareServer.base, ids.map((id) => `/row/${id}`));

  const row = (name: string, xs: number[]) => `| ${name} | ${ms(pct(xs, 50))} | ${ms(pct(xs, 99))} |`;
  process.stdout.write(
    [
      `\nfacade bench: ${ROWS.toLocaleString('en')} resources on PostgreSQL (preparedStatements ${process.env.BENCH_PREPARED === '0' ? 'off' : 'on'}), sort=newest, pagelen=${PAGELEN}, page ${DEPTH_PAGE} (depth ${(DEPTH_PAGE - 1) * PAGELEN})`,
      '',
      '| request | p50 ms | p99 ms |',
      '|---|---|---|',
      row('browse, first page', first),
      row(`browse, page ${DEPTH_PAGE} via continuation`, deep),
      row(`browse, page ${DEPTH_PAGE} via OFFSET`, offset),
      row('text search (two words)', text),
      '',
      `deep/first (continuation) p50 ratio: ${(pct(deep, 50) / pct(first, 50)).toFixed(2)}`,
      `OFFSET/first p50 ratio:             ${(pct(offset, 50) / pct(first, 50)).toFixed(2)}`,
      '',
      '| endpoint (20 connections, 4 s) | req/s | p50 ms | p99 ms |',
      '|---|---|---|---|',
      `| /api/agent/resource/{id} | ${plugin.rps.toFixed(0)} | ${plugin.p50} | ${plugin.p99} |`,
      `| /agent/resource/{id}/markdown | ${markdown.rps.toFixed(0)} | ${markdown.p50} | ${markdown.p99} |`,
      `| bare Express + pg by primary key | ${floor.rps.toFixed(0)} | ${floor.p50} | ${floor.p99} |`,
      '',
      `resource read / bare throughput ratio: ${(plugin.rps / floor.rps).toFixed(2)}`,
      '',
    ].join('\n'),
  );
  server.close();
  bareServer.server.close();
  await pool.end();
  await agent.close();
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
