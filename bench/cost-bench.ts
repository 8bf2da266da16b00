/**
 * Cost per request (issue 13's goals), on real PostgreSQL: every route of the goals and a bare
 * Express + pg primary-key endpoint, served by ONE child process on loopback (`bench/cost-server.mjs`,
 * the built package under plain Node, as a site runs it; the bench builds `dist/` first), measured by autocannon
 * in this process in interleaved rounds (each round runs every target once, the bare endpoint
 * first and last), so a machine that slows down during the run moves every ratio alike.
 *
 *   npx tsx bench/cost-bench.ts            # 3 rounds × 3 s per target, 20 connections
 *   npx tsx bench/cost-bench.ts --quick    # 1 round × 1.5 s (iteration only)
 *   BENCH_ROUNDS=5 BENCH_SECONDS=4 npx tsx bench/cost-bench.ts
 *   BENCH_ONLY=search,related npx tsx bench/cost-bench.ts   # a subset (by path), for iterating
 *
 * The database `ead_bench_cost` (demo content plus one typical ~4 KiB article with edges) is created
 * once and kept. The plugin's pool and the bare endpoint's pool have 10 connections each.
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

export interface Target {
  name: string;
  server: 'plugin' | 'bare';
  path: string;
  /** Which goal the target belongs to, and against what it is measured. */
  goal?: { min: number; versus: 'bare' | 'catalog' };
}

export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** CPU time per request, ms: the serving Node process, and the PostgreSQL backends of the bench database. */
  nodeCpu: number;
  pgCpu: number;
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

