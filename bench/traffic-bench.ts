/**
 * What counting agent traffic costs (SPEC §16, the `traffic` option), in three parts, each measured
 * side by side in one run:
 *
 * 1. **Routes, traffic on vs off.** Every plugin route of the cost bench (`costTargets`), plus a host
 *    page through `agent.linkHeaders`, served by two plugin instances over the same kept database
 *    (`ead_bench_cost`, see `cost-bench.ts`), each in its own child process (the built package under
 *    Node, as the cost bench runs it): one with `traffic: true`, one with `traffic: false`. The load
 *    cycles through four real user agents on every connection, the same for both sides (GPTBot,
 *    ChatGPT-User, Chrome with a browser's Accept, curl). Rounds interleave on/off per route, taking
 *    turns going first. Per route: on/off requests/s (goal ≥ 0.97), and Node and PostgreSQL CPU per
 *    request of each side (PostgreSQL backends told apart by `application_name`). After the run the
 *    traffic-on server is closed (its last flush) and the rows it added are checked against the
 *    requests it answered.
 * 2. **The flush of 10,000 distinct keys**, on PGlite in memory and on PostgreSQL (a database of its
 *    own, `ead_bench_traffic`, dropped afterwards): a `TrafficCounts` filled with 10,000 request keys
 *    (and, second, with 10,000 keys in each of its three maps, the most one flush holds at the default
 *    `maxKeys`), then `take()` and `addCounts`. Reported: wall time, the event loop's busy time during
 *    the flush (`performance.eventLoopUtilization`), the process's CPU time, and the loop's longest
 *    block (`loopProbe`). The first flush inserts, the next ones update the same rows. Goal: under 50 ms.
 * 3. **Memory of 1,000,000 requests with 100,000 distinct unknown user agents** through the recorder's
 *    `tap` (fake minimal req/res, a child process under `--expose-gc`), one request in three reading
 *    one of 100,000 resources: heap used after a full GC, before and along the way; bounded by the
 *    classifier's memo (2,000 user agents) and `maxKeys` (10,000 per map).
 *
 *   npm run bench -- traffic                  # 5 rounds × 1 s per side and route, 20 connections (about 3 minutes)
 *   npx tsx bench/traffic-bench.ts --quick    # 1 round (iteration only)
 *   BENCH_ROUNDS=5 BENCH_SECONDS=3 npx tsx bench/traffic-bench.ts
 *   BENCH_PARTS=routes npx tsx bench/traffic-bench.ts      # any of routes,flush,memory
 *   BENCH_FLUSHES=4 …                         # flushes per variant (default 2: one insert, one update)
 *   BENCH_ONLY=search,llms npx tsx bench/traffic-bench.ts  # routes whose path contains a word
 *   BENCH_PROFILE=dir …                       # the traffic-on server under `node --cpu-prof`
 *   BENCH_SOURCE=1 …                          # the servers run the source under tsx, not dist/
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import express from 'express';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { resolveOptions, type ResolvedTraffic } from '../src/options.js';
import { TrafficCounts } from '../src/traffic/traffic-counts.js';
import { addCounts } from '../src/traffic/traffic-store.js';
import { createTrafficRecorder } from '../src/traffic/traffic-recorder.js';
import { markResourceRead, markSurface, startMark } from '../src/traffic/traffic-mark.js';
import { createIdentification } from '../src/policy/agent-control.js';
import type { AgentIdentity } from '../src/traffic/agent-identity.js';
import { costTargets, median, prepareDatabase, TYPICAL, type Target } from './cost-bench.js';
import { buildTree, HERE } from './tree-server.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const QUICK = process.argv.includes('--quick');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 5));
// Whole seconds: autocannon ends a run on its one-second tick (a duration of 1.5 runs 2 s).
const SECONDS = Math.max(1, Math.round(Number(process.env.BENCH_SECONDS ?? 1)));
const WARMUP_SECONDS = 1;
const FLUSHES = Number(process.env.BENCH_FLUSHES ?? 2);
const PARTS = (process.env.BENCH_PARTS ?? 'routes,flush,memory').split(',');
const CONNECTIONS = 20;
const RATIO_GOAL = 0.97;
const FLUSH_GOAL_MS = 50;
const FLUSH_KEYS = 10_000;
const MEMORY_REQUESTS = 1_000_000;
const MEMORY_USER_AGENTS = 100_000;
const FLUSH_DB = 'ead_bench_traffic';
const SELF = new URL(import.meta.url).pathname;
/** A host page passing `agent.linkHeaders` (counted as `page-html`); not a cost-bench route. */
const HOST_PAGE = '/host/page';

