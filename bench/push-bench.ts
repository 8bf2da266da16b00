/**
 * The push road at a CMS's real size (SPEC §19, issue 33), side by side in one run, on PostgreSQL (a
 * database of its own, `ead_bench_push`, dropped afterwards) and on PGlite in memory:
 *
 * 1. **Bulk**: `putMany` of N resources (3 KiB bodies, 24-hex string ids as Ghost's) against a plain
 *    multi-row `INSERT … ON CONFLICT` of the same rows through the driver (500 rows a statement, one
 *    transaction each, the `fts` trigger firing for both), into an empty table, then again over the
 *    stored rows (the update path). Goal: `putMany` ≥ 0.5× the plain insert's rows/s.
 * 2. **One at a time**: `put` (its own transaction each) against one transaction holding one
 *    single-row upsert per resource, and `put` from eight callers at once. Goal: ≥ 0.5×.
 * 3. **Reconcile** of the N ids (all listed: nothing removed; then with 1 % missing from the list).
 *
 *   npx tsx bench/push-bench.ts [--quick] [--pglite-only | --postgres-only]
 *   BENCH_PUSH_ROWS (default 100,000; --quick 5,000), BENCH_PUSH_SINGLE (default 2,000; --quick 300),
 *   BENCH_PUSH_PARTS=bulk,single (default both), BENCH_PUSH_PREPARED=1 (PostgreSQL with `preparedStatements`),
 *   BENCH_PUSH_SRC=<dir with src/ of another version> measures that version's `put` (section 2 only):
 *   `git archive HEAD src migrations | tar -x -C /tmp/ead-before`.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { Kysely, PGliteDialect, sql } from 'kysely';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase, type ContentDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import type { Database } from '../src/db/schema.js';
import type { ContentWriter, ResourceInput } from '../src/index.js';

const QUICK = process.argv.includes('--quick');
const ROWS = Number(process.env.BENCH_PUSH_ROWS ?? (QUICK ? 5_000 : 100_000));
const SINGLE = Number(process.env.BENCH_PUSH_SINGLE ?? (QUICK ? 300 : 2_000));
const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SOURCE = process.env.BENCH_PUSH_SRC;
/** Which parts run: `bulk` (putMany and reconcile), `single` (one at a time); default both. */
const PARTS = (process.env.BENCH_PUSH_PARTS ?? 'bulk,single').split(',');
/** BENCH_PUSH_PREPARED=1: PostgreSQL opened with the `preparedStatements` option (named statements, plans reused). */
const PREPARED = process.env.BENCH_PUSH_PREPARED === '1';
const BATCH = 500;
const log = (line: string) => process.stdout.write(`${line}\n`);

/** The writer factory of this tree, or of another version's `src/` (BENCH_PUSH_SRC). */
async function writerFactory(): Promise<(db: Kysely<Database>) => ContentWriter> {
  const module = SOURCE ? await import(pathToFileURL(`${SOURCE}/push/index.ts`).href) : await import('../src/push/index.js');
  return (db) => module.createContentWriter(db, { defaultLanguage: 'en' }) as ContentWriter;
}

const WORDS = ['harbour', 'ferry', 'quay', 'lighthouse', 'tide', 'anchor', 'crane', 'dock', 'pier', 'buoy', 'vessel', 'cargo'];
/** About 3 KiB of HTML, different per resource. */
function body(n: number): string {
  const parts: string[] = [];
  for (let i = 0; parts.join('').length < 3000; i++) parts.push(`<p>${WORDS[(n + i) % WORDS.length]} ${n} paragraph ${i}: the ferry leaves the quay at dawn and the harbour master logs every vessel.</p>`);
  return parts.join('');
}
const hexId = (n: number) => (0x5f000000 + n).toString(16).padStart(24, '0');
const at = (n: number) => new Date(Date.UTC(2024, 0, 1) + n * 60_000);

/** Resource `n` as `put` takes it (`round` changes its title and modified time). */
function resource(n: number, round = 0, numeric = false): ResourceInput {
  return {
    id: numeric ? 1_000_000 + n : hexId(n),
    category: 'post',
    title: `Post ${n}${round ? ` (rev ${round})` : ''}`,
    summary: `Summary of post ${n}.`,
    body: body(n),
    publication_start: at(n),
    modified: at(n + round),
    page_url: `/post-${n}/`,
  };
}

/** The same row as the plain insert writes it (the columns `put` writes, as the driver takes them). */
function plainRow(n: number, round: number, categoryId: number): unknown[] {
  const r = resource(n, round, true);
  return [
    r.id, categoryId, true, 'public', (r.publication_start as Date).toISOString(), null, (r.modified as Date).toISOString(), '{en}',
    JSON.stringify({ en: r.title }), JSON.stringify({ en: r.summary }), JSON.stringify({ en: r.body }), '[]', '{}', false, JSON.stringify(r.page_url),
  ];
}

const PLAIN_COLUMNS = 'id, category_id, is_published, visibility, publication_start, publication_end, modified, language, title, summary, body, blocks, props, seo_noindex, page_url';
const PLAIN_UPDATE = PLAIN_COLUMNS.split(', ').slice(1).map((c) => `${c} = EXCLUDED.${c}`).join(', ');

