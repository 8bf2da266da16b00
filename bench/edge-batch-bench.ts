/**
 * `setEdgesMany` at the Ghost export's shape (SPEC §19): posts with 24-hex string ids, each with its
 * tags (`tagged`, 1 to 4, string ids) and its author (`authored_by`), about 1.66 edges a set, so a
 * batch of 500 sets writes about 830 edges. One batch of each size (50, 100, 250, 500 sets) into
 * subjects without edges, then the same batch again over the stored edges (the re-import), on
 * PostgreSQL (a database of its own, `ead_bench_edge_batch`, dropped afterwards) and PGlite in memory.
 * Goal: a batch of 500 sets ≤ 300 ms on PostgreSQL.
 *
 * Side by side with another version in one run: BENCH_EDGES_SRC=<dir with its src/> runs that
 * version's writer on the same database, alternately with this tree's, on separate subjects:
 *   mkdir /tmp/ead-before && git archive <commit> src migrations | tar -x -C /tmp/ead-before
 *   BENCH_EDGES_SRC=/tmp/ead-before/src npx tsx bench/edge-batch-bench.ts [--pglite-only | --postgres-only]
 */
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { Kysely, PGliteDialect, sql } from 'kysely';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import type { Database } from '../src/db/schema.js';
import type { ContentWriter, EdgeSetInput } from '../src/index.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SOURCE = process.env.BENCH_EDGES_SRC;
const SIZES = [50, 100, 250, 500];
const TAGS = 120;
const AUTHORS = 8;
const log = (line: string) => process.stdout.write(`${line}\n`);
const hexId = (prefix: number, n: number) => (prefix * 0x1000000 + n).toString(16).padStart(24, '0');
const postId = (n: number) => hexId(0x5f, n);
const tagId = (n: number) => hexId(0x6a, n);
const authorId = (n: number) => hexId(0x7b, n);

/** The sets of posts `first` … `first + count/2 − 1`: a tagged set and an authored_by set each. */
function edgeSets(first: number, sets: number): EdgeSetInput[] {
  const out: EdgeSetInput[] = [];
  for (let n = first; out.length < sets; n++) {
    const tags = 1 + ((n * 7) % 3) + (n % 5 === 0 ? 1 : 0);
    out.push({ subject: postId(n), predicate: 'tagged', objects: Array.from({ length: tags }, (_, i) => tagId((n * 13 + i * 17) % TAGS)) });
    if (out.length < sets) out.push({ subject: postId(n), predicate: 'authored_by', objects: [authorId(n % AUTHORS)] });
  }
  return out;
}

async function writer(db: Kysely<Database>, src: string | undefined): Promise<ContentWriter> {
  const module = src ? await import(pathToFileURL(`${src}/push/index.ts`).href) : await import('../src/push/index.js');
  return module.createContentWriter(db, { defaultLanguage: 'en' }) as ContentWriter;
}

async function seed(push: ContentWriter, posts: number): Promise<void> {
  await push.putCategory({ name: 'post', title: 'Posts' });
  await push.putCategory({ name: 'tag', title: 'Tags', vocabulary: true });
  await push.putCategory({ name: 'author', title: 'Authors', vocabulary: true });
  await push.putPredicate({ name: 'tagged', subjects: ['post'], objects: ['tag'] });
  await push.putPredicate({ name: 'authored_by', subjects: ['post'], objects: ['author'] });
  await push.putMany(Array.from({ length: TAGS }, (_, n) => ({ id: tagId(n), category: 'tag', title: `Tag ${n}` })));
  await push.putMany(Array.from({ length: AUTHORS }, (_, n) => ({ id: authorId(n), category: 'author', title: `Author ${n}` })));
  await push.putMany((function* () { for (let n = 0; n < posts; n++) yield { id: postId(n), category: 'post', title: `Post ${n}`, body: `<p>Post ${n}</p>` }; })());
}

/** Milliseconds of one `setEdgesMany` call of `sets` (one batch). */
async function timedBatch(push: ContentWriter, sets: EdgeSetInput[]): Promise<number> {
  const start = performance.now();
  await push.setEdgesMany(sets, { batchSize: sets.length });
  return performance.now() - start;
}

async function run(name: string, db: Kysely<Database>): Promise<void> {
  const writers: [string, ContentWriter][] = [['this tree', await writer(db, undefined)]];
  if (SOURCE) writers.unshift(['before', await writer(db, SOURCE)]);
  const total = SIZES.reduce((a, b) => a + b, 0);
  await seed(writers.at(-1)![1], total * writers.length);
  log(`\n## ${name}: one setEdgesMany batch, Ghost's shape (posts by 24-hex string id, tags and an author each)`);
  log(`| sets (edges) | ${writers.map(([w]) => `${w}: new ms | ${w}: again ms`).join(' | ')}${SOURCE ? ' | new: this tree / before' : ''} |`);
  log(`|---|${writers.map(() => '---|---').join('|')}${SOURCE ? '|---' : ''}|`);
  let first = 0;
  for (const size of SIZES) {
    const cells: string[] = [];
    const fresh: number[] = [];
    for (const [, push] of writers) {
      const sets = edgeSets(first, size);
      first += size;
      const a = await timedBatch(push, sets);
      const b = await timedBatch(push, sets);
      fresh.push(a);
      cells.push(`${a.toFixed(0)} | ${b.toFixed(0)}`);
    }
    const edges = edgeSets(0, size).reduce((n, s) => n + s.objects.length, 0);
    log(`| ${size} (${edges}) | ${cells.join(' | ')}${SOURCE ? ` | ${(fresh[1]! / fresh[0]!).toFixed(3)}` : ''} |`);
  }
  const stored = Number((await sql<{ n: string }>`SELECT count(*) AS n FROM edge`.execute(db)).rows[0]!.n);
  log(`(${stored.toLocaleString('en')} edges stored)`);
}

if (!process.argv.includes('--pglite-only')) {
  const name = 'ead_bench_edge_batch';
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const content = await openDatabase({ url: url.toString() });
  try {
    await migrateToLatest(content.db);
    await run('PostgreSQL', content.db);
  } finally {
    await content.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
if (!process.argv.includes('--postgres-only')) {
  const pglite = new PGlite();
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  try {
    await migrateToLatest(db);
    await run('PGlite', db);
  } finally {
    await db.destroy();
  }
}