/**
 * The longest event-loop block since the last reset, ms: the longest gap between the ticks of a timer
 * every `everyMs`, less `everyMs`. (`monitorEventLoopDelay` recorded nothing for a PGlite flush that
 * held the loop for half a second: its timer ran once, after the flush, and sampled no delay.)
 */
function loopProbe(everyMs: number): { max(): number; reset(): void; stop(): void } {
  let last = performance.now();
  let max = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last - everyMs);
    last = now;
  }, everyMs);
  timer.unref();
  return {
    max: () => Math.max(max, performance.now() - last - everyMs),
    reset: () => void (max = 0),
    stop: () => clearInterval(timer),
  };
}

/** The load's user agents, real ones, cycled on every connection (the same for both sides). */
const USER_AGENTS = [
  { name: 'GPTBot', ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.3; +https://openai.com/gptbot)', accept: '*/*' },
  { name: 'ChatGPT-User', ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot', accept: 'text/html, application/xhtml+xml, */*;q=0.8' },
  {
    name: 'Chrome',
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7',
  },
  { name: 'curl', ua: 'curl/8.5.0', accept: '*/*' },
];

// ---------------------------------------------------------------------------------------------------
// Part 1: the routes with traffic on and off.

/** One serving process: the plugin's origin, its control origin (`/cpu`, `/loop`), its PostgreSQL application name. */
interface Side {
  readonly name: 'on' | 'off';
  readonly origin: string;
  readonly control: string;
  readonly appName: string;
  stop(): Promise<void>;
}

interface Sample {
  rps: number;
  p50: number;
  /** Responses autocannon counted. */
  requests: number;
  /** CPU per request, ms: the serving Node process, and its PostgreSQL backends. */
  nodeCpu: number;
  pgCpu: number;
  /** The serving process's longest event-loop delay during the load, ms. */
  loopMax: number;
}

/** The child's entry (`--serve <url> on|off`): the plugin on one port, `/cpu` and `/loop` on another. */
async function serve(url: string, traffic: boolean): Promise<void> {
  const entry = process.env.BENCH_SOURCE === '1' ? '../src/index.js' : '../dist/src/index.js';
  const { createAgentDiscovery } = (await import(entry)) as typeof import('../src/index.js');
  const agent = await createAgentDiscovery({
    siteTitle: 'Bench',
    description: 'Articles about harbours and open data.',
    languages: ['en', 'nl'],
    database: { url, poolSize: 10, preparedStatements: process.env.BENCH_PREPARED !== '0' },
    continuationSecret: 'express-agent-discovery cost bench continuation secret',
    traffic,
  });
  const app = express();
  app.get(HOST_PAGE, agent.linkHeaders, function hostPage(_req: Request, res: Response) {
    res.type('html').send('<!doctype html><title>Harbour report</title><h1>Harbour report</h1><p>A host page.</p>');
  });
  app.use(agent.router);
  const control = express();
  control.get('/cpu', (_req, res) => {
    const u = process.cpuUsage();
    res.json(u.user + u.system);
  });
  const loop = loopProbe(10);
  control.get('/loop', (_req, res) => {
    res.json(loop.max());
    loop.reset();
  });
  const listen = (a: express.Express) => new Promise<number>((resolve) => {
    const s = a.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port));
  });
  process.stdout.write(`${JSON.stringify({ plugin: await listen(app), control: await listen(control) })}\n`);
  // SIGTERM: close the plugin (the traffic recorder's last flush), then exit cleanly (for --cpu-prof).
  process.once('SIGTERM', () => void agent.close().finally(() => process.exit(0)));
}

async function startSide(url: string, traffic: boolean): Promise<Side> {
  const name = traffic ? 'on' : 'off';
  const appName = `ead_traffic_${name}`;
  const withName = new URL(url);
  withName.searchParams.set('application_name', appName);
  const profile = traffic && process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', SELF, '--serve', withName.toString(), name], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  const ports = await new Promise<{ plugin: number; control: number }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`traffic ${name} server exited (${code})`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    origin: `http://127.0.0.1:${ports.plugin}`,
    control: `http://127.0.0.1:${ports.control}`,
    appName,
    stop: () => (child.kill('SIGTERM'), exited),
  };
}

