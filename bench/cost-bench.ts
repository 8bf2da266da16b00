/**
 * Cost per request over each route's floor (issue 24), on real PostgreSQL. ONE child process on
 * loopback (`bench/cost-server.mjs`, the built package under plain Node, as a site runs it; the bench
 * builds `dist/` first) serves the plugin, a bare Express + pg primary-key read, and for each route its
 * floor: an Express handler that runs the statements the route sent (captured from the plugin's pg
 * clients: the same text, parameters and statement name) and sends only what the route cannot avoid
 * (`res.json(rows)`; one turndown conversion of the body HTML for the Markdown and the JSON read; a
 * string join for the text documents). autocannon in this process measures them in interleaved rounds:
 * the bare read first and last in each round, each route and its floor back to back, taking turns going
 * first, so a machine that slows down moves a route and its floor alike. Printed per route: × its floor
 * (req/s), × its floor by CPU time (the floor's Node + PostgreSQL CPU per request over the route's:
 * robust on a busy machine), × the bare read, Node and PostgreSQL CPU per request of route and
 * floor, and the longest event-loop delay of the serving process.
 *
 *   npm run bench -- cost                  # 3 rounds × 3 s per target, 20 connections
 *   npx tsx bench/cost-bench.ts --quick    # 1 round × 1.5 s (iteration only)
 *   BENCH_ROUNDS=5 BENCH_SECONDS=4 npx tsx bench/cost-bench.ts
 *   BENCH_ONLY=search,related npx tsx bench/cost-bench.ts   # a subset (by path), for iterating
 *   BENCH_STATEMENTS=1 …                   # also print the statements each floor runs
 *   BENCH_PROFILE=dir …                    # the server under `node --cpu-prof --cpu-prof-dir=dir`
 *
 * The database `ead_bench_cost` (demo content plus one typical ~4 KiB article with edges) is created
 * once and kept. The plugin's pool and each floor's pool have 10 connections each.
 * The plugin connects directly, so it runs with `preparedStatements: true` (`BENCH_PREPARED=0` turns
 * it off, to compare; the option's default is off for PgBouncer's sake).
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { isSeeded, seedDemoContent } from '../example-site/seed.js';
import { insertEdges, insertResource } from '../example-site/content-store.js';
import { keptDatabase } from './kept-database.js';
import { buildTree, HERE } from './tree-server.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'ead_bench_cost';
const QUICK = process.argv.includes('--quick');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 1.5 : 3));
const CONNECTIONS = 20;
export const TYPICAL = 'bench_typical_article';

/** A typical article: about 4 KiB of HTML with headings, paragraphs, a list, links and emphasis. */
function typicalBody(): string {
  const paragraph = (i: number) =>
    `<p>Paragraph ${i} of the harbour report: the <a href="https://example.org/quay/${i}">north quay</a> handled <strong>${100 + i} ships</strong> this season, and the <em>tide tables</em> were published as open data for anyone to reuse.</p>`;
  const parts = ['<h2>Summary</h2>', paragraph(1), paragraph(2), '<h2>Findings</h2>'];
  parts.push(`<ul>${Array.from({ length: 8 }, (_, i) => `<li>Finding ${i + 1}: the crane at berth ${i + 3} was idle ${i * 3}% of the time.</li>`).join('')}</ul>`);
  for (let i = 3; i <= 12; i++) parts.push(paragraph(i));
  parts.push('<h2>Sources</h2>', '<ol><li><a href="https://example.org/tides">Tide tables</a></li><li><a href="https://example.org/ships">Ship register</a></li></ol>');
  return parts.join('\n');
}