export async function load(origin: string, path: string, cpu?: { bare: string; admin: pg.Client }): Promise<Sample> {
  const nodeBefore = cpu ? Number(await (await fetch(`${cpu.bare}/cpu`)).json()) : 0;
  const pgBefore = cpu ? await pgCpuMs(cpu.admin) : new Map<number, number>();
  const result = await autocannon({ url: `${origin}${path}`, connections: CONNECTIONS, duration: SECONDS });
  if (result.non2xx || result.errors) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const n = Math.max(1, result.requests.total);
  const nodeCpu = cpu ? (Number(await (await fetch(`${cpu.bare}/cpu`)).json()) - nodeBefore) / 1000 / n : 0;
  const pgCpu = cpu ? pgCpuSpent(pgBefore, await pgCpuMs(cpu.admin)) / n : 0;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, nodeCpu, pgCpu };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Every route with a cost goal, the bare endpoint first (the floor) and the api-catalog (the documents' floor). */
export function costTargets(typicalId: number): Target[] {
  return [
    { name: 'bare Express + pg by primary key', server: 'bare', path: `/row/${typicalId}` },
    { name: 'search browse', server: 'plugin', path: '/api/agent/search?sort=newest&pagelen=20', goal: { min: 0.5, versus: 'bare' } },
    { name: 'text search', server: 'plugin', path: '/api/agent/search?text=harbour%20data&pagelen=20', goal: { min: 0.5, versus: 'bare' } },
    { name: 'related page', server: 'plugin', path: `/api/agent/related/${typicalId}`, goal: { min: 0.5, versus: 'bare' } },
    { name: 'related page, popular node in', server: 'plugin', path: '/api/agent/related/open_data?direction=in&pagelen=20', goal: { min: 0.5, versus: 'bare' } },
    { name: 'resource JSON (typical article)', server: 'plugin', path: `/api/agent/resource/${typicalId}`, goal: { min: 0.35, versus: 'bare' } },
    { name: 'resource Markdown (typical article)', server: 'plugin', path: `/agent/resource/${typicalId}/markdown`, goal: { min: 0.35, versus: 'bare' } },
    { name: 'api-catalog', server: 'plugin', path: '/.well-known/api-catalog' },
    { name: 'llms.txt', server: 'plugin', path: '/llms.txt', goal: { min: 0.5, versus: 'catalog' } },
    { name: 'api-help', server: 'plugin', path: '/api-help', goal: { min: 0.5, versus: 'catalog' } },
  ];
}

async function main(): Promise<void> {
  const url = await prepareDatabase();
  const probe = await openDatabase({ url });
  const typical = (await probe.db.selectFrom('rsc').select(['id', 'body']).where('name', '=', TYPICAL).executeTakeFirstOrThrow()) as { id: number; body: Record<string, string> };
  await probe.close();

  // The server runs the built package under plain Node, as a site runs it (BENCH_SOURCE=1: the source under tsx).
  const fromSource = process.env.BENCH_SOURCE === '1';
  if (!fromSource) buildTree(HERE);
  const server = new URL('./cost-server.mjs', import.meta.url).pathname;
  const child = spawn(process.execPath, [...(fromSource ? ['--import', 'tsx'] : []), server, url], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  const ports = await new Promise<{ plugin: number; bare: number }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  const origin = { plugin: `http://127.0.0.1:${ports.plugin}`, bare: `http://127.0.0.1:${ports.bare}` };
  const targets = costTargets(typical.id);
  // BENCH_ONLY=search,related: only the targets whose path contains one of the words (the bare endpoint and the api-catalog always run).
  const only = process.env.BENCH_ONLY?.split(',').filter(Boolean);
  if (only) targets.splice(0, targets.length, ...targets.filter((t) => t.server === 'bare' || t.name === 'api-catalog' || only.some((w) => t.path.includes(w))));
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const t of targets) await load(origin[t.server], t.path); // warm-up (JIT, pools, plans)
    const samples = new Map<string, Sample[]>(targets.map((t) => [t.name, []]));
    const ratios = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // The bare endpoint opens and closes each round: its mean is the round's floor.
      const order = [...targets, targets[0]!];
      const got = new Map<string, Sample[]>();
      for (const t of order) {
        const s = await load(origin[t.server], t.path, { bare: origin.bare, admin });
        got.set(t.name, [...(got.get(t.name) ?? []), s]);
        process.stderr.write('.');
      }
      const bareRps = median(got.get(targets[0]!.name)!.map((s) => s.rps));
      const catalogRps = got.get('api-catalog')![0]!.rps;
      for (const t of targets) {
        const s = t === targets[0] ? { ...got.get(t.name)![0]!, rps: bareRps } : got.get(t.name)![0]!;
        samples.get(t.name)!.push(s);
        ratios.get(t.name)!.push(s.rps / (t.goal?.versus === 'catalog' ? catalogRps : bareRps));
      }
    }
    process.stderr.write('\n');
    const lines = [
      `cost bench: PostgreSQL, demo content + a ${(Buffer.byteLength(typical.body.en ?? '') / 1024).toFixed(1)} KiB article (id ${typical.id}), ${CONNECTIONS} connections, ${ROUNDS} interleaved round(s) × ${SECONDS} s per target; medians over rounds; preparedStatements ${process.env.BENCH_PREPARED === '0' ? 'off' : 'on'}; server: ${fromSource ? 'the source under tsx' : 'the built package (dist/) under plain Node'} ${process.version}`,
      '',
      '| route | req/s | p50 ms | p99 ms | ratio | goal | met | Node CPU ms/req | PG CPU ms/req |',
      '|---|---|---|---|---|---|---|---|---|',
    ];
    for (const t of targets) {
      const s = samples.get(t.name)!;
      const ratio = median(ratios.get(t.name)!);
      const goal = t.goal ? `≥ ${t.goal.min}× ${t.goal.versus === 'bare' ? 'bare' : 'api-catalog'}` : t.server === 'bare' ? '(floor)' : '';
      const met = t.goal ? (ratio >= t.goal.min ? 'yes' : 'NO') : '';
      const ratioText = t.goal ? `${ratio.toFixed(2)}×` : t.server === 'bare' ? '1.00×' : `${median(s.map((x) => x.rps)) > 0 ? (median(s.map((x) => x.rps)) / median(samples.get(targets[0]!.name)!.map((x) => x.rps))).toFixed(2) : '-'}× bare`;
      lines.push(
        `| ${t.name} \`${t.path}\` | ${median(s.map((x) => x.rps)).toFixed(0)} | ${median(s.map((x) => x.p50))} | ${median(s.map((x) => x.p99))} | ${ratioText} | ${goal} | ${met} | ${median(s.map((x) => x.nodeCpu)).toFixed(2)} | ${median(s.map((x) => x.pgCpu)).toFixed(2)} |`,
      );
    }
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
