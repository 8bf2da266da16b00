/**
 * What the request budget costs per read, side by side in one run (bench/scale-out.sh runs it behind
 * PgBouncer too; alone: `DATABASE_URL=… npx tsx bench/budget-cost.ts`, optionally PGBOUNCER_URL=…):
 * - `statement_timeout` startup parameter: the pool's statement_timeout as before (refused by PgBouncer);
 * - `CancelRequest after the budget`: today's design (src/db/statement-guard.ts), one timer per statement,
 *   a CancelRequest only when it fires;
 * - `SET LOCAL`: BEGIN; SET LOCAL statement_timeout; the read; COMMIT (what transaction pooling allows).
 * Each variant runs in a child process of its own, 10 reads in flight, rounds interleaved; the table gives
 * the median reads/s and client CPU time per read, and their ratios to the first row.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import type { Database } from '../src/db/schema.js';
import { seedDemoContent } from '../example-site/seed.js';

const VARIANTS = ['statement_timeout startup parameter', 'CancelRequest after the budget', 'SET LOCAL in a transaction'] as const;
type Variant = (typeof VARIANTS)[number];
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IN_FLIGHT = 10;

async function read(db: Kysely<Database>, id: number): Promise<void> {
  await db.selectFrom('rsc').select(['id', 'name', 'title', 'modified']).where('id', '=', id).executeTakeFirstOrThrow();
}

/** Child: runs one variant for SECONDS against `url`, prints reads/s. */
async function child(variant: Variant, url: string, ids: number[]): Promise<void> {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  if (variant === 'statement_timeout startup parameter') {
    // The pool as it was: statement_timeout sent at connection start-up.
    const { Kysely: K, PostgresDialect } = await import('kysely');
    const pool = new pg.Pool({ connectionString: url, max: IN_FLIGHT, statement_timeout: 5000 });
    db = new K<Database>({ dialect: new PostgresDialect({ pool }) });
    close = () => db.destroy();
  } else {
    const content = await openDatabase({ url, poolSize: IN_FLIGHT, ...(variant === 'CancelRequest after the budget' ? { statementTimeoutMs: 5000 } : {}) });
    db = content.db;
    close = content.close;
  }
  const once = (id: number): Promise<void> =>
    variant === 'SET LOCAL in a transaction'
      ? db.transaction().execute(async (trx) => {
          await sql`SET LOCAL statement_timeout = 5000`.execute(trx);
          await read(trx, id);
        })
      : read(db, id);
  for (let i = 0; i < 200; i++) await once(ids[i % ids.length]!); // warm-up
  let done = 0;
  const cpu = process.cpuUsage();
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, worker) => {
      for (let i = worker; performance.now() < until; i += IN_FLIGHT) {
        await once(ids[i % ids.length]!);
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  await close();
  process.stdout.write(JSON.stringify({ rate: done / SECONDS, cpuUs: (used.user + used.system) / done }));
}

async function main(): Promise<void> {
  const [mode, variant, url, idList] = process.argv.slice(2);
  if (mode === 'child') return child(variant as Variant, url!, idList!.split(',').map(Number));
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error('DATABASE_URL is required');
  const name = `ead_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const on = (base: string) => Object.assign(new URL(base), { pathname: `/${name}` }).toString();
  try {
    const content = await openDatabase({ url: on(server) });
    await migrateToLatest(content.db);
    await seedDemoContent(content.db);
    const ids = (await content.db.selectFrom('rsc').select('id').orderBy('id').execute()).map((r) => r.id).slice(0, 200);
    await content.close();
    const targets: [string, string, readonly Variant[]][] = [['direct', on(server), VARIANTS]];
    if (process.env.PGBOUNCER_URL) targets.push(['PgBouncer (transaction pooling)', on(process.env.PGBOUNCER_URL), VARIANTS.slice(1)]);
    const self = fileURLToPath(import.meta.url);
    console.log(`| target | budget design | reads/s (median of ${ROUNDS} × ${SECONDS} s, ${IN_FLIGHT} in flight) | ratio | client CPU µs per read | ratio |`);
    console.log('|---|---|---|---|---|---|');
    for (const [label, url, variants] of targets) {
      const runs = new Map<Variant, number[]>(variants.map((v) => [v, []]));
      const cpus = new Map<Variant, number[]>(variants.map((v) => [v, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const v of variants) {
          const out = execFileSync(process.execPath, ['--import', 'tsx', self, 'child', v, url, ids.join(',')], { encoding: 'utf8' });
          const { rate, cpuUs } = JSON.parse(out) as { rate: number; cpuUs: number };
          runs.get(v)!.push(rate);
          cpus.get(v)!.push(cpuUs);
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const base = median(runs.get(variants[0]!)!);
      const baseCpu = median(cpus.get(variants[0]!)!);
      for (const v of variants) {
        const m = median(runs.get(v)!);
        const c = median(cpus.get(v)!);
        console.log(`| ${label} | ${v} | ${Math.round(m)} | ${(m / base).toFixed(2)} | ${Math.round(c)} | ${(c / baseCpu).toFixed(2)} |`);
      }
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