const CLOCK_TICKS_PER_MS = 100 / 1000; // USER_HZ (100 on Linux)

/** User + system CPU time (ms) of the PostgreSQL backends of one application name, by pid. */
async function backendCpuMs(admin: pg.Client, appName: string): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [appName]);
  const byPid = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      byPid.set(pid, (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_MS);
    } catch {
      // the backend ended meanwhile
    }
  }
  return byPid;
}

const cpuSpent = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);
const getJson = async (url: string) => Number(await (await fetch(url)).json());

/** `path` under load on one side for `seconds`, the four user agents in turn on every connection. */
async function loadSide(side: Side, path: string, seconds: number, admin: pg.Client): Promise<Sample> {
  await getJson(`${side.control}/loop`);
  const nodeBefore = await getJson(`${side.control}/cpu`);
  const pgBefore = await backendCpuMs(admin, side.appName);
  const result = await autocannon({
    url: side.origin,
    connections: CONNECTIONS,
    duration: seconds,
    requests: USER_AGENTS.map(({ ua, accept }) => ({ method: 'GET' as const, path, headers: { 'user-agent': ua, accept } })),
  });
  if (result.non2xx || result.errors) throw new Error(`${side.name} ${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const n = Math.max(1, result.requests.total);
  const nodeCpu = (await getJson(`${side.control}/cpu`)) - nodeBefore;
  const pgCpu = cpuSpent(pgBefore, await backendCpuMs(admin, side.appName));
  const loopMax = await getJson(`${side.control}/loop`);
  return { rps: result.requests.average, p50: result.latency.p50, requests: result.requests.total, nodeCpu: nodeCpu / 1000 / n, pgCpu: pgCpu / n, loopMax };
}

/** The stored request counts by agent (the traffic-on server's rows, over every run so far). */
async function countedByAgent(admin: pg.Client): Promise<Map<string, number>> {
  const { rows } = await admin.query<{ agent: string; n: string }>('SELECT agent, sum(requests)::text AS n FROM agent_discovery_traffic GROUP BY agent');
  return new Map(rows.map((r) => [r.agent, Number(r.n)]));
}

interface RouteResult {
  target: Target;
  on: Sample[];
  off: Sample[];
  /** on/off requests/s, per round. */
  ratios: number[];
}

/** Warm-up, then the interleaved rounds: each route on and off back to back, taking turns going first. */
async function measureRoutes(sides: { on: Side; off: Side }, targets: Target[], admin: pg.Client): Promise<{ results: RouteResult[]; answeredOn: number }> {
  let answeredOn = 0;
  const run = async (side: Side, t: Target, seconds: number) => {
    const s = await loadSide(side, t.path, seconds, admin);
    if (side.name === 'on') answeredOn += s.requests;
    process.stderr.write('.');
    return s;
  };
  for (const t of targets) for (const side of [sides.on, sides.off]) await run(side, t, WARMUP_SECONDS);
  const results: RouteResult[] = targets.map((target) => ({ target, on: [], off: [], ratios: [] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, r] of results.entries()) {
      const order = (round + i) % 2 ? [sides.off, sides.on] : [sides.on, sides.off];
      const got: Partial<Record<'on' | 'off', Sample>> = {};
      for (const side of order) got[side.name] = await run(side, r.target, SECONDS);
      r.on.push(got.on!);
      r.off.push(got.off!);
      r.ratios.push(got.on!.rps / got.off!.rps);
    }
  }
  process.stderr.write('\n');
  return { results, answeredOn };
}

function routeTable(results: RouteResult[]): { lines: string[]; failed: string[]; failedByCpu: string[] } {
  const m = (xs: Sample[], k: keyof Sample) => median(xs.map((s) => s[k]));
  const lines = [
    `| route | req/s on / off | × on/off (goal ≥ ${RATIO_GOAL}), per round | × by CPU (off / on) | Node CPU ms/req on / off (Δ µs) | PG CPU ms/req on / off | p50 ms on / off | longest event-loop delay ms on / off |`,
    '|---|---|---|---|---|---|---|---|',
  ];
  const failed: string[] = [];
  const failedByCpu: string[] = [];
  for (const { target: t, on, off, ratios } of results) {
    const ratio = median(ratios);
    const cpuRatio = (m(off, 'nodeCpu') + m(off, 'pgCpu')) / (m(on, 'nodeCpu') + m(on, 'pgCpu'));
    const delta = (m(on, 'nodeCpu') - m(off, 'nodeCpu')) * 1000;
    if (ratio < RATIO_GOAL && t.path !== HOST_PAGE) failed.push(`${t.name} ${ratio.toFixed(2)}×`);
    if (cpuRatio < RATIO_GOAL && t.path !== HOST_PAGE) failedByCpu.push(`${t.name} ${cpuRatio.toFixed(2)}×`);
    lines.push(
      `| ${t.name} \`${t.path}\` | ${m(on, 'rps').toFixed(0)} / ${m(off, 'rps').toFixed(0)} | **${ratio.toFixed(2)}** (${ratios.map((r) => r.toFixed(2)).join(', ')}) | ${cpuRatio.toFixed(2)} | ${m(on, 'nodeCpu').toFixed(3)} / ${m(off, 'nodeCpu').toFixed(3)} (${delta >= 0 ? '+' : ''}${delta.toFixed(0)}) | ${m(on, 'pgCpu').toFixed(2)} / ${m(off, 'pgCpu').toFixed(2)} | ${m(on, 'p50')} / ${m(off, 'p50')} | ${Math.max(...on.map((s) => s.loopMax)).toFixed(1)} / ${Math.max(...off.map((s) => s.loopMax)).toFixed(1)} |`,
    );
  }
  return { lines, failed, failedByCpu };
}

