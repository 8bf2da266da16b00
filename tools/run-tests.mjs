// The suite (`npm test` runs it; a whole run type-checks too, as its first job, and compiles the suite:
// tools/build-tests.mjs). Every test file runs in a process of its own (`node --test <file>`), except
// that a whole run groups the short files, compiled, eight to a process (GROUP_SIZE below); several
// processes run at a time: on a 2-core machine one file at a time leaves
// half of it idle while PostgreSQL, PGlite, npm or Chromium works. The longest files start first (a
// long file started last is the whole suite's tail). The files that break their own database
// connections and poll for the outcome (database faults, aborted requests) start last of the pool, as
// it drains; last, the ones that load the machine on purpose or hold reads to a tight budget (fault
// injection under load, PgBouncer scale-out) run alone, since what they check is how the process
// behaves under a load they make themselves. A file's output is printed whole when it ends (never
// interleaved), then a summary: every file with its time, pass and fail.
// A file of a whole run started once the build is done runs compiled (`node --test .test-build/test/x.test.js`,
// source maps on): the same code without the TypeScript loader's cost per module; the longest files,
// started beside the build, run under tsx as a file run alone does.
// `node tools/run-tests.mjs [files…]` runs only the files given (under tsx, no build); TEST_CONCURRENCY
// overrides the default.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import os from 'node:os';

/**
 * Run alone, after the others: fault-load makes the load it checks the process under; scale-out
 * holds reads to a 500 ms budget.
 */
const ALONE = new Set(['test/fault-load.test.ts', 'test/scale-out.test.ts']);

/**
 * Run last of the pool, after every other file has started, before the ALONE files: each breaks its own
 * database connections (terminated backends, aborted sockets) and polls a few seconds for the outcome,
 * so not beside the whole pool's longest files; they start as the pool drains (beside at most its last
 * short files), instead of waiting for the pool's last file to end with a core idle.
 */
const PAIRED = new Set(['test/database-faults.test.ts', 'test/aborted-requests.test.ts']); // started in this order: the longer first (22 s against 16 s in a clean-clone run)

/**
 * Files that need a process of their own even in a whole run: they count what module-level state
 * records (queries built per shape, result checks) from the process's start.
 */
const SOLO = new Set(['test/reusable-query.test.ts', 'test/result-check.test.ts', 'test/search-rare-word.test.ts']);

/**
 * In a whole run, the other files run compiled in groups of this many, each group one process that
 * imports them in turn (their suites run one after another, as they do in a file): a process of its
 * own costs a file about 3 s of CPU (loading about a thousand modules, PGlite's WebAssembly, the
 * seeded database), more than many files' tests take; measured on the ten agent-web files, 66 s of CPU
 * one process each against 34 s as one group. Files of one prefix sit together (name order).
 */
const GROUP_SIZE = 8;

/**
 * Started first, longest first; the others follow in name order (the grouped files in groups). From
 * clean-clone CI runs on the 2-core machine, two processes (wall seconds beside the other files):
 * packed-package 111, search-rare-word 57, cms-wikijs 36 to 42, browser-admin 32 to 35, crawl-links 19,
 * check-readiness 19; the other files are grouped (check-command, admin-pages, mcp-endpoint and
 * cms-ghost, 9 to 18 s each, were started alone too until a process of their own, about 3 s of CPU to
 * load, cost more than it saved).
 */
const LONGEST = [
  'test/packed-package.test.ts',
  'test/crawl-links.test.ts',
  'test/check-readiness.test.ts',
  'test/search-rare-word.test.ts',
  'test/cms-wikijs.test.ts',
  'test/browser-admin.test.ts',
];

/** A file running longer than this is killed and counted as failed (a hang must not hold CI). */
const FILE_TIMEOUT_MS = 20 * 60_000;

/**
 * The type check of a whole run (`tsc` over src, test, bench and the examples), which also writes the
 * compiled suite (tools/build-tests.mjs): a job of the pool like a file, started first beside the
 * longest files instead of before them all, and failing the run as a failed file does.
 */
const TYPECHECK = 'tsc (type check and compiled suite)';
const TYPECHECK_ARGS = [fileURLToPath(new URL('build-tests.mjs', import.meta.url))];
const BUILD_DIR = '.test-build';
/** Set when the build has ended: the files started after it run compiled. */
let built = false;

