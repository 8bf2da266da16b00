/**
 * Edge paging on a popular node, on real PostgreSQL: the first page, a deep page through the keyset
 * continuation, and an OFFSET read at the same depth, side by side.
 *
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/postgres npx tsx bench/edges-bench.ts
 *
 * Creates its own database (dropped at the end; KEEP_BENCH_DB=1 keeps it), seeds one keyword with
 * 1,000,000 incoming edges (250,000 articles × 4 predicates) plus a realistic graph around it
 * (2,000 keywords, ~1,000,000 article → keyword/article edges, 10% private and 3% noindex articles).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import type { Database } from '../src/db/schema.js';
import { edgePage, type EdgeCandidateQuery } from '../src/content/edges.js';
import { createAgentDiscovery } from '../src/index.js';
import { createContext } from '../src/context.js';
import { relatedRoute } from '../src/facade/related-route.js';
import { mountRoute } from '../src/http/responder.js';
import { pageScope } from '../src/http/paging.js';
import { bootstrapVocabulary, insertCategory, insertPredicate, insertResource } from '../example-site/content-store.js';

const ARTICLES = 250_000;
const KEYWORDS = 2_000;
const HUB_PREDICATES = 4;
const DEPTH = 900_000;
const PAGELEN = 20;

const out = (line = '') => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('edges-bench: set DATABASE_URL to a PostgreSQL server (a database of its own is created)');
  const dbName = `ead_bench_edges_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  // Named prepared statements as a direct connection would use them (BENCH_PREPARED=0: unnamed).
  const prepared = process.env.BENCH_PREPARED !== '0';
  const content = await openDatabase({ url: url.toString(), poolSize: 4, preparedStatements: prepared });
  try {
    await migrateToLatest(content.db);
    const t0 = performance.now();
    const { hub, predicates } = await seed(content.db);
    out(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${await count(content.db, 'rsc')} resources, ${await count(content.db, 'edge')} edges; hub ${hub} has ${await hubEdges(content.db, hub)} incoming edges over ${predicates.length} predicates`);
    out(`preparedStatements ${prepared ? 'on' : 'off'}`);
    await report(content.db, url.toString(), hub, prepared);
  } finally {
    await content.close();
    if (!process.env.KEEP_BENCH_DB) {
      const a = new pg.Client({ connectionString: serverUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await a.end();
    } else {
      out(`kept database ${dbName}`);
    }
  }
}

async function seed(db: Kysely<Database>): Promise<{ hub: number; predicates: number[] }> {
  await bootstrapVocabulary(db);
  const article = await insertCategory(db, { name: 'article' });
  const keyword = await insertCategory(db, { name: 'keyword' });
  const predicates: number[] = [];
  for (const name of ['subject', 'about', 'cites', 'mentions'].slice(0, HUB_PREDICATES)) predicates.push(await insertPredicate(db, { name }));
  const hub = await insertResource(db, { name: 'open_data', category: keyword, title: { en: 'Open data' } });

  // Bulk rows skip the full-text trigger: it is not what this bench measures.
  await sql`ALTER TABLE rsc DISABLE TRIGGER rsc_fts_trigger`.execute(db);
  await sql`
    INSERT INTO rsc (category_id, is_published, visibility, seo_noindex, publication_start, language, title, summary)
    SELECT ${keyword}, true, 'public', false, now() - interval '30 days', '{en}',
           jsonb_build_object('en', 'Keyword ' || g), jsonb_build_object('en', 'About keyword ' || g)
    FROM generate_series(1, ${KEYWORDS}) g`.execute(db);
  await sql`
    INSERT INTO rsc (category_id, is_published, visibility, seo_noindex, publication_start, language, title, summary)
    SELECT ${article}, g % 37 <> 0, CASE WHEN g % 10 = 3 THEN 'members' ELSE 'public' END, g % 33 = 0,
           now() - (g || ' minutes')::interval, '{en,nl}',
           jsonb_build_object('en', 'Article ' || g, 'nl', 'Artikel ' || g), jsonb_build_object('en', 'Summary of article ' || g)
    FROM generate_series(1, ${ARTICLES}) g`.execute(db);
  await sql`ALTER TABLE rsc ENABLE TRIGGER rsc_fts_trigger`.execute(db);

  // The popular node: every article points at the hub under each predicate (1,000,000 edges).
  await sql`
    INSERT INTO edge (subject_id, predicate_id, object_id, seq)
    SELECT a.id, p.id, ${hub}, (a.id % 1000)::int
    FROM rsc a CROSS JOIN (SELECT unnest(${sql.val(predicates)}::bigint[]) AS id) p
    WHERE a.category_id = ${article}`.execute(db);
  // The rest of the graph: each article has ~2 keywords and ~2 links to nearby articles (random,
  // duplicates skipped). Both ranges of ids are contiguous: each was inserted by one statement.
  const firstId = async (category: number) =>
    Number((await db.selectFrom('rsc').select((eb) => eb.fn.min('id').as('id')).where('category_id', '=', category).where('id', '<>', hub).executeTakeFirstOrThrow()).id);
  const firstKeyword = await firstId(keyword);
  const firstArticle = await firstId(article);
  await sql`
    INSERT INTO edge (subject_id, predicate_id, object_id, seq)
    SELECT ${firstArticle}::bigint + a, ${predicates[0]!}, ${firstKeyword}::bigint + abs(hashint8(a * 7 + n)) % ${KEYWORDS}, n
    FROM generate_series(0, ${ARTICLES - 1}) a CROSS JOIN generate_series(1, 2) n
    ON CONFLICT DO NOTHING`.execute(db);
  await sql`
    INSERT INTO edge (subject_id, predicate_id, object_id, seq)
    SELECT ${firstArticle}::bigint + a, ${predicates[2] ?? predicates[0]!}, ${firstArticle}::bigint + (a + 1 + abs(hashint8(a + n)) % 5000) % ${ARTICLES}, n
    FROM generate_series(0, ${ARTICLES - 1}) a CROSS JOIN generate_series(1, 2) n
    ON CONFLICT DO NOTHING`.execute(db);
  await sql`VACUUM ANALYZE`.execute(db);
  return { hub, predicates };
}

const count = async (db: Kysely<Database>, table: 'rsc' | 'edge') =>
  Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

const hubEdges = async (db: Kysely<Database>, hub: number) =>
  Number((await db.selectFrom('edge').select((eb) => eb.fn.countAll().as('n')).where('object_id', '=', hub).executeTakeFirstOrThrow()).n);

interface Stats {
  p50: number;
  p99: number;
  runs: number;
}

/**
 * Times each function `runs` times, interleaved (one call of each per turn), so a machine that
 * slows down during the run moves every row alike.
 */
