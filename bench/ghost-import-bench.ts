// The Ghost importer (examples/cms/ghost/import-export.mjs, run as its README says, default batch) on an
// export at a newsroom's size, several times, each into a fresh PostgreSQL database (issue 43, item 3:
// "the Ghost importer passes on a loaded machine"; run it beside other work to load the machine):
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/ghost-import-bench.ts [posts] [runs]
//
// The export is the fixture's (test/fixtures/ghost-export/export.json, Ghost 6's shape) with its public
// posts copied until it holds `posts` posts (default 2,000), each copy with new ids, slug and title and
// the same tags and authors (about 1.6 edges a post, as in the report that found the quadratic batch).
// Reports each run's exit status, wall time and last line, and the machine's load average.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const ADMIN = process.env.DATABASE_URL;
if (!ADMIN) throw new Error('set DATABASE_URL (a role that may create databases)');
const POSTS = Number(process.argv[2] ?? 2000);
const RUNS = Number(process.argv[3] ?? 6);
const out = (line: string) => process.stdout.write(`${line}\n`);

type Row = Record<string, unknown> & { id: string };
const file = JSON.parse(readFileSync('test/fixtures/ghost-export/export.json', 'utf8')) as { db: Array<{ data: Record<string, Row[]> }> };
const data = file.db[0]!.data;
const originals = data.posts!.filter((p) => p.status === 'published' && p.visibility === 'public' && p.type === 'post');
let serial = 0;
const newId = () => `6f${(++serial).toString(16).padStart(22, '0')}`;
for (let copy = 1; data.posts!.length < POSTS; copy++) {
  for (const post of originals) {
    if (data.posts!.length >= POSTS) break;
    const id = newId();
    data.posts!.push({ ...post, id, uuid: `${post.uuid as string}`.replace(/.{8}$/, serial.toString(16).padStart(8, '0')), comment_id: id, slug: `${post.slug as string}-${copy}`, title: `${post.title as string} (${copy})` });
    for (const meta of data.posts_meta!.filter((m) => m.post_id === post.id)) data.posts_meta!.push({ ...meta, id: newId(), post_id: id });
    for (const link of data.posts_tags!.filter((l) => l.post_id === post.id)) data.posts_tags!.push({ ...link, id: newId(), post_id: id });
    for (const link of data.posts_authors!.filter((l) => l.post_id === post.id)) data.posts_authors!.push({ ...link, id: newId(), post_id: id });
  }
}
const dir = mkdtempSync(path.join(tmpdir(), 'ghost-import-'));
const exportFile = path.join(dir, 'ghost-export.json');
writeFileSync(exportFile, JSON.stringify(file));
out(`# Ghost importer (${new Date().toISOString()}): ${data.posts!.length} posts and pages, ${data.posts_tags!.length + data.posts_authors!.length} tag and author links, ${RUNS} runs, each into a fresh database`);
out('\n| run | exit | seconds | load average (1 min) | last line |');
out('|---|---|---|---|---|');
const admin = new pg.Client({ connectionString: ADMIN });
await admin.connect();
let failed = 0;
try {
  for (let run = 1; run <= RUNS; run++) {
    const name = `ghost_import_bench_${process.pid}_${run}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(ADMIN);
    url.pathname = `/${name}`;
    const started = performance.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'examples/cms/ghost/import-export.mjs', exportFile], {
      env: { ...process.env, DATABASE_URL: url.href, GHOST_URL: 'https://blog.example' },
      encoding: 'utf8',
      timeout: 600_000,
    });
    const seconds = (performance.now() - started) / 1000;
    // The importer's summary (stdout), or the error it stopped on (stderr).
    const last = ((r.status === 0 ? r.stdout : r.stderr) || r.stdout || '').trim().split(/[\r\n]/).at(-1)?.replace(/\|/g, '/') ?? '';
    if (r.status !== 0) failed++;
    out(`| ${run} | ${r.status ?? r.signal} | ${seconds.toFixed(1)} | ${loadavg()[0]!.toFixed(1)} | ${last.slice(0, 160)} |`);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
} finally {
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
out(`\n${RUNS - failed} of ${RUNS} runs passed`);
process.exitCode = failed ? 1 : 0;
