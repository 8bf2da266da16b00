import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { sql, type Kysely } from 'kysely';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { bootstrapVocabulary, insertCategory, insertPredicate } from '../example-site/content-store.js';
import { diagnosePlans, type PlanReport } from '../src/content/plan-doctor.js';
import { openDatabase } from '../src/db/connection.js';
import type { Database } from '../src/db/schema.js';
import { CONTRACT_RELATION_NAMES } from '../src/db/content-contract.js';
import { withSearchPath } from '../src/cli/doctor.js';
import { runCli, type CliIo } from '../src/cli/run.js';
import { createAgentDiscovery } from '../src/index.js';

const RESOURCES = 20_000;
const STATEMENTS = ['search-first-page', 'search-newest', 'search-deep-page', 'search-rare-word', 'resource-read', 'related-page'];

/**
 * A site large enough for plans to matter: 20,000 articles (titles and summaries over a small
 * vocabulary), a hub with 3,000 outgoing edges and a chain of 15,000 more, analyzed.
 */
async function seedSite(db: Kysely<Database>): Promise<void> {
  await bootstrapVocabulary(db);
  const article = await insertCategory(db, { name: 'article' });
  const about = await insertPredicate(db, { name: 'about' });
  await sql`INSERT INTO rsc (category_id, is_published, publication_start, modified, language, title, summary)
    SELECT ${article}, true, timestamptz '2020-01-01' + i * interval '17 minutes', timestamptz '2021-01-01' + ((i * 37) % 20000) * interval '1 minute',
      '{en}', jsonb_build_object('en', 'article ' || (i % 50)::text), jsonb_build_object('en', 'summary word' || (i % 200)::text)
    FROM generate_series(1, ${RESOURCES}) AS i`.execute(db);
  const { rows } = await sql<{ id: number }>`SELECT min(id) AS id FROM rsc WHERE category_id = ${article}`.execute(db);
  const hub = Number(rows[0]!.id);
  await sql`INSERT INTO edge (subject_id, predicate_id, object_id)
    SELECT ${hub}::bigint, ${about}::bigint, id FROM rsc WHERE category_id = ${article} AND id > ${hub}::bigint AND id <= ${hub + 3000}::bigint`.execute(db);
  await sql`INSERT INTO edge (subject_id, predicate_id, object_id)
    SELECT id, ${about}::bigint, id + 1 FROM rsc WHERE category_id = ${article} AND id > ${hub}::bigint AND id < ${hub + 15_000}::bigint`.execute(db);
  await sql`ANALYZE`.execute(db);
}

/** The contract relations copied into `schema` as plain tables: the same rows, no index at all. */
async function indexlessCopy(db: Kysely<Database>, schema: string): Promise<void> {
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
  for (const relation of CONTRACT_RELATION_NAMES) {
    await sql`CREATE TABLE ${sql.table(`${schema}.${relation}`)} AS TABLE ${sql.table(`public.${relation}`)}`.execute(db);
  }
  await sql`ANALYZE`.execute(db);
}

/** The contract relations as views (of `from`'s tables) in `schema`, as a host exposes its own tables. */
async function viewsOver(db: Kysely<Database>, schema: string, from: string): Promise<void> {
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
  for (const relation of CONTRACT_RELATION_NAMES) {
    await sql`CREATE VIEW ${sql.table(`${schema}.${relation}`)} AS SELECT * FROM ${sql.table(`${from}.${relation}`)}`.execute(db);
  }
}

/** A handle whose contract relations are found in `searchPath` (PGlite: its one session; PostgreSQL: a connection of its own). */
async function onSearchPath(content: TestDatabase, searchPath: string): Promise<{ db: Kysely<Database>; close(): Promise<void> }> {
  if (!content.url) {
    await sql.raw(`SET search_path TO ${searchPath}`).execute(content.db);
    return { db: content.db, close: async () => void (await sql`RESET search_path`.execute(content.db)) };
  }
  const other = await openDatabase({ url: withSearchPath(content.url, searchPath), poolSize: 1 });
  return { db: other.db, close: () => other.close() };
}

const findings = (report: PlanReport, statement: string) => report.statements.find((s) => s.name === statement)!.findings;
const fixesOf = (report: PlanReport, statement: string) => findings(report, statement).flatMap((f) => f.fixes.map((x) => x.create));

/** Runs the command line in-process, capturing what it writes. */
async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  let out = '';
  let err = '';
  const io: CliIo = { env, out: (t) => (out += t), err: (t) => (err += t) };
  const code = await runCli(args, io);
  return { code, out, err };
}

