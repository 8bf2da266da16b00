/**
 * A soak of the example site (SPEC §18, issue 32): 8 clients reading a mix of the plugin's routes back
 * to back, one `llms-full.txt` every 10 s, and an edit every 5 s (a title, so every content version is
 * a new one and the caches rebuild while the clients read), for 2 minutes; then every status counted and
 * each route's latency. The site serves from a child process, on PostgreSQL (DATABASE_URL, a database
 * of its own, `ead_bench_soak`, seeded on the first run and kept) or, with `--pglite`, on an embedded
 * PGlite in memory (the default a new user gets), seeded at start.
 *
 *   npx tsx bench/soak.ts [--pglite]
 *   BENCH_SOAK_SECONDS (default 120), BENCH_SOAK_CLIENTS (default 8), BENCH_SOAK_EDIT_MS (default 5000,
 *   0: no edits), BENCH_SOAK_FULL_MS (default 10000), BENCH_SOAK_FILL (articles added to the demo
 *   content, default 400), BENCH_SOAK_DB (the PostgreSQL database, default ead_bench_soak, or
 *   ead_bench_soak_<fill> for another fill)
 *
 * Goal (issue 32): 0 responses ≥ 500 on either backend.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { createExampleSite } from '../example-site/app.js';
import { keptHarbourLog, seedHarbourLog } from './harbour-log.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Articles added to the demo content, so llms-full.txt reaches its budget and search has pages to walk. */
const FILL = Number(process.env.BENCH_SOAK_FILL ?? 400);
const DB_NAME = process.env.BENCH_SOAK_DB ?? (FILL === 400 ? 'ead_bench_soak' : `ead_bench_soak_${FILL}`);
const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 120);
const CLIENTS = Number(process.env.BENCH_SOAK_CLIENTS ?? 8);
const EDIT_MS = Number(process.env.BENCH_SOAK_EDIT_MS ?? 5000);
const FULL_MS = Number(process.env.BENCH_SOAK_FULL_MS ?? 10_000);
const PGLITE = process.argv.includes('--pglite');
const write = (line: string) => process.stdout.write(`${line}\n`);

/**
 * The child: the example site on the bench database (or a seeded in-memory PGlite), editing one
 * article's title every EDIT_MS through its own handle. Reports its port and public ids; 'stop' ends it
 * and reports how many edits it made.
 */
async function serve(): Promise<void> {
  const url = process.env.BENCH_DB_URL;
  const site = await createExampleSite({ database: url ? { url } : { memory: true }, seed: false });
  const db = site.agent.database.db;
  if (!url) await seedHarbourLog(db, FILL);
  // The articles, whatever earlier runs' edits made of their titles ("Harbour log, revised 3").
  const { rows } = await sql<{ id: number }>`SELECT id FROM rsc WHERE title->>'en' LIKE 'Harbour log%' ORDER BY id`.execute(db);
  const ids = rows.map((r) => Number(r.id));
  let edits = 0;
  const timer = EDIT_MS > 0
    ? setInterval(() => {
        const id = ids[edits % ids.length]!;
        edits++;
        void sql`UPDATE rsc SET title = jsonb_set(title, '{en}', to_jsonb(${`Harbour log, revised ${edits}`}::text)), modified = now() WHERE id = ${id}`.execute(db).catch((e: Error) => write(`edit failed: ${e.message}`));
      }, EDIT_MS)
    : undefined;
  const server = site.app.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port, ids }));
  process.on('message', async () => {
    clearInterval(timer);
    process.send!({ edits, cache: site.agent.cacheStats() });
    server.close();
    await site.close();
    process.exit(0);
  });
}

interface Sample {
  route: string;
  status: number;
  ms: number;
}

/** The routes a client picks from, each with its share; `id` is a public article's id. */
const ROUTES: Array<{ route: string; weight: number; path: (id: number) => string; accept?: string }> = [
  { route: 'search (text)', weight: 4, path: (id) => `/api/agent/search?text=harbour+${id % 7}` },
  { route: 'search (browse)', weight: 3, path: () => `/api/agent/search?sort=newest&pagelen=20` },
  { route: 'resource JSON', weight: 4, path: (id) => `/api/agent/resource/${id}` },
  { route: 'resource Markdown', weight: 4, path: (id) => `/agent/resource/${id}/markdown` },
  { route: 'related', weight: 2, path: (id) => `/api/agent/related/${id}` },
  { route: 'page, Markdown negotiated', weight: 2, path: (id) => `/en/page/${id}`, accept: 'text/markdown' },
  { route: 'page, HTML', weight: 2, path: (id) => `/en/page/${id}`, accept: 'text/html' },
  { route: 'llms.txt', weight: 1, path: () => '/llms.txt' },
  { route: 'api-help', weight: 1, path: () => '/api-help' },
  { route: 'openapi.json', weight: 1, path: () => '/openapi.json' },
  { route: 'changes', weight: 1, path: () => '/api/agent/changes' },
];
const TOTAL_WEIGHT = ROUTES.reduce((s, r) => s + r.weight, 0);

