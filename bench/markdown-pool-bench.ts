/**
 * The event loop while Markdown is converted: `npm run bench -- markdown-pool`
 * (or `node --import tsx bench/markdown-pool-bench.ts`). A plugin host on PostgreSQL (DATABASE_URL, a
 * database of its own) serves from a child process, once with `markdownWorkers: 0` (turndown on the
 * event loop) and once with the default worker pool. For each: p50/p99 of the light
 * `/.well-known/api-catalog` alone, then again while two clients keep reading the Markdown of a 1 MiB
 * article (dense markup, cut to the 512 KiB HTML bound). Then, in this process, the conversion time of
 * small articles in process vs through a worker (the in-process threshold).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import express from 'express';
import autocannon from 'autocannon';
import pg from 'pg';
import { createAgentDiscovery } from '../src/index.js';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { bootstrapVocabulary, insertCategory, insertResource } from '../example-site/content-store.js';
import { createMarkdownConverter, defaultMarkdownWorkers, IN_PROCESS_MAX_CHARS, type MarkdownConverter } from '../src/markdown/converter.js';
import { resolveMarkdownLimits } from '../src/markdown/limits.js';
import { denseHtml } from '../test/support/dense-html.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'ead_bench_markdown_pool';
const LIGHT = '/.well-known/api-catalog';
const HEAVY_CLIENTS = 2;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 6);
const write = (line: string) => process.stdout.write(`${line}\n`);

/** The child: the plugin on Express, `markdownWorkers` from the environment; reports its port. */
async function serve(): Promise<void> {
  const workers = process.env.BENCH_WORKERS === '' ? undefined : Number(process.env.BENCH_WORKERS);
  const agent = await createAgentDiscovery({
    siteTitle: 'Bench',
    database: { url: process.env.BENCH_DB_URL! },
    ...(workers === undefined ? {} : { markdownWorkers: workers }),
  });
  const app = express();
  app.use(agent.router);
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  // The event loop's delay, sampled every 10 ms, between 'lag' messages: what a blocked loop costs every request.
  let lag: IntervalHistogram | undefined;
  process.on('message', async (message: string) => {
    if (message === 'lag') {
      if (!lag) {
        lag = monitorEventLoopDelay({ resolution: 10 });
        lag.enable();
        process.send!({ lag: 'started' });
        return;
      }
      lag.disable();
      process.send!({ lag: { p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 } });
      lag = undefined;
      return;
    }
    server.close();
    await agent.close();
    process.exit(0);
  });
}

async function freshDatabase(): Promise<string> {
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  await admin.end();
  const url = new URL(SERVER);
  url.pathname = `/${DB_NAME}`;
  return url.toString();
}

async function seedHeavyArticle(url: string): Promise<number> {
  const content = await openDatabase({ url });
  try {
    await migrateToLatest(content.db);
    await bootstrapVocabulary(content.db);
    await insertCategory(content.db, { name: 'article' });
    return await insertResource(content.db, { category: 'article', title: { en: 'Heavy' }, body: { en: denseHtml(1024 * 1024) } });
  } finally {
    await content.close();
  }
}