async function routesPart(): Promise<string[]> {
  const url = await prepareDatabase();
  const probe = await openDatabase({ url });
  const typical = await probe.db.selectFrom('rsc').select('id').where('name', '=', TYPICAL).executeTakeFirstOrThrow();
  await probe.close();
  const fromSource = process.env.BENCH_SOURCE === '1';
  if (!fromSource) buildTree(HERE);
  const targets: Target[] = [...costTargets(typical.id).filter((t) => t.server === 'plugin'), { name: 'host page through agent.linkHeaders (not a cost-bench route)', server: 'plugin', path: HOST_PAGE }];
  const only = process.env.BENCH_ONLY?.split(',').filter(Boolean);
  if (only) targets.splice(0, targets.length, ...targets.filter((t) => only.some((w) => t.path.includes(w))));
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const started = await Promise.allSettled([startSide(url, true), startSide(url, false)]);
  const stopAll = () => Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
  const failedStart = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failedStart) {
    await stopAll();
    await admin.end();
    throw failedStart.reason;
  }
  const [on, off] = started.map((s) => (s as PromiseFulfilledResult<Side>).value) as [Side, Side];
  try {
    const before = await countedByAgent(admin);
    const { results, answeredOn } = await measureRoutes({ on, off }, targets, admin);
    await on.stop(); // its last flush
    const after = await countedByAgent(admin);
    const added = [...after].map(([agent, n]) => [agent, n - (before.get(agent) ?? 0)] as const).filter(([, n]) => n > 0);
    const counted = added.reduce((sum, [, n]) => sum + n, 0);
    const { lines, failed, failedByCpu } = routeTable(results);
    return [
      `### Routes, traffic on vs off: PostgreSQL (\`ead_bench_cost\`), ${CONNECTIONS} connections, user agents ${USER_AGENTS.map((u) => u.name).join(' / ')} in turn, ${ROUNDS} interleaved round(s) × ${SECONDS} s per side and route; medians over rounds; server: ${fromSource ? 'the source under tsx' : 'the built package (dist/)'} ${process.version}`,
      '',
      ...lines,
      '',
      failed.length ? `goal not met (≥ ${RATIO_GOAL}× of off, req/s): ${failed.join('; ')}` : `every cost-bench route ≥ ${RATIO_GOAL}× of off (req/s)`,
      failedByCpu.length ? `by CPU per request, under ${RATIO_GOAL}×: ${failedByCpu.join('; ')}` : `by CPU per request, every cost-bench route ≥ ${RATIO_GOAL}×`,
      `the traffic-on server answered ${answeredOn} requests (warm-up included) and added ${counted} to agent_discovery_traffic (${added.map(([a, n]) => `${a} ${n}`).join(', ')}): ${(counted / Math.max(1, answeredOn)).toFixed(3)} of them counted`,
    ];
  } finally {
    await stopAll();
    await admin.end();
  }
}