async function measureSideBySide(runs: number, fns: (() => Promise<unknown>)[]): Promise<Stats[]> {
  for (let i = 0; i < Math.min(10, runs); i++) for (const fn of fns) await fn();
  const times: number[][] = fns.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of fns.entries()) {
      const t = performance.now();
      await fn();
      times[k]!.push(performance.now() - t);
    }
  }
  return times.map((ts) => {
    ts.sort((a, b) => a - b);
    const at = (q: number) => ts[Math.min(ts.length - 1, Math.floor(q * ts.length))]!;
    return { p50: at(0.5), p99: at(0.99), runs };
  });
}

const measure = async (runs: number, fn: () => Promise<unknown>) => (await measureSideBySide(runs, [fn]))[0]!;

async function report(db: Kysely<Database>, url: string, hub: number, prepared: boolean): Promise<void> {
  const base: EdgeCandidateQuery & { siteNoindex: boolean } = { resourceId: hub, direction: 'in', offset: 0, limit: PAGELEN + 1, siteNoindex: false };
  const deep = await db
    .selectFrom('edge')
    .select(['predicate_id', 'subject_id'])
    .where('object_id', '=', hub)
    .orderBy('predicate_id')
    .orderBy('subject_id')
    .offset(DEPTH - 1)
    .limit(1)
    .executeTakeFirstOrThrow();
  const after: [number, number] = [Number(deep.predicate_id), Number(deep.subject_id)];

  // Sanity: the keyset page and the OFFSET page at the same depth hold the same candidates.
  const viaKeyset = await edgePage(db, { ...base, after });
  const viaOffset = await edgePage(db, { ...base, offset: DEPTH });
  if (JSON.stringify(viaKeyset.map((c) => c.edge_id)) !== JSON.stringify(viaOffset.map((c) => c.edge_id))) {
    throw new Error('edges-bench: keyset and OFFSET pages differ');
  }

  const rows: [string, Stats][] = [];
  const [firstStats, deepStats] = await measureSideBySide(300, [() => edgePage(db, base), () => edgePage(db, { ...base, after })]);
  rows.push(['SQL  first page (edgePage)', firstStats!]);
  rows.push([`SQL  deep page, keyset after #${DEPTH.toLocaleString('en')}`, deepStats!]);
  rows.push([`SQL  OFFSET ${DEPTH.toLocaleString('en')} (same page)`, await measure(30, () => edgePage(db, { ...base, offset: DEPTH }))]);

  // The same through HTTP: the related route on a pg Pool, first page vs. a continuation at that depth.
  const agent = await createAgentDiscovery({ siteTitle: 'Bench', languages: ['en', 'nl'], database: { url, preparedStatements: prepared } });
  const app = express();
  const router = express.Router();
  const ctx = createContext(agent.options, agent.database);
  mountRoute(router, ctx, relatedRoute(ctx.options));
  app.use(router);
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const scope = pageScope(`related/${hub}`, { direction: 'in', language: 'en', pagelen: PAGELEN })();
    const cursor = ctx.continuations.encode(scope, 2, after);
    const first = `${origin}/api/agent/related/${hub}?direction=in&pagelen=${PAGELEN}`;
    const deepUrl = `${first}&page=2&cursor=${cursor}`;
    const lastLegal = `${first}&page=${10_000 / PAGELEN}`;
    const get = async (u: string) => {
      const res = await fetch(u);
      if (res.status !== 200) throw new Error(`edges-bench: ${u} answered ${res.status}`);
      await res.arrayBuffer();
    };
    const [httpFirst, httpDeep] = await measureSideBySide(300, [() => get(first), () => get(deepUrl)]);
    rows.push(['HTTP first page', httpFirst!]);
    rows.push([`HTTP continuation after #${DEPTH.toLocaleString('en')}`, httpDeep!]);
    rows.push([`HTTP page ${10_000 / PAGELEN} without cursor (OFFSET ${(10_000 - PAGELEN).toLocaleString('en')}, the bound)`, await measure(100, () => get(lastLegal))]);
  } finally {
    server.close();
    await agent.close();
  }

  const width = Math.max(...rows.map(([name]) => name.length));
  out();
  out(`${'query'.padEnd(width)}  ${'p50 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}  runs  ×first`);
  const firstOf = (prefix: string) => rows.find(([n]) => n.startsWith(prefix))![1].p50;
  for (const [name, s] of rows) {
    const ratio = s.p50 / firstOf(name.slice(0, 4));
    out(`${name.padEnd(width)}  ${s.p50.toFixed(2).padStart(8)}  ${s.p99.toFixed(2).padStart(8)}  ${String(s.runs).padStart(4)}  ${ratio.toFixed(2).padStart(6)}`);
  }
  out();
  const sqlDeep = rows[1]![1].p50 / rows[0]![1].p50;
  const sqlOffset = rows[2]![1].p50 / rows[0]![1].p50;
  out(`deep/first (keyset, SQL p50): ${sqlDeep.toFixed(2)}; OFFSET/first at the same depth: ${sqlOffset.toFixed(0)}×`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