function pick(n: number): (typeof ROUTES)[number] {
  let x = n % TOTAL_WEIGHT;
  for (const r of ROUTES) {
    if (x < r.weight) return r;
    x -= r.weight;
  }
  return ROUTES[0]!;
}

async function get(origin: string, route: string, path: string, accept?: string): Promise<Sample> {
  const started = performance.now();
  try {
    const res = await fetch(origin + path, accept ? { headers: { accept } } : {});
    await res.arrayBuffer();
    return { route, status: res.status, ms: performance.now() - started };
  } catch {
    return { route, status: 0, ms: performance.now() - started };
  }
}

const percentile = (xs: readonly number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

async function main(): Promise<void> {
  const url = PGLITE ? undefined : await keptHarbourLog(SERVER, DB_NAME, FILL);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['serve'], { env: { ...process.env, ...(url ? { BENCH_DB_URL: url } : {}) } });
  const { port, ids } = await new Promise<{ port: number; ids: number[] }>((resolve, reject) => child.once('message', resolve as never).once('exit', reject));
  const origin = `http://127.0.0.1:${port}`;
  write(`# soak (${new Date().toISOString()}): ${PGLITE ? 'PGlite in memory' : 'PostgreSQL'}, the demo content and ${FILL} articles, ${CLIENTS} clients, ${SECONDS} s, llms-full.txt every ${FULL_MS / 1000} s, an edit every ${EDIT_MS / 1000} s`);
  const samples: Sample[] = [];
  const until = Date.now() + SECONDS * 1000;
  let counter = 0;
  const clients = Array.from({ length: CLIENTS }, async (_, c) => {
    for (let n = c * 7919; Date.now() < until; n++) {
      const r = pick(n * 31 + counter++);
      samples.push(await get(origin, r.route, r.path(ids[(n * 13) % ids.length]!), r.accept));
    }
  });
  const full = (async () => {
    while (Date.now() + FULL_MS <= until) {
      await new Promise((resolve) => setTimeout(resolve, FULL_MS));
      samples.push(await get(origin, 'llms-full.txt', '/llms-full.txt'));
    }
  })();
  await Promise.all([...clients, full]);
  const edits = await new Promise<{ edits: number; cache: { hits: number; builds: number; dropped?: number; evictions: number; entries: number } }>((resolve) => {
    child.once('message', resolve as never);
    child.send('stop');
  });
  write(`\n| route | requests | statuses | p50 ms | p95 ms | p99 ms | max ms | past 30 s |`);
  write(`|---|---|---|---|---|---|---|---|`);
  for (const route of [...ROUTES.map((r) => r.route), 'llms-full.txt']) {
    const of = samples.filter((s) => s.route === route);
    if (!of.length) continue;
    const statuses = new Map<number, number>();
    for (const s of of) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
    const times = of.map((s) => s.ms);
    write(`| ${route} | ${of.length} | ${[...statuses].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}: ${v}`).join(', ')} | ${percentile(times, 50).toFixed(0)} | ${percentile(times, 95).toFixed(0)} | ${percentile(times, 99).toFixed(0)} | ${Math.max(...times).toFixed(0)} | ${times.filter((t) => t > 30_000).length} |`);
  }
  const failed = samples.filter((s) => s.status >= 500 || s.status === 0);
  // Every route of the mix answers 200 when it works: a 4xx here means the bench asks wrongly.
  const refused = samples.filter((s) => s.status >= 400 && s.status < 500);
  write(`\n${samples.length} requests, ${edits.edits} edits; responses ≥ 500 or no response: ${failed.length}; 4xx: ${refused.length}`);
  const c = edits.cache;
  write(`build cache: ${c.hits} hits, ${c.builds} builds (${(c.hits / Math.max(1, c.hits + c.builds)).toFixed(3)} of lookups hit), ${c.dropped ?? 0} dropped, ${c.evictions} evicted, ${c.entries} entries`);
  process.exitCode = failed.length ? 1 : 0;
}

if (process.argv[2] === 'serve') await serve();
else await main();