/** A plain multi-row `INSERT … ON CONFLICT (id) DO UPDATE` of `rows`, `BATCH` rows a statement, each its own transaction. */
async function plainInsert(client: pg.ClientBase, first: number, count: number, round: number, categoryId: number): Promise<void> {
  for (let start = first; start < first + count; start += BATCH) {
    const n = Math.min(BATCH, first + count - start);
    const values: unknown[] = [];
    const tuples: string[] = [];
    for (let i = 0; i < n; i++) {
      const row = plainRow(start + i, round, categoryId);
      tuples.push(`(${row.map((_, j) => `$${values.length + j + 1}`).join(', ')})`);
      values.push(...row);
    }
    await client.query(`INSERT INTO rsc (${PLAIN_COLUMNS}) VALUES ${tuples.join(', ')} ON CONFLICT (id) DO UPDATE SET ${PLAIN_UPDATE}`, values);
  }
}

/** Rows a second, and the time, of `work` over `rows` rows. */
async function timed(rows: number, work: () => Promise<unknown>): Promise<{ rate: number; seconds: number }> {
  const start = performance.now();
  await work();
  const seconds = (performance.now() - start) / 1000;
  return { rate: rows / seconds, seconds };
}
const fmt = (r: { rate: number; seconds: number }) => `${Math.round(r.rate).toLocaleString('en')} rows/s (${r.seconds.toFixed(1)} s)`;

interface Backend {
  name: string;
  content: ContentDatabase;
  /** Runs `work` with the plain driver on the same database (pg's client; PGlite's own `query`). */
  plain: (work: (query: (text: string, values?: unknown[]) => Promise<unknown>) => Promise<void>) => Promise<void>;
  close(): Promise<void>;
}

