/**
 * `npm run bench [-- name…] [-- --quick]`: runs the benchmarks one after another (cost, reusable-query, facade, rare-word, edges,
 * markdown, discovery, mcp, cms, traffic, push, soak), each reporting ratios measured side by side in one run. `cost` prints
 * each route against its floor and a bare Express + pg endpoint (issue 24); `facade` and `edges` the
 * deep-page ratios; `traffic` each route with the `traffic` option on against off. `--quick` is passed to the benches that have a short mode (iteration only). PostgreSQL benches use
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) and create databases of their own.
 */
import { spawnSync } from 'node:child_process';

const ALL = ['cost', 'reusable-query', 'facade', 'rare-word', 'edges', 'markdown', 'markdown-pool', 'discovery', 'mcp', 'cms', 'traffic', 'policy', 'push', 'soak'];
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const names = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const chosen = names.length ? names : ALL;
const env = { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' };
let failed = 0;
for (const name of chosen) {
  if (!ALL.includes(name)) throw new Error(`unknown bench "${name}" (one of ${ALL.join(', ')})`);
  process.stdout.write(`\n=== bench/${name}-bench.ts\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', name === 'soak' ? 'bench/soak.ts' : `bench/${name}-bench.ts`, ...flags], { stdio: 'inherit', env });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