async function startServer(url: string, workers: number | undefined): Promise<{ child: ChildProcess; origin: string }> {
  const child = fork(fileURLToPath(import.meta.url), ['serve'], {
    env: { ...process.env, BENCH_DB_URL: url, BENCH_WORKERS: workers === undefined ? '' : String(workers) },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, origin: `http://127.0.0.1:${port}` };
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
}

/** Starts, then stops and reads, the server's event-loop delay histogram. */
async function lag(child: ChildProcess): Promise<{ p99: number; max: number } | undefined> {
  const reply = new Promise<{ lag: 'started' | { p99: number; max: number } }>((resolve) => child.once('message', resolve));
  child.send('lag');
  const { lag: answer } = await reply;
  return answer === 'started' ? undefined : answer;
}

async function light(origin: string): Promise<{ p50: number; p99: number; rps: number; errors: number }> {
  const r = await autocannon({ url: origin + LIGHT, connections: 4, duration: DURATION_S });
  return { p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average, errors: r.errors + r.non2xx };
}

/** Clients reading the heavy Markdown back to back until `stop`; returns the statuses seen. */
function heavyLoad(origin: string, id: number): { stop: () => Promise<Map<number, number>> } {
  let running = true;
  const statuses = new Map<number, number>();
  const loop = async () => {
    while (running) {
      const res = await fetch(`${origin}/agent/resource/${id}/markdown`);
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  const loops = Array.from({ length: HEAVY_CLIENTS }, loop);
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return statuses;
    },
  };
}

async function eventLoopRows(url: string, id: number): Promise<void> {
  const modes = [
    { label: 'in process (markdownWorkers: 0)', workers: 0 },
    { label: `worker pool (default: ${defaultMarkdownWorkers()})`, workers: undefined },
  ];
  write(`api-catalog (4 connections, ${DURATION_S} s) alone and while ${HEAVY_CLIENTS} clients read the Markdown of a 1 MiB article:`);
  write('| conversion | alone p50 / p99 ms | with 1 MiB conversions p50 / p99 ms | p99 loaded/alone | api-catalog req/s alone / loaded | server event-loop delay under load p99 / max ms | 1 MiB reads (status: count) |');
  write('|---|---|---|---|---|---|---|');
  const loadedP99: number[] = [];
  for (const mode of modes) {
    const { child, origin } = await startServer(url, mode.workers);
    try {
      for (let i = 0; i < 2; i++) await (await fetch(`${origin}/agent/resource/${id}/markdown`)).arrayBuffer();
      const alone = await light(origin);
      const heavy = heavyLoad(origin, id);
      await lag(child);
      const loaded = await light(origin);
      const loopDelay = (await lag(child))!;
      const statuses = await heavy.stop();
      loadedP99.push(loaded.p99);
      write(
        `| ${mode.label} | ${alone.p50} / ${alone.p99} | ${loaded.p50} / ${loaded.p99} | ${(loaded.p99 / Math.max(alone.p99, 1)).toFixed(1)} | ` +
          `${Math.round(alone.rps)} / ${Math.round(loaded.rps)} | ${loopDelay.p99.toFixed(0)} / ${loopDelay.max.toFixed(0)} | ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')} |`,
      );
      if (alone.errors || loaded.errors) write(`  (api-catalog errors: ${alone.errors} alone, ${loaded.errors} loaded)`);
    } finally {
      await stopServer(child);
    }
  }
  write(`loaded p99 in process / with the pool: ${(loadedP99[0]! / Math.max(loadedP99[1]!, 1)).toFixed(1)}; goal p99 <= 50 ms with the pool: ${loadedP99[1]! <= 50 ? 'met' : 'NOT met'}`);
}

/** Median time of `runs` conversions, alternating the two converters so that both see the same machine. */
async function smallArticleRows(): Promise<void> {
  const limits = resolveMarkdownLimits();
  const pool = createMarkdownConverter({ workers: 1, inProcessMaxChars: 0, timeoutMs: 600_000 });
  const inProcess = createMarkdownConverter({ workers: 0 });
  const time = async (c: MarkdownConverter, html: string) => {
    const started = performance.now();
    await c.convert(html, { baseUrl: 'https://site.example' }, limits);
    return performance.now() - started;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  write('');
  write(`Small articles (dense markup): one conversion in process vs through a worker (p50 of 40, alternated); threshold in use: ${IN_PROCESS_MAX_CHARS} characters`);
  write('| HTML | in process p50 ms (blocks the event loop) | worker p50 ms (round trip) | worker/in process |');
  write('|---|---|---|---|');
  try {
    await time(pool, denseHtml(1024));
    for (const kib of [1, 2, 4, 8, 16, 32]) {
      const html = denseHtml(kib * 1024);
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < 40; i++) {
        a.push(await time(inProcess, html));
        b.push(await time(pool, html));
      }
      write(`| ${kib} KiB | ${median(a).toFixed(2)} | ${median(b).toFixed(2)} | ${(median(b) / median(a)).toFixed(2)} |`);
    }
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const url = await freshDatabase();
  const id = await seedHeavyArticle(url);
  await eventLoopRows(url, id);
  await smallArticleRows();
}

if (process.argv[2] === 'serve') await serve();
else await main();
