/**
 * Rare words in text search on real PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres).
 * Seeds `BENCH_ROWS` resources (default 1,000,000) into its own database `ead_bench_rare_word` (kept
 * between runs): the facade bench's content (twelve common words over titles, summaries and bodies,
 * every row's number, every 50th unpublished, every 97th members-only), and in each summary one of
 * 20,000 `rune` words (50 resources each). Then, interleaved in each round, pagelen 20:
 *   - before: the previous text search, the one statement that walks the sort's index
 *     (`compiledSearch`, unchanged), run on the plugin's own database handle;
 *   - after: `searchResources` as the route runs it, on the same handle, and the route over HTTP;
 * for a common word, texts of about 1,000 and 2,200 matches (`rune` words or-ed), a rare word (50
 * matches), a word of one match and an absent word, in every sort, and the common word's page 499
 * through its keyset position (deep/first). The statements before, for a rare or absent word, take
 * seconds: they run in the first `BENCH_SLOW_ROUNDS` rounds only.
 *
 *   npx tsx bench/rare-word-bench.ts      (npm run bench -- rare-word; BENCH_PREPARED=0: unnamed statements;
 *                                          BENCH_CASES=common,rare: only those cases; BENCH_ROUNDS, BENCH_SLOW_ROUNDS)
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { sql } from 'kysely';
import { createAgentDiscovery } from '../src/index.js';
import { compiledSearch, searchPosition, searchResources, type SearchQuery, type SearchSort } from '../src/content/search.js';
import { insertCategory } from '../example-site/content-store.js';
import { keptContentToSeed, keptDatabase } from './kept-database.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const SLOW_ROUNDS = Number(process.env.BENCH_SLOW_ROUNDS ?? 7);
const PREPARED = process.env.BENCH_PREPARED !== '0';
/** Only the cases whose name starts with one of these (BENCH_CASES=common: the common word and its deep page). */
const ONLY = process.env.BENCH_CASES?.split(',');
const DB_NAME = 'ead_bench_rare_word';
const WORDS = ['harbour', 'quay', 'ship', 'tide', 'crane', 'dock', 'ferry', 'pier', 'cargo', 'lighthouse', 'anchor', 'canal'];
const PAGELEN = 20;
const DEEP_PAGE = 499;
const SORTS: SearchSort[] = ['id', 'newest', 'oldest', 'modified'];
const runes = (n: number) => Array.from({ length: n }, (_, i) => `rune${77 + i}`).join(' or ');
const TEXTS = {
  'common (harbour)': 'harbour',
  '~1,000 matches (20 rune words or-ed)': runes(20),
  '~2,200 matches (44 rune words or-ed)': runes(44),
  'rare (rune77, 50 matches)': 'rune77',
  'one match (123457)': '123457',
  'absent (zebra)': 'zebra',
};
/** The statements before take seconds for these: measured in the first rounds only. */
const SLOW_BEFORE = new Set(['rare (rune77, 50 matches)', 'one match (123457)', 'absent (zebra)']);

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** A p50 in ms; `—` when nothing was measured (BENCH_SLOW_ROUNDS=0 skips the statements before for a rare word). */
const ms = (x: number | undefined) => (x === undefined ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(1));

async function seed(url: string): Promise<void> {
  const content = await keptContentToSeed(url, ROWS, DB_NAME);
  if (!content) return;
  const { db } = content;
  const article = await insertCategory(db, { name: 'article' });
  const word = (expr: string) => sql`(${sql.val(WORDS)}::text[])[1 + ${sql.raw(expr)}]`;
  for (let from = 1; from <= ROWS; from += 100_000) {
    const to = Math.min(ROWS, from + 99_999);
    await sql`
      INSERT INTO rsc (category_id, is_published, visibility, publication_start, modified, language, title, summary, body)
      SELECT ${article}, (i % 50) <> 0, CASE WHEN i % 97 = 0 THEN 'members' ELSE 'public' END,
             timestamptz '2015-01-01' + (i % 300000) * interval '17 minutes',
             timestamptz '2020-01-01' + ((i * 7919) % 1000000) * interval '1 minute',
             '{en,nl}',
             jsonb_build_object('en', 'Note ' || i || ' about the ' || ${word('i % 12')}, 'nl', 'Notitie ' || i),
             jsonb_build_object('en', 'A ' || ${word('(i / 12) % 12')} || ' and a ' || ${word('(i / 144) % 12')} || ' near rune' || (i * 7 % 20000)),
             jsonb_build_object('en', '<p>Body ' || i || ' mentions the ' || ${word('(i / 7) % 12')} || '.</p>')
      FROM generate_series(${from}::bigint, ${to}::bigint) AS i`.execute(db);
    process.stdout.write(`  ${to} rows\n`);
  }
  await sql`VACUUM ANALYZE`.execute(db);
  await content.close();
}

function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = process.hrtime.bigint();
  const value = await run();
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, value };
}

async function httpIds(url: string): Promise<number[]> {
  const res = await fetch(url);
  const body = (await res.json()) as { result: { items: { id: number }[] } };
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return body.result.items.map((i) => i.id);
}