/** Creates (once) and returns the URL of the bench database. */
export async function prepareDatabase(): Promise<string> {
  const url = await keptDatabase(SERVER, DB_NAME);
  const content = await openDatabase({ url });
  try {
    await migrateToLatest(content.db);
    if (!(await isSeeded(content.db))) await seedDemoContent(content.db);
    const have = await content.db.selectFrom('rsc').select('id').where('name', '=', TYPICAL).executeTakeFirst();
    if (!have) {
      const id = (name: string) => content.db.selectFrom('rsc').select('id').where('name', '=', name).executeTakeFirstOrThrow().then((r) => r.id);
      const article = await insertResource(content.db, {
        name: TYPICAL,
        category: 'article',
        title: { en: 'Harbour report for the season', nl: 'Havenrapport van het seizoen' },
        summary: { en: 'What the quays, cranes and tides did this season.', nl: 'Wat de kades, kranen en getijden deden.' },
        body: { en: typicalBody(), nl: typicalBody() },
        license: { en: 'CC BY 4.0' },
      });
      await insertEdges(content.db, [
        { subject: article, predicate: await id('author'), object: await id('ada_lovelace') },
        { subject: article, predicate: await id('author'), object: await id('grace_hopper') },
        { subject: article, predicate: await id('subject'), object: await id('harbours') },
        { subject: article, predicate: await id('subject'), object: await id('open_data') },
        { subject: article, predicate: await id('depiction'), object: await id('harbour_photo') },
      ]);
    }
    await sql`ANALYZE`.execute(content.db);
    return url;
  } finally {
    await content.close();
  }
}

/** What a route's floor sends besides its statements' rows (see `cost-server.mjs`). */
export type FloorKind = 'json' | 'json+markdown' | 'markdown' | 'text';

export interface Target {
  name: string;
  server: 'plugin' | 'bare';
  path: string;
  /** The route's floor: its own statements, and only what it cannot avoid sending. */
  floor?: FloorKind;
  /** A goal against the bare primary-key read (ratio of req/s), besides ≥ 0.8× the floor. */
  bareGoal?: number;
}

export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** CPU time per request, ms: the serving Node process, and the PostgreSQL backends of the bench database. */
  nodeCpu: number;
  pgCpu: number;
  /** The longest event-loop delay of the serving process during the load, ms (NaN from a server without `/loop`). */
  loopMax: number;
  /** The longest garbage-collection pause of the serving process during the load, ms (NaN likewise). */
  gcMax: number;
}

const CLOCK_TICKS_PER_MS = 100 / 1000; // USER_HZ (100 on Linux)

/** User + system CPU time (ms) of each PostgreSQL backend connected to the bench database, by pid. */
async function pgCpuMs(admin: pg.Client): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [DB_NAME]);
  const byPid = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      byPid.set(pid, (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_MS); // utime, stime
    } catch {
      // the backend ended meanwhile
    }
  }
  return byPid;
}

/** CPU spent between two samples by the backends alive at the second (new ones count from zero). */
const pgCpuSpent = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);

/** The server's longest event-loop delay and GC pause since the last call (and a reset), ms; NaN when it has no `/loop`. */
async function loopMaxMs(bare: string): Promise<{ loop: number; gc: number }> {
  const res = await fetch(`${bare}/loop`);
  return res.ok ? ((await res.json()) as { loop: number; gc: number }) : (await res.arrayBuffer(), { loop: Number.NaN, gc: Number.NaN });
}

export async function load(origin: string, path: string, cpu?: { bare: string; admin: pg.Client }): Promise<Sample> {
  if (cpu) await loopMaxMs(cpu.bare);
  const nodeBefore = cpu ? Number(await (await fetch(`${cpu.bare}/cpu`)).json()) : 0;
  const pgBefore = cpu ? await pgCpuMs(cpu.admin) : new Map<number, number>();
  const result = await autocannon({ url: `${origin}${path}`, connections: CONNECTIONS, duration: SECONDS });
  if (result.non2xx || result.errors) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const n = Math.max(1, result.requests.total);
  const nodeCpu = cpu ? (Number(await (await fetch(`${cpu.bare}/cpu`)).json()) - nodeBefore) / 1000 / n : 0;
  const pgCpu = cpu ? pgCpuSpent(pgBefore, await pgCpuMs(cpu.admin)) / n : 0;
  const { loop: loopMax, gc: gcMax } = cpu ? await loopMaxMs(cpu.bare) : { loop: Number.NaN, gc: Number.NaN };
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, nodeCpu, pgCpu, loopMax, gcMax };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The bare endpoint first, then every route measured against its floor (issue 24). */
export function costTargets(typicalId: number): Target[] {
  return [
    { name: 'bare Express + pg by primary key', server: 'bare', path: `/row/${typicalId}` },
    { name: 'search browse', server: 'plugin', path: '/api/agent/search?sort=newest&pagelen=20', floor: 'json' },
    { name: 'text search', server: 'plugin', path: '/api/agent/search?text=harbour%20data&pagelen=20', floor: 'json' },
    { name: 'related by id', server: 'plugin', path: `/api/agent/related/${typicalId}`, floor: 'json', bareGoal: 0.5 },
    { name: 'related, popular node by name', server: 'plugin', path: '/api/agent/related/open_data?direction=in&pagelen=20', floor: 'json' },
    { name: 'resource JSON (typical article)', server: 'plugin', path: `/api/agent/resource/${typicalId}`, floor: 'json+markdown' },
    { name: 'resource Markdown (typical article)', server: 'plugin', path: `/agent/resource/${typicalId}/markdown`, floor: 'markdown', bareGoal: 0.5 },
    { name: 'api-catalog', server: 'plugin', path: '/.well-known/api-catalog', floor: 'text' },
    { name: 'llms.txt', server: 'plugin', path: '/llms.txt', floor: 'text' },
    { name: 'api-help', server: 'plugin', path: '/api-help', floor: 'text' },
  ];
}