const given = process.argv.slice(2);
const all = given.length ? given : readdirSync('test').filter((f) => f.endsWith('.test.ts')).sort().map((f) => `test/${f}`);
const rank = (f) => (LONGEST.includes(f) ? LONGEST.indexOf(f) : LONGEST.length);
/** The files of a whole run that are grouped: every file not named above. */
const groupable = (f) => !given.length && !LONGEST.includes(f) && !ALONE.has(f) && !PAIRED.has(f) && !SOLO.has(f);
const grouped = all.filter(groupable);
const groups = Array.from({ length: Math.ceil(grouped.length / GROUP_SIZE) }, (_, i) => grouped.slice(i * GROUP_SIZE, (i + 1) * GROUP_SIZE));
const pooled = [
  // A whole run type-checks too (a run of the files given does not).
  ...(given.length ? [] : [TYPECHECK]),
  ...all.filter((f) => !ALONE.has(f) && !PAIRED.has(f) && !groupable(f)).sort((a, b) => rank(a) - rank(b)),
  ...groups,
  ...[...PAIRED].filter((f) => all.includes(f)),
];
const alone = all.filter((f) => ALONE.has(f));
/**
 * One process per core (at least two, at most four). On the 2-core CI machine a third process only
 * made every process slower: clean-clone runs on 2026-12-06, same commit but for the documentation,
 * took 669 s at three processes (files' CPU 874 s, machine 1,296 CPU s) and 588 s at two (files' CPU
 * 762 s, machine 1,096 CPU s; the three-process run shared the machine with some other work, well under
 * the difference): the run is bound by CPU, and three processes on two cores spent more of it on the
 * same work.
 */
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, Math.min(4, os.availableParallelism())));
// The run's id: PGlite databases holding the demo content are copied from one seeded once per run
// (test/support/backends.ts); the copies are removed when the run ends.
const runId = `${Date.now()}-${process.pid}`;
// The PostgreSQL template databases of the run (test/support/backends.ts: migrated, and seeded, once per
// run; every suite's fresh database is a clone), dropped when the run ends.
const templatePrefix = `ead_tpl_${runId.replace(/-/g, '_')}_`;
const env = { ...process.env, EXPRESS_AGENT_DISCOVERY_VERIFY_QUERIES: '1', EXPRESS_AGENT_DISCOVERY_TEST_RUN: runId, EXPRESS_AGENT_DISCOVERY_TEST_TEMPLATES: templatePrefix };
const started = Date.now();
/** The machine's busy CPU seconds so far (all processes: PostgreSQL and Chromium too), from /proc/stat on Linux. */
function machineBusySeconds() {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const idle = ticks[3] + (ticks[4] ?? 0);
    return (ticks.slice(0, 8).reduce((a, b) => a + b, 0) - idle) / 100;
  } catch {
    return undefined;
  }
}
const busyAtStart = machineBusySeconds();

const compiledPath = (file) => path.join(BUILD_DIR, file.replace(/\.ts$/, '.js'));

/**
 * Runs a group of files as one process (compiled: a module in the build importing each in turn), or,
 * before the build has ended, each file on its own; resolves with the results.
 */
async function runGroup(files) {
  if (!built || !files.every((f) => existsSync(compiledPath(f)))) {
    const results = [];
    for (const file of files) results.push(await runFile(file));
    return results;
  }
  const entry = path.join(BUILD_DIR, 'test', `group-${++groupsRun}.test.js`);
  writeFileSync(entry, files.map((f) => `await import(${JSON.stringify(pathToFileURL(path.resolve(compiledPath(f))).href)});\n`).join(''));
  return [await runFile(`group of ${files.length}: ${files.map((f) => path.basename(f, '.test.ts')).join(', ')}`, entry)];
}
let groupsRun = 0;

/**
 * Runs one file (or the type check, or a group's module as `entry`); resolves with its summary once
 * its output has been printed.
 */