// ---------------------------------------------------------------------------------------------------
// Part 2: the flush of 10,000 distinct keys.

interface FlushSample {
  rows: number;
  /** `counts.take()`, ms (synchronous). */
  take: number;
  /** `take()` and `addCounts`, ms. */
  wall: number;
  /** The event loop's busy time during the flush, ms (wall time: a busy machine stretches it). */
  busy: number;
  /** This process's CPU time during the flush, ms (every thread; robust to a busy machine). */
  cpu: number;
  /** The longest event-loop block during the flush, ms (`loopProbe(1)`). */
  longest: number;
}

const SURFACES = ['page-html', 'page-markdown', 'resource-json', 'resource-markdown', 'listing', 'llms-txt', 'llms-full', 'discovery', 'mcp', 'robots-txt'];

/** `keys` distinct request keys (1,000 agents × 10 surfaces), and with `everyMap` as many resource and referral keys. */
function fillCounts(counts: TrafficCounts, keys: number, everyMap: boolean): void {
  const time = Date.now();
  for (let i = 0; i < keys; i++) {
    const surface = SURFACES[i % SURFACES.length]!;
    const agent = `agent-${Math.floor(i / SURFACES.length)}`;
    counts.addRequest({ time, agent, operator: 'Operator', purpose: 'training', verdict: 'unverified', method: '', reason: '', outcome: 'served', surface, tool: '', status: 200, robotsViolation: i % 7 === 0, resourceId: everyMap ? i + 1 : undefined });
    if (everyMap) counts.addReferral(time, 'chatgpt', `/articles/${i}/a-landing-page-of-typical-length`);
  }
}

async function timeFlush(db: Parameters<typeof addCounts>[0], counts: TrafficCounts): Promise<FlushSample> {
  const delay = loopProbe(1);
  const elu = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const batch = counts.take();
  const take = performance.now() - start;
  await addCounts(db, batch);
  const wall = performance.now() - start;
  const busy = performance.eventLoopUtilization(elu).active;
  const used = process.cpuUsage(cpu);
  const longest = delay.max();
  delay.stop();
  return { rows: batch.requests.length + batch.resources.length + batch.referrals.length, take, wall, busy, cpu: (used.user + used.system) / 1000, longest };
}

/** On one backend: each variant flushed `FLUSHES` times (the first inserts, the next ones update). */
async function flushBackend(label: string, open: () => Promise<{ db: Parameters<typeof addCounts>[0]; close(): Promise<void> }>): Promise<string[]> {
  const content = await open();
  const lines: string[] = [];
  try {
    for (const everyMap of [false, true]) {
      const samples: FlushSample[] = [];
      for (let i = 0; i < FLUSHES; i++) {
        const counts = new TrafficCounts(FLUSH_KEYS);
        fillCounts(counts, FLUSH_KEYS, everyMap);
        samples.push(await timeFlush(content.db, counts));
      }
      const f = (s: FlushSample) => `${s.wall.toFixed(0)} / ${s.busy.toFixed(0)} / ${s.cpu.toFixed(0)} / ${s.longest.toFixed(0)}`;
      const updates = samples.slice(1);
      const worst = Math.max(...samples.map((s) => s.busy));
      lines.push(
        `| ${label} | ${samples[0]!.rows.toLocaleString('en')} (${everyMap ? 'requests + resources + referrals' : 'requests'}) | ${samples[0]!.take.toFixed(1)} | ${f(samples[0]!)} | ${updates.map(f).join('; ')} | ${worst < FLUSH_GOAL_MS ? 'met' : `**not met** (${worst.toFixed(0)} ms)`} |`,
      );
    }
  } finally {
    await content.close();
  }
  return lines;
}