for (const backend of surfaceBackends) {
  describe(`plan doctor [${backend.name}]`, () => {
    let content: TestDatabase;
    before(async () => {
      content = await backend.open();
      await seedSite(content.db);
      await indexlessCopy(content.db, 'bare');
      await viewsOver(content.db, 'viewed', 'bare');
    });
    after(() => content?.close());

    describe('on the plugin\'s own schema', () => {
      it('is silent: every hot statement reads through an index', async () => {
        const report = await diagnosePlans(content.db);
        assert.deepEqual(report.statements.map((s) => s.name), STATEMENTS);
        for (const s of report.statements) assert.deepEqual(s.findings, [], `${s.name}:\n${s.plan.map((l) => l.text).join('\n')}`);
        assert.equal(report.ok, true);
        assert.deepEqual(report.fixes, []);
        const plan = (name: string) => report.statements.find((s) => s.name === name)!.plan.map((l) => l.text).join('\n');
        assert.match(plan('search-newest'), /Index Scan using rsc_publication_start_desc_idx on public\.rsc r/);
        assert.match(plan('search-deep-page'), /Index Scan using rsc_publication_start_desc_idx on public\.rsc r/);
        assert.match(plan('search-rare-word'), /Bitmap Heap Scan on public\.rsc r/);
      });

      it('explains the statements the routes run, with a deep keyset position taken from the data', async () => {
        const report = await diagnosePlans(content.db);
        const deep = report.statements.find((s) => s.name === 'search-deep-page')!;
        assert.match(deep.sql, /order by "r"\."publication_start" desc, "r"\."id" asc limit \$\d+$/);
        // The position of page 50 (after 980 rows of sort=newest): seconds, microseconds, id.
        const [seconds, , id] = deep.parameters.filter((p) => typeof p === 'number' && p > 21) as number[];
        const row = await sql<{ id: number; s: number }>`SELECT id, extract(epoch from publication_start)::bigint AS s FROM rsc WHERE id = ${id}::bigint`.execute(content.db);
        assert.equal(Number(row.rows[0]!.s), seconds);
        const rare = report.statements.find((s) => s.name === 'search-rare-word')!;
        assert.match(rare.sql, /websearch_to_tsquery\('simple', \$\d+\)/);
        const related = report.statements.find((s) => s.name === 'related-page')!;
        assert.match(related.sql, /"e"\."subject_id" = \$\d+::bigint/);
      });

      it('analyze: true runs EXPLAIN ANALYZE and reports actual rows', async () => {
        const report = await diagnosePlans(content.db, { analyze: true, timeoutMs: 10_000 });
        assert.equal(report.analyzed, true);
        assert.equal(report.ok, true);
        assert.match(report.statements[1]!.plan[0]!.text, /actual rows=21 loops=1/);
      });

      it('refuses a threshold or time bound that is not a number', async () => {
        await assert.rejects(diagnosePlans(content.db, { threshold: Number.NaN }), /"threshold"/);
        await assert.rejects(diagnosePlans(content.db, { timeoutMs: 0 }), /"timeoutMs"/);
      });
    });

    describe('on an index-less copy of the contract relations', () => {
      let bare: Awaited<ReturnType<typeof onSearchPath>>;
      before(async () => {
        bare = await onSearchPath(content, 'bare, public');
      });
      after(() => bare?.close());

      it('flags the sequential scans of the newest page and of the rare word, naming the contract indexes', async () => {
        const report = await diagnosePlans(bare.db);
        assert.equal(report.ok, false);
        const newest = findings(report, 'search-newest').find((f) => f.node.includes(' r ') || f.node.endsWith(' r'));
        assert.ok(newest, JSON.stringify(findings(report, 'search-newest'), null, 1));
        assert.equal(newest.kind, 'seq-scan');
        assert.equal(newest.relation, 'bare.rsc');
        assert.ok(newest.estimatedRows > RESOURCES);
        assert.deepEqual(newest.fixes.map((f) => f.create), ['CREATE INDEX ON bare.rsc (publication_start DESC, id)']);
        assert.ok(fixesOf(report, 'search-deep-page').includes('CREATE INDEX ON bare.rsc (publication_start DESC, id)'));
        // The candidates' scan and the guarded complete statement's both test the text: each names the GIN index.
        const textFixes = findings(report, 'search-rare-word').filter((f) => f.fixes.some((x) => x.using === 'gin'));
        assert.ok(textFixes.length >= 1);
        assert.deepEqual([...new Set(textFixes.flatMap((f) => f.fixes.map((x) => x.create)))], ['CREATE INDEX ON bare.rsc USING gin (fts)']);
        assert.ok(fixesOf(report, 'resource-read').includes('CREATE UNIQUE INDEX ON bare.rsc (id)'));
        assert.ok(fixesOf(report, 'related-page').includes('CREATE UNIQUE INDEX ON bare.edge (subject_id, predicate_id, object_id)'));
        assert.ok(report.fixes.length >= 5);
        assert.equal(new Set(report.fixes.map((f) => f.create)).size, report.fixes.length, 'each fix once');
      });

      it('a sort of more input rows than the threshold is flagged with the order index', async () => {
        const report = await diagnosePlans(bare.db, { threshold: 1000 });
        const sort = findings(report, 'search-newest').find((f) => f.kind === 'sort');
        assert.ok(sort, JSON.stringify(report.statements[1], null, 1));
        assert.match(sort.node, /^Sort /);
        assert.deepEqual(sort.fixes.map((f) => f.create), ['CREATE INDEX ON bare.rsc (publication_start DESC, id)']);
      });

      it('with analyze, a statement past the time bound is reported with its error', { skip: backend.name !== 'postgres' }, async () => {
        const report = await diagnosePlans(bare.db, { analyze: true, timeoutMs: 1 });
        assert.equal(report.ok, false);
        assert.ok(report.statements.some((s) => /statement timeout/.test(s.error ?? '')), JSON.stringify(report.statements.map((s) => s.error)));
      });

      it('is silent when the relations are below the threshold', async () => {
        const report = await diagnosePlans(bare.db, { threshold: 1_000_000 });
        assert.equal(report.ok, true);
      });
    });

    describe('over views of the contract relations', () => {
      let viewed: Awaited<ReturnType<typeof onSearchPath>>;
      before(async () => {
        viewed = await onSearchPath(content, 'viewed, public');
      });
      after(() => viewed?.close());

      it('names the table under the view, with the index on the contract relation', async () => {
        const report = await diagnosePlans(viewed.db);
        const rare = findings(report, 'search-rare-word');
        assert.ok(rare.length);
        assert.ok(rare.every((f) => f.relation === 'bare.rsc'));
        const gin = report.fixes.find((f) => f.using === 'gin')!;
        assert.equal(gin.create, 'CREATE INDEX ON viewed.rsc USING gin (fts)');
        assert.equal(gin.note, 'viewed.rsc is a view: create this index on bare.rsc, over the column or expression the view exposes as fts (a gin index)');
        const newest = report.fixes.find((f) => f.columns === 'publication_start DESC, id')!;
        assert.match(newest.note!, /on bare\.rsc, over the column or expression the view exposes as publication_start, id$/);
      });
    });

    describe('the doctor command', () => {
      it('exits 1 on the index-less schema and prints each finding with its fix', { skip: backend.name !== 'postgres' }, async () => {
        const run = await cli(['doctor', '--search-path', 'bare,public'], { DATABASE_URL: content.url });
        assert.equal(run.code, 1, run.err);
        assert.match(run.out, /^✗ search-newest: the first search page, sort=newest$/m);
        assert.match(run.out, /^ {4}Seq Scan on bare\.rsc r \(rows=\d+\): reads all \d+ rows$/m);
        assert.match(run.out, /^ {4}fix: CREATE INDEX ON bare\.rsc \(publication_start DESC, id\) {2}-- search `sort=newest`, llms\.txt newest$/m);
        assert.match(run.out, /^ {4}fix: CREATE INDEX ON bare\.rsc USING gin \(fts\)/m);
        assert.match(run.out, /^The indexes that fix them:\n {2}CREATE /m);
      });

      it('--json prints the report; the plugin\'s own schema exits 0 with every statement ✓', { skip: backend.name !== 'postgres' }, async () => {
        const json = await cli(['doctor', '--database-url', content.url!, '--search-path', 'bare,public', '--json', '--threshold', '100']);
        assert.equal(json.code, 1, json.err);
        const report = JSON.parse(json.out) as PlanReport;
        assert.equal(report.ok, false);
        assert.equal(report.threshold, 100);
        assert.deepEqual(report.statements.map((s) => s.name), STATEMENTS);
        const own = await cli(['doctor', '--database-url', content.url!]);
        assert.equal(own.code, 0, own.out + own.err);
        assert.equal(own.out.match(/^✓ /gm)?.length, STATEMENTS.length);
        assert.match(own.out, /All 6 statements read through indexes\./);
      });
    });

    describe('the admin page', () => {
      it('runs the doctor when opened and shows each statement, escaped, without scripts', async () => {
        const admin = await adminPages(content.db);
        try {
          const res = await fetch(`${admin.base}/plans`);
          assert.equal(res.status, 200);
          assert.equal(res.headers.get('cache-control'), 'no-store');
          const html = await res.text();
          assert.match(html, /<title>Query plans · Plans &lt;Site&gt;<\/title>/);
          assert.match(html, /<p role="status" id="summary">All 6 statements read through indexes\.<\/p>/);
          for (const name of STATEMENTS) assert.match(html, new RegExp(`<tr id="plan-${name}">`));
          assert.match(html, /Index Scan using rsc_publication_start_desc_idx on public\.rsc r/);
          // SQL is text in the page: its quotes are escaped.
          assert.match(html, /from &quot;rsc&quot; as &quot;r&quot;/);
          assert.doesNotMatch(html, /<script/i);
          assert.doesNotMatch(html, /Indexes to create/);

          const analyzed = await (await fetch(`${admin.base}/plans?analyze=1`)).text();
          assert.match(analyzed, /EXPLAIN ANALYZE of the statements/);
          assert.match(analyzed, /actual rows=\d+ loops=\d+/);
          const post = await fetch(`${admin.base}/plans`, { method: 'POST' });
          assert.equal(post.status, 405);
          assert.equal(post.headers.get('allow'), 'GET, HEAD');
        } finally {
          await admin.close();
        }
      });

      it('on the index-less copy, lists the findings and the indexes to create', async () => {
        const bare = await onSearchPath(content, 'bare, public');
        const admin = await adminPages(bare.db);
        try {
          const html = await (await fetch(`${admin.base}/plans`)).text();
          assert.match(html, /<p role="alert" id="summary">6 of 6 statements scan or sort more than 10000 rows\.<\/p>/);
          assert.match(html, /<pre id="fixes">[^<]*CREATE INDEX ON bare\.rsc \(publication_start DESC, id\);\n[^<]*<\/pre>/);
          assert.match(html, /<li>Seq Scan on bare\.rsc r \(rows=\d+\): reads all \d+ rows<\/li>/);
          assert.match(html, /<p>Fix: <code>CREATE INDEX ON bare\.rsc USING gin \(fts\)<\/code>/);
        } finally {
          await admin.close();
          await bare.close();
        }
      });
    });
  });
}