function runFile(file, entry) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const compiled = entry ?? compiledPath(file);
    const runCompiled = file !== TYPECHECK && built && existsSync(compiled);
    const args =
      file === TYPECHECK
        ? TYPECHECK_ARGS
        : runCompiled
          ? ['--enable-source-maps', '--test', '--test-reporter=tap', compiled]
          : ['--import', 'tsx', '--test', '--test-reporter=tap', file];
    // CPU seconds (user + system) of the file and every process it started and waited for, from GNU time
    // where the machine has it: wall time alone hides which files load the 2 cores.
    const cpuFile = TIME ? path.join(os.tmpdir(), `ead-test-cpu-${process.pid}-${++cpuFiles}.txt`) : undefined;
    const child = TIME
      ? spawn(TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (file === TYPECHECK) built = true;
      const output = Buffer.concat(chunks).toString('utf8');
      const cpu = cpuSeconds(cpuFile);
      const count = (name) => Number(output.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
      const result = { file, compiled: runCompiled, startedAt: (t0 - started) / 1000, seconds: (Date.now() - t0) / 1000, pass: count('pass'), fail: count('fail'), cancelled: count('cancelled'), skipped: count('skipped'), cpu, ok: code === 0 && !timedOut };
      const status = result.ok ? 'ok' : timedOut ? `KILLED after ${FILE_TIMEOUT_MS / 60_000} min` : `FAILED (exit ${code ?? signal})`;
      process.stdout.write(`\n# ==== ${file}: ${status}, ${result.seconds.toFixed(1)} s${cpu === undefined ? '' : ` (CPU ${cpu.toFixed(1)} s)`} from +${result.startedAt.toFixed(0)} s${runCompiled ? ' (compiled)' : ''}, ${result.pass} passed, ${result.fail} failed\n${output}`);
      resolve(result);
    });
  });
}

/** GNU time, when installed: it reports the CPU a file used, its children included. */
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
let cpuFiles = 0;
/** The CPU seconds GNU time wrote (its last line: a killed child adds a line before it), or undefined. */
function cpuSeconds(file) {
  if (!file) return undefined;
  try {
    const last = readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? '';
    rmSync(file, { force: true });
    const [user, system] = last.split(' ').map(Number);
    return Number.isFinite(user) && Number.isFinite(system) ? user + system : undefined;
  } catch {
    return undefined;
  }
}

/** Drops the run's template databases (and one left half-built by a killed file). */
async function dropTemplates(serverUrl) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: serverUrl });
  try {
    await client.connect();
    const { rows } = await client.query("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [templatePrefix]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } catch (error) {
    process.stdout.write(`# could not drop the run's template databases: ${error.message}\n`);
  } finally {
    await client.end().catch(() => {});
  }
}

async function pool(files, n) {
  const queue = [...files];
  const results = [];
  const worker = async () => {
    for (let item = queue.shift(); item; item = queue.shift()) results.push(...(Array.isArray(item) ? await runGroup(item) : [await runFile(item)]));
  };
  await Promise.all(Array.from({ length: Math.min(n, files.length) }, worker));
  return results;
}

const results = [...(await pool(pooled, concurrency)), ...(await pool(alone, 1))];
if (!given.length) rmSync(BUILD_DIR, { recursive: true, force: true });
if (process.env.DATABASE_URL) await dropTemplates(process.env.DATABASE_URL);
for (const name of readdirSync(os.tmpdir())) {
  if (/^ead-test-pglite-seeded-[0-9a-f]{16}\.tar$/.test(name)) rmSync(path.join(os.tmpdir(), name), { force: true });
}
const total = (k) => results.reduce((s, r) => s + r[k], 0);
const cpuTotal = results.reduce((s, r) => s + (r.cpu ?? 0), 0);
const busy = busyAtStart === undefined ? undefined : machineBusySeconds() - busyAtStart;
process.stdout.write(`\n# ==== summary: ${all.length} files in ${results.length} processes, concurrency ${concurrency}, ${((Date.now() - started) / 1000).toFixed(0)} s${TIME ? `, CPU of the files ${cpuTotal.toFixed(0)} s` : ''}${busy === undefined ? '' : `, machine busy ${busy.toFixed(0)} CPU s`}\n`);
for (const r of [...results].sort((a, b) => b.seconds - a.seconds)) {
  const cpu = r.cpu === undefined ? '' : ` CPU ${r.cpu.toFixed(1).padStart(6)} s `;
  process.stdout.write(`#   ${r.ok ? 'ok    ' : 'FAILED'} ${r.seconds.toFixed(1).padStart(6)} s ${cpu} ${String(r.pass).padStart(4)} passed ${String(r.fail).padStart(3)} failed  +${r.startedAt.toFixed(0).padStart(3)} s  ${r.file}${r.compiled || r.file === TYPECHECK ? '' : ' (tsx)'}\n`);
}
process.stdout.write(`# tests passed ${total('pass')}, failed ${total('fail')}, cancelled ${total('cancelled')}, skipped ${total('skipped')}\n`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
