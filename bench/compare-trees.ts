/**
 * Before and after, side by side: the cost bench's routes served by this tree and by another revision
 * (each its own built package under plain Node, `bench/cost-server.mjs` of its tree), on the same
 * database, measured alternately in interleaved rounds, so a machine that slows down moves both alike.
 * Prints req/s and Node / PostgreSQL CPU per request of each, and after/before.
 *
 *   npx tsx bench/compare-trees.ts 6d1d23b                # 3 rounds × 3 s per route and tree
 *   BENCH_ONLY=resource,related npx tsx bench/compare-trees.ts HEAD~3
 *
 * The other revision is checked out in a temporary git worktree (removed at the end) that borrows this
 * tree's node_modules; it must have `bench/cost-server.mjs` (since 0f255bc).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { openDatabase } from '../src/db/connection.js';
import { costTargets, load, median, prepareDatabase, TYPICAL, type Sample } from './cost-bench.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const here = new URL('..', import.meta.url).pathname;

function run(command: string, args: string[], cwd: string): void {
  const r = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}`);
}

const build = (tree: string) => run(process.execPath, [join(here, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], tree);

/** Starts a tree's cost server; resolves with its origins and a stop function. */
async function serve(tree: string, url: string) {
  const child = spawn(process.execPath, [join(tree, 'bench/cost-server.mjs'), url], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ports = await new Promise<{ plugin: number; bare: number }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`bench server of ${tree} exited (${code})`)));
  });
  return { plugin: `http://127.0.0.1:${ports.plugin}`, bare: `http://127.0.0.1:${ports.bare}`, stop: () => child.kill() };
}

async function main(): Promise<void> {
  const rev = process.argv[2];
  if (!rev) throw new Error('compare-trees: name the revision to compare with (e.g. HEAD~1)');
  const url = await prepareDatabase();
  const probe = await openDatabase({ url });
  const typical = (await probe.db.selectFrom('rsc').select('id').where('name', '=', TYPICAL).executeTakeFirstOrThrow()).id;
  await probe.close();

  const other = mkdtempSync(join(tmpdir(), 'ead-compare-'));
  run('git', ['worktree', 'add', '--detach', other, rev], here);
  const servers: { stop(): void }[] = [];
  const admin = new pg.Client({ connectionString: url });
  try {
    symlinkSync(join(here, 'node_modules'), join(other, 'node_modules'));
    build(here);
    build(other);
    const before = await serve(other, url);
    servers.push(before);
    const after = await serve(here, url);
    servers.push(after);
    await admin.connect();
    const only = process.env.BENCH_ONLY?.split(',').filter(Boolean);
    const targets = costTargets(typical).filter((t) => !only || t.server === 'bare' || only.some((w) => t.path.includes(w)));
    const sides = { before, after };
    for (const t of targets) for (const side of Object.values(sides)) await load(side[t.server], t.path); // warm-up
    const samples = new Map(targets.map((t) => [t.name, { before: [] as Sample[], after: [] as Sample[] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of targets) {
        // Alternate which tree goes first, so neither always runs on the warmer machine.
        const order = round % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const);
        for (const name of order) {
          const side = sides[name];
          samples.get(t.name)![name].push(await load(side[t.server], t.path, { bare: side.bare, admin }));
          process.stderr.write('.');
        }
      }
    }
    process.stderr.write('\n');
    const m = (xs: Sample[], k: keyof Sample) => median(xs.map((s) => s[k]));
    const lines = [
      `before = ${rev}, after = this tree; ${ROUNDS} interleaved round(s); medians; Node ${process.version}`,
      '',
      '| route | req/s before | req/s after | after/before | Node CPU ms/req before → after | PG CPU ms/req before → after |',
      '|---|---|---|---|---|---|',
      ...targets.map((t) => {
        const { before: b, after: a } = samples.get(t.name)!;
        return `| ${t.name} | ${m(b, 'rps').toFixed(0)} | ${m(a, 'rps').toFixed(0)} | ${(m(a, 'rps') / m(b, 'rps')).toFixed(2)}× | ${m(b, 'nodeCpu').toFixed(2)} → ${m(a, 'nodeCpu').toFixed(2)} | ${m(b, 'pgCpu').toFixed(2)} → ${m(a, 'pgCpu').toFixed(2)} |`;
      }),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const s of servers) s.stop();
    await admin.end().catch(() => undefined);
    spawnSync('git', ['worktree', 'remove', '--force', other], { cwd: here });
    rmSync(other, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