/** The plugin's admin router over `db`, served on a free port (every request is an administrator's). */
async function adminPages(db: Kysely<Database>): Promise<{ base: string; close(): Promise<void> }> {
  const agent = await createAgentDiscovery({ siteTitle: 'Plans <Site>', database: { kysely: db }, isAdmin: () => true, adminSecret: 'x'.repeat(32) });
  const app = express();
  app.use('/admin/agent', agent.adminRouter);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin/agent`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await agent.close();
    },
  };
}

describe('the doctor command line', () => {
  it('without a database, or with a bad threshold, search path or option, is a usage error (2)', async () => {
    const none = await cli(['doctor'], {});
    assert.equal(none.code, 2);
    assert.match(none.err, /^express-agent-discovery doctor: no database: set DATABASE_URL, or pass --database-url <url>/);
    const threshold = await cli(['doctor', '--threshold', 'many'], { DATABASE_URL: 'postgres://localhost/x' });
    assert.equal(threshold.code, 2);
    assert.match(threshold.err, /--threshold must be a number of rows, got "many"/);
    const schema = await cli(['doctor', '--search-path', 'cms;drop'], { DATABASE_URL: 'postgres://localhost/x' });
    assert.equal(schema.code, 2);
    assert.match(schema.err, /--search-path: "cms;drop" is not a schema name/);
    const option = await cli(['doctor', '--treshold', '5']);
    assert.equal(option.code, 2);
    assert.match(option.err, /Unknown option '--treshold'/);
    const help = await cli(['doctor', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: express-agent-discovery doctor/);
    assert.match((await cli(['--help'])).out, /^ {2}doctor +EXPLAIN the hot statements/m);
  });

  it('an unreachable database fails (1) with the reason', async () => {
    const run = await cli(['doctor', '--database-url', 'postgres://postgres@127.0.0.1:1/none']);
    assert.equal(run.code, 1);
    assert.match(run.err, /^express-agent-discovery: cannot connect to PostgreSQL/);
  });

  it('withSearchPath keeps the URL\'s other options', () => {
    assert.equal(
      new URL(withSearchPath('postgres://u@h/db?options=-c%20work_mem%3D4MB&sslmode=disable', 'cms, public')).searchParams.get('options'),
      '-c work_mem=4MB -c search_path=cms,public',
    );
  });
});