interface Case {
  name: string;
  sort: SearchSort;
  query: SearchQuery;
  url: string;
  slowBefore: boolean;
}

async function main(): Promise<void> {
  const url = await keptDatabase(SERVER, DB_NAME);
  await seed(url);
  const agent = await createAgentDiscovery({ siteTitle: 'Bench', database: { url, poolSize: 4, preparedStatements: PREPARED } });
  const app = express();
  app.use(agent.router);
  const { server, base } = await listen(app);
  const { db } = agent.database;
  const siteNoindex = { storedElse: false };
  const page = (text: string, sort: SearchSort, after?: number[]): SearchQuery => ({ text, sort, siteNoindex, ...(after ? { after } : {}), offset: 0, limit: PAGELEN + 1 });
  const before = async (q: SearchQuery) => (await db.executeQuery(compiledSearch(db, q))).rows;

  const cases: Case[] = [];
  for (const sort of SORTS) {
    for (const [name, text] of Object.entries(TEXTS)) {
      cases.push({ name, sort, query: page(text, sort), url: `${base}/api/agent/search?text=${encodeURIComponent(text)}&sort=${sort}&pagelen=${PAGELEN}`, slowBefore: SLOW_BEFORE.has(name) });
    }
  }
  // The common word's page 499 through the keyset position of page 498's last row, and its next_url.
  const deep: Case[] = [];
  for (const sort of ['id', 'newest'] as SearchSort[]) {
    let after: number[] | undefined;
    for (let p = 1; p < DEEP_PAGE; p++) after = searchPosition(sort, (await searchResources(db, page('harbour', sort, after))).at(PAGELEN - 1)!);
    let next = `${base}/api/agent/search?text=harbour&sort=${sort}&pagelen=${PAGELEN}`;
    for (let p = 1; p < DEEP_PAGE; p++) next = ((await (await fetch(next)).json()) as { result: { next_url: string } }).result.next_url;
    deep.push({ name: `common (harbour), page ${DEEP_PAGE} via keyset`, sort, query: page('harbour', sort, after), url: next, slowBefore: false });
  }

  const chosen = [...cases, ...deep].filter((c) => !ONLY || ONLY.some((name) => c.name.startsWith(name)));
  const samples = new Map<Case, { before: number[]; after: number[]; http: number[] }>();
  for (const c of chosen) samples.set(c, { before: [], after: [], http: [] });
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of chosen) {
      const s = samples.get(c)!;
      // The first read of a case warms the cache for the next: before and after take turns going first.
      const runBefore = !c.slowBefore || round < SLOW_ROUNDS;
      const b1 = runBefore && round % 2 === 0 ? await timed(() => before(c.query)) : undefined;
      const a = await timed(() => searchResources(db, c.query));
      const b2 = runBefore && round % 2 === 1 ? await timed(() => before(c.query)) : undefined;
      const h = await timed(() => httpIds(c.url));
      s.after.push(a.ms);
      s.http.push(h.ms);
      const b = b1 ?? b2;
      if (b) s.before.push(b.ms);
      if (round === 0 && b && JSON.stringify(b.value.map((r) => r.id)) !== JSON.stringify(a.value.map((r) => r.id))) {
        throw new Error(`${c.name}, sort=${c.sort}: the statements before and after answer different pages`);
      }
      if (round === 0 && JSON.stringify(h.value) !== JSON.stringify(a.value.slice(0, PAGELEN).map((r) => r.id))) {
        throw new Error(`${c.name}, sort=${c.sort}: the route answers another page`);
      }
    }
  }

  const row = (c: Case) => {
    const s = samples.get(c)!;
    return `| ${c.name} | ${c.sort} | ${ms(p50(s.before))} | ${ms(p50(s.after))} | ${s.before.length ? (p50(s.after)! / p50(s.before)!).toFixed(2) : '—'} | ${ms(p50(s.http))} |`;
  };
  const first = (sort: SearchSort) => cases.find((c) => c.sort === sort && c.name.startsWith('common'))!;
  const ratio = (c: Case, key: 'before' | 'after' | 'http') => (p50(samples.get(c)![key])! / p50(samples.get(first(c.sort))![key])!).toFixed(2);
  process.stdout.write(
    [
      `\nrare-word bench: ${ROWS.toLocaleString('en')} resources on PostgreSQL (preparedStatements ${PREPARED ? 'on' : 'off'}), pagelen ${PAGELEN}, ${ROUNDS} rounds (before for a rare or absent word: ${SLOW_ROUNDS})`,
      '',
      '| text= | sort | before p50 ms | after p50 ms | after/before | after over HTTP p50 ms |',
      '|---|---|---|---|---|---|',
      ...chosen.map(row),
      '',
      ...deep.filter((c) => samples.has(c) && samples.has(first(c.sort))).map((c) => `deep/first, common word, sort=${c.sort}: before ${ratio(c, 'before')}, after ${ratio(c, 'after')}, after over HTTP ${ratio(c, 'http')}`),
      '',
    ].join('\n'),
  );
  server.close();
  await agent.close();
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
