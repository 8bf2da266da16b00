// The suite (`npm test` runs it after the type check): test files that own their databases and ports run
// several at a time, since on a 2-core machine one file at a time leaves half of it idle while
// PostgreSQL or PGlite works; the files that load the machine on purpose (fault injection under load,
// PgBouncer scale-out, the packed package, the browser, the MCP conformance suite under Node 22) run
// after them, one at a time.
// `node tools/run-tests.mjs [files…]` runs only the files given. TEST_CONCURRENCY overrides the default.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';

const SERIAL = new Set([
  'test/fault-load.test.ts',
  'test/scale-out.test.ts',
  'test/database-faults.test.ts',
  'test/aborted-requests.test.ts',
  'test/packed-package.test.ts',
  'test/browser-admin.test.ts',
  'test/browser-api-help.test.ts',
  'test/browser-settings.test.ts',
  'test/mcp-conformance.test.ts',
]);

const given = process.argv.slice(2);
const files = given.length ? given : readdirSync('test').filter((f) => f.endsWith('.test.ts')).sort().map((f) => `test/${f}`);
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, Math.min(4, os.availableParallelism() + 1)));
const env = { ...process.env, EXPRESS_AGENT_DISCOVERY_VERIFY_QUERIES: '1' };

function run(batch, n) {
  if (!batch.length) return 0;
  const args = ['--import', 'tsx', '--test', `--test-concurrency=${n}`, ...batch];
  return spawnSync(process.execPath, args, { stdio: 'inherit', env }).status ?? 1;
}

const parallel = run(files.filter((f) => !SERIAL.has(f)), concurrency);
const serial = run(files.filter((f) => SERIAL.has(f)), 1);
process.exit(parallel || serial);