const FLOOR_GOAL = 0.8;
const EVENT_LOOP_GOAL_MS = 50;

async function main(): Promise<void> {
  const url = await prepareDatabase();
  const probe = await openDatabase({ url });
  const typical = (await probe.db.selectFrom('rsc').select(['id', 'body']).where('name', '=', TYPICAL).executeTakeFirstOrThrow()) as { id: number; body: Record<string, string> };
  await probe.close();

  // The server runs the built package under plain Node, as a site runs it (BENCH_SOURCE=1: the source under tsx).
  const fromSource = process.env.BENCH_SOURCE === '1';
  if (!fromSource) buildTree(HERE);
  const server = new URL('./cost-server.mjs', import.meta.url).pathname;
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, ...(fromSource ? ['--import', 'tsx'] : []), server, url], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  const ports = await new Promise<{ plugin: number; bare: number }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  const origin = { plugin: `http://127.0.0.1:${ports.plugin}`, bare: `http://127.0.0.1:${ports.bare}` };
  const targets = costTargets(typical.id);
  // BENCH_ONLY=search,related: only the targets whose path contains one of the words (the bare endpoint always runs).
  const only = process.env.BENCH_ONLY?.split(',').filter(Boolean);
  if (only) targets.splice(0, targets.length, ...targets.filter((t) => t.server === 'bare' || only.some((w) => t.path.includes(w))));
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    // Each route's floor: the server captures the statements the route sends and mounts /floor/<i>.
    const routes = targets.filter((t) => t.floor);
    const floorOf = new Map(routes.map((t, i) => [t.name, { name: `floor of ${t.name}`, server: 'bare' as const, path: `/floor/${i}` }]));
    const captured = await fetch(`${origin.bare}/floors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(routes.map((t, i) => ({ key: String(i), path: t.path, kind: t.floor }))),
    });
    if (!captured.ok) throw new Error(`the floors could not be captured (${captured.status}): ${await captured.text()}`);
    const statements = (await captured.json()) as Record<string, string[]>;
    const all = [...targets, ...floorOf.values()];
    for (const t of all) await load(origin[t.server], t.path); // warm-up (JIT, pools, plans)
    const samples = new Map<string, Sample[]>(all.map((t) => [t.name, []]));
    const toFloor = new Map<string, number[]>(routes.map((t) => [t.name, []]));
    const toBare = new Map<string, number[]>(routes.map((t) => [t.name, []]));
    const measure = async (t: Target) => {
      const s = await load(origin[t.server], t.path, { bare: origin.bare, admin });
      process.stderr.write('.');
      return s;
    };
    for (let round = 0; round < ROUNDS; round++) {
      // The bare endpoint opens and closes each round; each route and its floor run back to back,
      // taking turns going first.
      const bareFirst = await measure(targets[0]!);
      const got = new Map<string, Sample>();
      for (const t of routes) {
        const floor = floorOf.get(t.name)!;
        const pair = round % 2 ? [floor, t] : [t, floor];
        for (const x of pair) got.set(x.name, await measure(x));
      }
      const bareLast = await measure(targets[0]!);
      const bareRps = (bareFirst.rps + bareLast.rps) / 2;
      samples.get(targets[0]!.name)!.push({ ...bareFirst, rps: bareRps });
      for (const [name, s] of got) samples.get(name)!.push(s);
      for (const t of routes) {
        toFloor.get(t.name)!.push(got.get(t.name)!.rps / got.get(floorOf.get(t.name)!.name)!.rps);
        toBare.get(t.name)!.push(got.get(t.name)!.rps / bareRps);
      }
    }
    process.stderr.write('\n');
    const m = (name: string, k: keyof Sample) => median(samples.get(name)!.map((s) => s[k]));
    const loopMax = (name: string) => Math.max(...samples.get(name)!.map((s) => s.loopMax));
    const gcMax = (name: string) => Math.max(...samples.get(name)!.map((s) => s.gcMax));
    const bare = targets[0]!.name;
    // The floor's CPU per request (Node + PostgreSQL) over the route's: the ratio a machine busy with other work distorts least.
    const cpuRatio = (name: string, floor: string) => (m(floor, 'nodeCpu') + m(floor, 'pgCpu')) / (m(name, 'nodeCpu') + m(name, 'pgCpu'));
    const lines = [
      `cost bench: PostgreSQL, demo content + a ${(Buffer.byteLength(typical.body.en ?? '') / 1024).toFixed(1)} KiB article (id ${typical.id}), ${CONNECTIONS} connections, ${ROUNDS} interleaved round(s) × ${SECONDS} s per target; medians over rounds; preparedStatements ${process.env.BENCH_PREPARED === '0' ? 'off' : 'on'}; server: ${fromSource ? 'the source under tsx' : 'the built package (dist/) under plain Node'} ${process.version}`,
      `bare Express + pg by primary key: ${m(bare, 'rps').toFixed(0)} req/s, Node / PG CPU ${m(bare, 'nodeCpu').toFixed(2)} / ${m(bare, 'pgCpu').toFixed(2)} ms per request, longest event-loop delay ${loopMax(bare).toFixed(1)} ms (the same process: a delay this long in a handler with no blocking work means a starved machine)`,
      '',
      `| route | statements | req/s | floor req/s | × floor (goal ≥ ${FLOOR_GOAL}) | × floor by CPU | × bare PK read | Node CPU ms/req route / floor | PG CPU ms/req route / floor | p50 ms | longest event-loop delay ms route / floor (longest GC pause) |`,
      '|---|---|---|---|---|---|---|---|---|---|---|',
    ];
    const failed: string[] = [];
    for (const [i, t] of routes.entries()) {
      const floor = floorOf.get(t.name)!.name;
      const ratio = median(toFloor.get(t.name)!);
      const bareRatio = median(toBare.get(t.name)!);
      if (ratio < FLOOR_GOAL) failed.push(`${t.name} ${ratio.toFixed(2)}× its floor`);
      if (t.bareGoal && bareRatio < t.bareGoal) failed.push(`${t.name} ${bareRatio.toFixed(2)}× the bare read (goal ≥ ${t.bareGoal})`);
      if (loopMax(t.name) > EVENT_LOOP_GOAL_MS) failed.push(`${t.name}: event loop blocked ${loopMax(t.name).toFixed(0)} ms`);
      lines.push(
        `| ${t.name} \`${t.path}\` | ${statements[String(i)]!.length} | ${m(t.name, 'rps').toFixed(0)} | ${m(floor, 'rps').toFixed(0)} | ${ratio.toFixed(2)} | ${cpuRatio(t.name, floor).toFixed(2)} | ${bareRatio.toFixed(2)}${t.bareGoal ? ` (goal ≥ ${t.bareGoal})` : ''} | ${m(t.name, 'nodeCpu').toFixed(2)} / ${m(floor, 'nodeCpu').toFixed(2)} | ${m(t.name, 'pgCpu').toFixed(2)} / ${m(floor, 'pgCpu').toFixed(2)} | ${m(t.name, 'p50')} | ${loopMax(t.name).toFixed(1)} / ${loopMax(floor).toFixed(1)} (GC ${gcMax(t.name).toFixed(1)} / ${gcMax(floor).toFixed(1)}) |`,
      );
    }
    lines.push('', failed.length ? `goals not met: ${failed.join('; ')}` : `every goal met (≥ ${FLOOR_GOAL}× floor, related by id ≥ 0.5× bare, event loop ≤ ${EVENT_LOOP_GOAL_MS} ms)`);
    if (process.env.BENCH_STATEMENTS === '1') for (const [i, t] of routes.entries()) lines.push(`${t.name}: ${statements[String(i)]!.join(' ‖ ') || '(none)'}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    child.kill();
    await admin.end();
  }
}

if (process.argv[1]?.endsWith('cost-bench.ts')) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  });
}
