/**
 * A burst of llms-full.txt requests: `npx tsx bench/llms-full-burst.ts`. The example site
 * (`llmsFull: true`, 256 KiB) serves from a child process over PostgreSQL (DATABASE_URL, a database of
 * its own, `ead_bench_llms_full`, seeded on the first run and kept: the demo content and enough
 * articles to fill the budget). Inside the server, the event-loop delay (`monitorEventLoopDelay`,
 * p50/p99/max) while idle and during bursts of 20 concurrent GET /llms-full.txt; outside, the burst's
 * request latencies against one request alone, and a light document (`/.well-known/api-catalog`, one
 * client back to back) idle and during the bursts. BENCH_BURSTS (default 5), BENCH_IDLE_MS (default 3000).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { createExampleSite } from '../example-site/app.js';
import { keptHarbourLog } from './harbour-log.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'ead_bench_llms_full';
const BURST = 20;
const BURSTS = Number(process.env.BENCH_BURSTS ?? 5);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 3000);
const MAX_BYTES = 256 * 1024;
/** Articles added to the demo content: about 1.3 KiB of Markdown each, so the budget is always reached. */
const FILL = 400;
const LIGHT = '/.well-known/api-catalog';
const write = (line: string) => process.stdout.write(`${line}\n`);

interface Delay {
  p50: number;
  p99: number;
  max: number;
}

/**
 * The child: the example site (llms-full.txt on, 256 KiB) on the seeded database. Reports its port;
 * 'lag:start' and 'lag:stop' sample its event-loop delay every 10 ms in between; 'stop' ends it.
 */
async function serve(): Promise<void> {
  const site = await createExampleSite({ database: { url: process.env.BENCH_DB_URL! }, seed: false });
  const server = site.app.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  let histogram: IntervalHistogram | undefined;
  process.on('message', async (message: string) => {
    if (message === 'lag:start') {
      histogram = monitorEventLoopDelay({ resolution: 10 });
      histogram.enable();
      process.send!({ started: true });
    } else if (message === 'lag:stop' && histogram) {
      histogram.disable();
      const ms = (ns: number) => ns / 1e6;
      process.send!({ p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) });
    } else {
      server.close();
      await site.close();
      process.exit(0);
    }
  });
}

async function startServer(url: string): Promise<{ child: ChildProcess; origin: string }> {
  const child = fork(fileURLToPath(import.meta.url), ['serve'], { env: { ...process.env, BENCH_DB_URL: url } });
  const { port } = await new Promise<{ port: number }>((resolve, reject) => child.once('message', resolve).once('exit', reject));
  return { child, origin: `http://127.0.0.1:${port}` };
}

/** Sends a message to the server and waits for its reply. */
function ask<T>(child: ChildProcess, message: string): Promise<T> {
  const reply = new Promise<T>((resolve) => child.once('message', resolve));
  child.send(message);
  return reply;
}

/** One client reading the light document back to back until `stop`; its latencies in ms. */
function lightLoad(origin: string): { stop: () => Promise<number[]> } {
  let running = true;
  const times: number[] = [];
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await (await fetch(origin + LIGHT)).arrayBuffer();
      times.push(performance.now() - started);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return times;
    },
  };
}

async function getFull(origin: string): Promise<{ ms: number; status: number; body: string }> {
  const started = performance.now();
  const res = await fetch(`${origin}/llms-full.txt`);
  const body = await res.text();
  return { ms: performance.now() - started, status: res.status, body };
}

const percentile = (xs: readonly number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (x: number) => x.toFixed(x < 10 ? 1 : 0);
const ratio = (a: number, b: number) => (a / Math.max(b, 0.01)).toFixed(1);

async function main(): Promise<void> {
  const url = await keptHarbourLog(SERVER, DB_NAME, FILL);
  const { child, origin } = await startServer(url);
  try {
    const warm = await getFull(origin);
    if (warm.status !== 200) throw new Error(`GET /llms-full.txt answered ${warm.status}`);
    const bytes = Buffer.byteLength(warm.body);
    const included = [...warm.body.matchAll(/^URL: /gm)].length;
    if (!/the rest were cut at the \d+-byte budget/.test(warm.body)) throw new Error('the content does not fill the budget');
    write(`llms-full.txt: ${bytes} bytes of a ${MAX_BYTES}-byte budget, ${included} resources, the rest cut`);

    // One request at a time: what a build costs alone.
    const alone: number[] = [];
    for (let i = 0; i < 5; i++) alone.push((await getFull(origin)).ms);

    // Idle: nothing but the light client.
    let light = lightLoad(origin);
    await ask(child, 'lag:start');
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleDelay = await ask<Delay>(child, 'lag:stop');
    const idleLight = await light.stop();

    // Bursts of 20 concurrent requests, the light client still reading.
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    const bodies = new Set<string>();
    const burstDelays: Delay[] = [];
    light = lightLoad(origin);
    for (let b = 0; b < BURSTS; b++) {
      await ask(child, 'lag:start');
      const answers = await Promise.all(Array.from({ length: BURST }, () => getFull(origin)));
      burstDelays.push(await ask<Delay>(child, 'lag:stop'));
      for (const a of answers) {
        latencies.push(a.ms);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        if (a.status === 200) bodies.add(a.body);
      }
    }
    const burstLight = await light.stop();
    const overBudget = [...bodies].filter((b) => Buffer.byteLength(b) > MAX_BYTES).length;

    const worst = (key: keyof Delay) => Math.max(...burstDelays.map((d) => d[key]));
    const median = (key: keyof Delay) => percentile(burstDelays.map((d) => d[key]), 50);
    write('');
    write(`${BURSTS} bursts of ${BURST} concurrent GET /llms-full.txt (statuses ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}; ${bodies.size} distinct bodies, ${overBudget} over the budget)`);
    write('| | idle | during the bursts (median of bursts / worst burst) | burst/idle (median) |');
    write('|---|---|---|---|');
    for (const key of ['p50', 'p99', 'max'] as const) {
      write(`| server event-loop delay ${key} ms | ${ms(idleDelay[key])} | ${ms(median(key))} / ${ms(worst(key))} | ${ratio(median(key), idleDelay[key])} |`);
    }
    write(`| ${LIGHT} p50 / p99 ms (one client) | ${ms(percentile(idleLight, 50))} / ${ms(percentile(idleLight, 99))} | ${ms(percentile(burstLight, 50))} / ${ms(percentile(burstLight, 99))} | ${ratio(percentile(burstLight, 50), percentile(idleLight, 50))} / ${ratio(percentile(burstLight, 99), percentile(idleLight, 99))} |`);
    write(`| /llms-full.txt latency p50 / p99 / max ms | alone: ${ms(percentile(alone, 50))} / ${ms(percentile(alone, 99))} / ${ms(Math.max(...alone))} | ${ms(percentile(latencies, 50))} / ${ms(percentile(latencies, 99))} / ${ms(Math.max(...latencies))} | ${ratio(percentile(latencies, 50), percentile(alone, 50))} (p50 in a burst / alone) |`);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send('stop');
    await exited;
  }
}

if (process.argv[2] === 'serve') await serve();
else await main();