async function flushPart(): Promise<string[]> {
  const lines = [
    `### The flush of ${FLUSH_KEYS.toLocaleString('en')} distinct keys (${FLUSHES} flushes per variant: the first inserts, the next update the same rows)`,
    '',
    `| backend | rows | take() ms | insert: wall / event-loop busy / CPU / longest block, ms | updates: wall / busy / CPU / longest, ms | goal busy < ${FLUSH_GOAL_MS} ms |`,
    '|---|---|---|---|---|---|',
  ];
  lines.push(...(await flushBackend('PGlite (in memory)', async () => {
    const content = await openDatabase({ memory: true });
    await migrateToLatest(content.db);
    return content;
  })));
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${FLUSH_DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${FLUSH_DB}`);
  try {
    const url = new URL(SERVER);
    url.pathname = `/${FLUSH_DB}`;
    lines.push(...(await flushBackend('PostgreSQL', async () => {
      const content = await openDatabase({ url: url.toString() });
      await migrateToLatest(content.db);
      return content;
    })));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${FLUSH_DB} WITH (FORCE)`);
    await admin.end();
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------------
// Part 3: memory of 1,000,000 requests with 100,000 distinct unknown user agents.

/** Unknown to the catalogue, in three classes: a bot (`other-bot`), a browser, and neither (`unknown`). */
function unknownUserAgent(i: number): string {
  if (i % 3 === 0) return `Mozilla/5.0 (compatible; HarbourCrawler${i}/2.1; +https://crawler${i}.example/bot.html)`;
  if (i % 3 === 1) return `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${100 + (i % 40)}.0.${i}.0 Safari/537.36`;
  return `harbour-client-${i}/1.0 (internal tool)`;
}

interface FakeResponse {
  statusCode: number;
  finish?: () => void;
  getHeader(name: string): string | undefined;
  once(event: string, listener: () => void): FakeResponse;
}

/** What `tap` and the count read of a request and its response; the surface, resource and type vary with `i`. */
function fakeExchange(i: number, userAgent: string, accept: string): { req: Request; res: FakeResponse } {
  const path = i % 3 === 2 ? `/articles/${i % 5000}` : `/api/agent/resource/${i}`;
  const req = { method: 'GET', url: path, originalUrl: path, path, headers: { 'user-agent': userAgent, accept, host: 'example.org' } } as unknown as Request;
  const res: FakeResponse = {
    statusCode: 200,
    getHeader: () => (i % 3 === 2 ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8'),
    once(_event, listener) {
      this.finish = listener;
      return this;
    },
  };
  return { req, res };
}

const heapMiB = (gc: () => void) => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

/** The child's entry (`--memory`, under `--expose-gc`): one JSON line of heap samples and times. */
async function memoryChild(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const content = await openDatabase({ memory: true });
  await migrateToLatest(content.db);
  const options = resolveOptions({ siteTitle: 'Bench', database: { memory: true }, traffic: { flushIntervalMs: 300_000 } });
  const identification = createIdentification(options);
  const recorder = await createTrafficRecorder({ options, db: content.db }, options.traffic as ResolvedTraffic, identification.identifier);
  const identify = (req: Request): AgentIdentity => {
    const c = identification.identifier.classify({ userAgent: req.headers['user-agent'], accept: req.headers.accept });
    return { agent: c.agent, claimed: c.agent, operator: c.operator, purpose: c.purpose, known: c.known, verification: 'unverified', method: null, reason: null };
  };
  // One request in three reads a resource (with `reads`: one of 100,000, so the resource keys reach maxKeys).
  const request = (i: number, userAgent: string, accept: string, reads: boolean) => {
    const { req, res } = fakeExchange(i, userAgent, accept);
    startMark(req);
    // What the agent gate does: identify (no signature, no address: the classification only), count at the end.
    const who = identify(req);
    if (i % 3 === 0) {
      markSurface(req, 'resource-json');
      if (reads) markResourceRead(req, 1 + ((i * 7919) % MEMORY_USER_AGENTS));
    } else if (i % 3 === 1) markSurface(req, 'listing');
    recorder.count(req, res as unknown as Response, who, Date.now());
    res.finish!();
  };
  const timed = (from: number, to: number, ua: (i: number) => string, accept: (i: number) => string, reads: boolean) => {
    const start = performance.now();
    for (let i = from; i < to; i++) request(i, ua(i), accept(i), reads);
    return ((performance.now() - start) * 1000) / (to - from);
  };
  const baseline = heapMiB(gc);
  const knownUs = timed(0, 200_000, (i) => USER_AGENTS[i % 4]!.ua, (i) => USER_AGENTS[i % 4]!.accept, false);
  const afterKnown = heapMiB(gc);
  const samples: { requests: number; heap: number; us: number }[] = [];
  for (let done = 0, step = 100_000; done < MEMORY_REQUESTS; done += step) {
    if (done === 200_000) step = 200_000;
    const us = timed(done, done + step, (i) => unknownUserAgent(i % MEMORY_USER_AGENTS), () => '*/*', true);
    samples.push({ requests: done + step, heap: heapMiB(gc), us });
  }
  const pending = recorder.pending();
  await recorder.flush();
  const afterFlush = heapMiB(gc);
  await recorder.close();
  await content.close();
  const keys = { requests: pending.batch.requests.length, resources: pending.batch.resources.length, referrals: pending.batch.referrals.length, dropped: pending.batch.dropped, counted: pending.requests };
  process.stdout.write(`${JSON.stringify({ baseline, knownUs, afterKnown, samples, afterFlush, keys, maxKeys: (options.traffic as ResolvedTraffic).maxKeys })}\n`);
}

interface MemoryReport {
  baseline: number;
  knownUs: number;
  afterKnown: number;
  samples: { requests: number; heap: number; us: number }[];
  afterFlush: number;
  keys: { requests: number; resources: number; referrals: number; dropped: number; counted: number };
  maxKeys: number;
}

function memoryPart(): string[] {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', SELF, '--memory'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`the memory child failed (${r.status})`);
  const m = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as MemoryReport;
  const us = median(m.samples.map((s) => s.us));
  return [
    `### Memory: ${MEMORY_REQUESTS.toLocaleString('en')} requests through \`tap\`, ${MEMORY_USER_AGENTS.toLocaleString('en')} distinct unknown user agents in turn (every request misses the 2,000-entry memo), one in three reading one of 100,000 resources`,
    '',
    '| after | heap used MiB (after a full GC) | µs per request (tap + count) |',
    '|---|---|---|',
    `| the recorder created (baseline) | ${m.baseline.toFixed(1)} | |`,
    `| 200,000 requests of the 4 known user agents (memo hits; no resource read) | ${m.afterKnown.toFixed(1)} | ${m.knownUs.toFixed(2)} |`,
    ...m.samples.map((s) => `| then ${s.requests.toLocaleString('en')} requests of unknown user agents in all | ${s.heap.toFixed(1)} | ${s.us.toFixed(2)} |`),
    `| the flush | ${m.afterFlush.toFixed(1)} | |`,
    '',
    `before the flush: ${m.keys.counted.toLocaleString('en')} requests counted under ${m.keys.requests} request keys, ${m.keys.resources.toLocaleString('en')} resource keys (maxKeys ${m.maxKeys.toLocaleString('en')}), ${m.keys.referrals} referral keys, ${m.keys.dropped.toLocaleString('en')} counts dropped; heap growth over the unknown user agents ${(m.samples.at(-1)!.heap - m.afterKnown).toFixed(1)} MiB (from 100,000 to ${MEMORY_REQUESTS.toLocaleString('en')} requests: ${(m.samples.at(-1)!.heap - m.samples[0]!.heap).toFixed(1)} MiB); unknown/known cost per request ${(us / m.knownUs).toFixed(1)}×`,
  ];
}

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const out: string[] = [`traffic bench (${new Date().toISOString()}, load average ${load()} at the start)`];
  const part = async (name: string, run: () => Promise<string[]> | string[]) => {
    if (!PARTS.includes(name)) return;
    const start = performance.now();
    out.push('', ...(await run()), '', `(${name}: ${((performance.now() - start) / 1000).toFixed(0)} s, load average ${load()} after)`);
  };
  await part('routes', routesPart);
  await part('flush', flushPart);
  await part('memory', memoryPart);
  process.stdout.write(`${out.join('\n')}\n`);
}

const fail = (error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
};
if (process.argv[1]?.endsWith('traffic-bench.ts')) {
  const at = process.argv.indexOf('--serve');
  if (at >= 0) serve(process.argv[at + 1]!, process.argv[at + 2] === 'on').catch(fail);
  else if (process.argv.includes('--memory')) memoryChild().catch(fail);
  else main().catch(fail);
}
