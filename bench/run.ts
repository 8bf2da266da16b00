/**
 * `npm run bench [-- name…]`: runs the benchmarks one after another (facade, edges, markdown, mcp,
 * discovery), each reporting ratios measured side by side in one run. PostgreSQL benches use
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) and create databases of their own.
 */
import { spawnSync } from 'node:child_process';

const ALL = ['facade', 'edges', 'markdown', 'markdown-pool', 'discovery', 'mcp'];
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
const env = { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' };
let failed = 0;
for (const name of chosen) {
  if (!ALL.includes(name)) throw new Error(`unknown bench "${name}" (one of ${ALL.join(', ')})`);
  process.stdout.write(`\n=== bench/${name}-bench.ts\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}-bench.ts`], { stdio: 'inherit', env });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