async function postgresBackend(): Promise<Backend> {
  const name = `ead_bench_push`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const content = await openDatabase({ url: url.toString(), preparedStatements: PREPARED });
  await migrateToLatest(content.db);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return {
    name: PREPARED ? 'PostgreSQL, preparedStatements' : 'PostgreSQL',
    content,
    plain: (work) => work((text, values) => client.query(text, values as unknown[])),
    async close() {
      await client.end();
      await content.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function pgliteBackend(): Promise<Backend> {
  const pglite = new PGlite();
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  await migrateToLatest(db);
  return {
    name: 'PGlite',
    content: { db, kind: 'pglite', pool: undefined, close: async () => {} },
    plain: (work) => work((text, values) => pglite.query(text, values ?? [])),
    async close() {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

async function benchBackend(b: Backend, makeWriter: (db: Kysely<Database>) => ContentWriter): Promise<void> {
  const db = b.content.db;
  const push = makeWriter(db);
  const reset = async () => {
    await sql`TRUNCATE rsc, category, edge, medium, predicate_category, agent_discovery_external_id`.execute(db);
    await push.putCategory({ name: 'post', title: 'Posts' });
    if (b.name.startsWith('PostgreSQL')) await sql`CHECKPOINT`.execute(db);
  };
  const categoryId = async () => Number((await db.selectFrom('rsc').select('id').where('name', '=', 'post').executeTakeFirstOrThrow()).id);
  const plain = async (round: number) => {
    const cat = await categoryId();
    return b.plain(async (query) => {
      const client = { query } as unknown as pg.ClientBase;
      await plainInsert(client, 0, ROWS, round, cat);
    });
  };
  log(`\n## ${b.name}: ${ROWS.toLocaleString('en')} resources, 3 KiB bodies${SOURCE ? ` (writer from ${SOURCE})` : ''}`);
  if (!SOURCE && PARTS.includes('bulk')) {
    await reset();
    const plainInsertRate = await timed(ROWS, () => plain(0));
    const plainUpdateRate = await timed(ROWS, () => plain(1));
    await reset();
    let lastProgress = 0;
    const many = await timed(ROWS, () => push.putMany((function* () { for (let n = 0; n < ROWS; n++) yield resource(n); })(), { onProgress: (p) => (lastProgress = p.written) }));
    const manyUpdate = await timed(ROWS, () => push.putMany((function* () { for (let n = 0; n < ROWS; n++) yield resource(n, 1); })()));
    await reset();
    const manyNumeric = await timed(ROWS, () => push.putMany((function* () { for (let n = 0; n < ROWS; n++) yield resource(n, 0, true); })()));
    log(`| bulk | rows/s | × plain INSERT |`);
    log(`|---|---|---|`);
    log(`| plain multi-row INSERT … ON CONFLICT, insert | ${fmt(plainInsertRate)} | 1 |`);
    log(`| \`putMany\`, string ids, insert | ${fmt(many)} | ${(many.rate / plainInsertRate.rate).toFixed(2)} |`);
    log(`| \`putMany\`, numeric ids, insert | ${fmt(manyNumeric)} | ${(manyNumeric.rate / plainInsertRate.rate).toFixed(2)} |`);
    log(`| plain multi-row INSERT … ON CONFLICT, update | ${fmt(plainUpdateRate)} | 1 |`);
    log(`| \`putMany\`, string ids, update | ${fmt(manyUpdate)} | ${(manyUpdate.rate / plainUpdateRate.rate).toFixed(2)} |`);
    if (lastProgress !== ROWS) throw new Error(`progress reported ${lastProgress} of ${ROWS}`);

    // Reconcile the whole list (string ids, as stored by the first putMany run).
    await reset();
    await push.putMany((function* () { for (let n = 0; n < ROWS; n++) yield resource(n); })());
    const list = (skip: number) => (function* () { for (let n = 0; n < ROWS; n++) if (!skip || n % skip) yield { id: hexId(n), modified: at(n) }; })();
    const all = await timed(ROWS, async () => {
      const r = await push.reconcile(list(0));
      if (r.removed.length || r.stale.length || r.missing.length) throw new Error('reconcile of the full list changed something');
    });
    const some = await timed(ROWS, async () => {
      const r = await push.reconcile(list(100));
      if (r.removed.length !== ROWS / 100) throw new Error(`reconcile removed ${r.removed.length}`);
    });
    log(`| reconcile | time |`);
    log(`|---|---|`);
    log(`| ${ROWS.toLocaleString('en')} ids listed, all stored and current | ${all.seconds.toFixed(1)} s |`);
    log(`| the same list less 1 % (${(ROWS / 100).toLocaleString('en')} removed) | ${some.seconds.toFixed(1)} s |`);
  }

  if (!PARTS.includes('single')) return;
  // One at a time.
  await reset();
  const cat = await categoryId();
  const oneTrx = await timed(SINGLE, async () => {
    await b.plain(async (query) => {
      await query('BEGIN');
      for (let n = 0; n < SINGLE; n++) {
        const row = plainRow(n, 0, cat);
        await query(`INSERT INTO rsc (${PLAIN_COLUMNS}) VALUES (${row.map((_, j) => `$${j + 1}`).join(', ')}) ON CONFLICT (id) DO UPDATE SET ${PLAIN_UPDATE}`, row);
      }
      await query('COMMIT');
    });
  });
  // The same single-row upserts, each a transaction of its own (autocommit): the floor of any write that
  // is durable when its call returns, one commit (a WAL flush) per row.
  await reset();
  const cat2 = await categoryId();
  const autocommit = await timed(SINGLE, async () => {
    await b.plain(async (query) => {
      for (let n = 0; n < SINGLE; n++) {
        const row = plainRow(n, 0, cat2);
        await query(`INSERT INTO rsc (${PLAIN_COLUMNS}) VALUES (${row.map((_, j) => `$${j + 1}`).join(', ')}) ON CONFLICT (id) DO UPDATE SET ${PLAIN_UPDATE}`, row);
      }
    });
  });
  await reset();
  const single = await timed(SINGLE, async () => {
    for (let n = 0; n < SINGLE; n++) await push.put(resource(n));
  });
  // `put` inside one transaction of the caller's ({ transaction }): its statement against the plain
  // upsert's, with the commit taken out of both.
  await reset();
  const inTrx = await timed(SINGLE, async () => {
    await db.transaction().execute(async (trx) => {
      for (let n = 0; n < SINGLE; n++) await push.put(resource(n), { transaction: trx });
    });
  });
  await reset();
  const callers = b.name === 'PGlite' ? 1 : 8;
  const eight = await timed(SINGLE, async () => {
    let next = 0;
    await Promise.all(Array.from({ length: callers }, async () => {
      for (let n = next++; n < SINGLE; n = next++) await push.put(resource(n));
    }));
  });
  log(`| one at a time (${SINGLE.toLocaleString('en')} resources) | rows/s | × one transaction |`);
  log(`|---|---|---|`);
  log(`| one transaction, one single-row upsert per resource | ${fmt(oneTrx)} | 1 |`);
  log(`| \`put\` inside one transaction of the caller's | ${fmt(inTrx)} | ${(inTrx.rate / oneTrx.rate).toFixed(2)} |`);
  log(`| one single-row upsert per resource, a transaction each | ${fmt(autocommit)} | ${(autocommit.rate / oneTrx.rate).toFixed(2)} |`);
  log(`| \`put\`, one after another (a transaction each) | ${fmt(single)} | ${(single.rate / oneTrx.rate).toFixed(2)} (${(single.rate / autocommit.rate).toFixed(2)}× a transaction each) |`);
  if (callers > 1) log(`| \`put\`, ${callers} callers at once | ${fmt(eight)} | ${(eight.rate / oneTrx.rate).toFixed(2)} |`);
}

const makeWriter = await writerFactory();
log(`# push bench (${new Date().toISOString()}, ${QUICK ? 'quick' : 'full'}, ${randomBytes(2).toString('hex')})`);
if (!process.argv.includes('--pglite-only')) {
  const b = await postgresBackend();
  try {
    await benchBackend(b, makeWriter);
  } finally {
    await b.close();
  }
}
if (!process.argv.includes('--postgres-only')) {
  const b = await pgliteBackend();
  try {
    await benchBackend(b, makeWriter);
  } finally {
    await b.close();
  }
}
