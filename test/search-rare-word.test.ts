import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { backends, type TestDatabase } from './support/backends.js';
import { bootstrapVocabulary, insertCategory } from '../example-site/content-store.js';
import type { Database } from '../src/db/schema.js';
import { searchPosition, searchResources, type SearchQuery, type SearchSort, type TextSearchQuery } from '../src/content/search.js';
import { reusableQuery } from '../src/db/reusable-query.js';
import { TEXT_CANDIDATE_BOUND, TEXT_WALK_ROWS, textFirstStatement, textWalkStatement, type TextWalkQuery } from '../src/content/text-search.js';

const SORTS: SearchSort[] = ['id', 'newest', 'oldest', 'modified'];
const SORT_INDEX: Record<SearchSort, string> = {
  id: 'rsc_pkey',
  newest: 'rsc_publication_start_desc_idx',
  oldest: 'rsc_publication_start_asc_idx',
  modified: 'rsc_modified_desc_idx',
};
const ORDER_BY: Record<SearchSort, string> = {
  id: 'id',
  newest: 'publication_start DESC, id',
  oldest: 'publication_start, id',
  modified: 'modified DESC, id',
};

/**
 * `rows` resources of `article` written in bulk, their text vectors given directly (the trigger that
 * builds them from the text is off meanwhile): `note`, the row's number, `harbour` in every third,
 * `kelpie` in one in 20,000 (one in 1,000 under 20,000 rows), plus `extra` (SQL over `i`, a text[]).
 * Every 50th is unpublished and every 97th members-only; publication starts repeat every 300,000 rows
 * (ties broken by id) and `modified` runs in another order than the ids.
 */
async function bulkResources(db: Kysely<Database>, category: number, rows: number, extra = sql`ARRAY[]::text[]`): Promise<void> {
  const kelpieEvery = rows >= 20_000 ? 20_000 : 1_000;
  await sql`ALTER TABLE rsc DISABLE TRIGGER rsc_fts_trigger`.execute(db);
  await sql`INSERT INTO rsc (category_id, is_published, visibility, publication_start, modified, language, title, fts)
    SELECT ${category}, i % 50 <> 0, CASE WHEN i % 97 = 0 THEN 'members' ELSE 'public' END,
      timestamptz '2015-01-01' + (i % 300000) * interval '17 minutes',
      timestamptz '2020-01-01' + ((i * 7919) % ${rows}) * interval '1 minute', '{en}', jsonb_build_object('en', 'Note ' || i),
      array_to_tsvector(ARRAY['note', i::text]
        || CASE WHEN i % 3 = 0 THEN ARRAY['harbour'] ELSE ARRAY[]::text[] END
        || CASE WHEN i % ${kelpieEvery} = 7 THEN ARRAY['kelpie'] ELSE ARRAY[]::text[] END || ${extra})
    FROM generate_series(1::bigint, ${rows}::bigint) AS i`.execute(db);
  await sql`ALTER TABLE rsc ENABLE TRIGGER rsc_fts_trigger`.execute(db);
}

/** The matching ids in the sort's order, by plain SQL: the two rules written out, not the plugin's fragment. */
async function expectedIds(db: Kysely<Database>, categories: number[], word: string, sort: SearchSort, limit?: number, offset = 0): Promise<number[]> {
  return db.transaction().execute(async (trx) => {
    // Only the plan changes (no index walk: a rare word's reference would cross the table).
    await sql`SET LOCAL enable_indexscan = off`.execute(trx);
    const { rows } = await sql<{ id: number }>`SELECT id FROM rsc
      WHERE is_published AND visibility = 'public' AND publication_start <= now() AND (publication_end IS NULL OR publication_end > now())
        AND NOT seo_noindex AND category_id IN (${sql.join(categories)}) AND fts @@ websearch_to_tsquery('simple', ${word})
      ORDER BY ${sql.raw(ORDER_BY[sort])} ${limit === undefined ? sql`` : sql`LIMIT ${limit} OFFSET ${offset}`}`.execute(trx);
    return rows.map((r) => Number(r.id));
  });
}

/** A handle over `db` whose statements are recorded as they run. */
function recording(db: Kysely<Database>): { db: Kysely<Database>; statements: CompiledQuery[] } {
  const statements: CompiledQuery[] = [];
  const recorder = new Proxy(db, {
    get(target, key) {
      if (key === 'executeQuery') return (query: CompiledQuery) => (statements.push(query), target.executeQuery(query));
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: recorder, statements };
}

/** Every page of a search, following the keyset position of each page's last row as `next_url` does. */
async function keysetWalk(db: Kysely<Database>, q: Omit<SearchQuery, 'offset' | 'limit' | 'after'>, pagelen: number): Promise<number[]> {
  const ids: number[] = [];
  let after: number[] | undefined;
  for (;;) {
    const rows = await searchResources(db, { ...q, ...(after ? { after } : {}), offset: 0, limit: pagelen + 1 });
    const page = rows.slice(0, pagelen);
    ids.push(...page.map((r) => r.id));
    if (rows.length <= pagelen) return ids;
    after = searchPosition(q.sort, page.at(-1)!);
  }
}

const pageOf = (db: Kysely<Database>, text: string, sort: SearchSort, extra: Partial<SearchQuery> = {}) =>
  searchResources(db, { text, sort, siteNoindex: false, offset: 0, limit: 21, ...extra });

for (const backend of backends) {
  describe(`text search, rare and common words alike [${backend.name}]`, () => {
    let content: TestDatabase;
    let listed: number[];
    before(async () => {
      content = await backend.open();
      const { db } = content;
      await bootstrapVocabulary(db);
      const article = await insertCategory(db, { name: 'article' });
      const notes = await insertCategory(db, { name: 'notes' });
      const hidden = await insertCategory(db, { name: 'hidden', isNoindex: true });
      listed = [article, notes];
      // `sparse` in one row of 151, `skewtide` in the last 6,000 ids only (more listable matches than the bound).
      await bulkResources(db, article, 9000, sql`CASE WHEN i % 151 = 0 THEN ARRAY['sparse'] ELSE ARRAY[]::text[] END
        || CASE WHEN i > 3000 THEN ARRAY['skewtide'] ELSE ARRAY[]::text[] END`);
      const bulk = sql`category_id = ${article}`;
      await sql`UPDATE rsc SET category_id = ${notes} WHERE ${bulk} AND id % 7 = 0`.execute(db);
      await sql`UPDATE rsc SET category_id = ${hidden} WHERE ${bulk} AND id % 11 = 0`.execute(db);
      await sql`UPDATE rsc SET publication_start = now() + interval '1 day' WHERE ${bulk} AND id % 211 = 0`.execute(db);
      await sql`UPDATE rsc SET publication_end = now() - interval '1 day' WHERE ${bulk} AND id % 223 = 0`.execute(db);
      await sql`UPDATE rsc SET seo_noindex = true WHERE ${bulk} AND id % 227 = 0`.execute(db);
      await sql`ANALYZE`.execute(db);
    });
    after(() => content.close());

    for (const sort of SORTS) {
      it(`sort=${sort}: every page of every kind of word is the plain SQL's, keyset walk and OFFSET pages alike`, async () => {
        // Listed matches of each word: the walk fills the page / finds none / finds a few / none in its
        // rows while the word has more than the bound in all.
        const sizes: Record<string, [number, number]> = { harbour: [2000, 3000], kelpie: [4, 9], absentword: [0, 0], sparse: [35, 60], skewtide: [5001, 6000] };
        for (const [word, [least, most]] of Object.entries(sizes)) {
          const expected = await expectedIds(content.db, listed, word, sort);
          assert.ok(expected.length >= least && expected.length <= most, `${word}: ${expected.length}`);
          // Pages of 20, or of 60 through the words with thousands of matches (each walk still crosses
          // the walk's row bound many times; a third of the statements).
          assert.deepEqual(await keysetWalk(content.db, { text: word, sort, siteNoindex: false }, expected.length > 1000 ? 60 : 20), expected, word);
          for (const pagelen of [1, 7, 100]) {
            for (const offset of [pagelen, 13 * pagelen, 2000]) {
              const page = await pageOf(content.db, word, sort, { offset, limit: pagelen + 1 });
              assert.deepEqual(page.map((r) => r.id), expected.slice(offset, offset + pagelen + 1), `${word}, pagelen ${pagelen}, offset ${offset}`);
            }
          }
          if (expected.length < 100) assert.deepEqual(await keysetWalk(content.db, { text: word, sort, siteNoindex: false }, 7), expected, `${word}, pagelen 7`);
        }
      });
    }

    it('the walk and text first are reusable queries: built once per shape, whatever the text and position', () => {
      let builds = 0;
      const walk = reusableQuery((db: Kysely<Database>, q: TextWalkQuery) => (builds++, textWalkStatement(db, q)), ['sort', 'walkRows']);
      const textFirst = reusableQuery((db: Kysely<Database>, q: TextSearchQuery) => (builds++, textFirstStatement(db, q)), ['sort']);
      for (let i = 0; i < 5; i++) {
        const q = { text: `word${i}`, sort: 'newest' as const, siteNoindex: { storedElse: false }, after: [1_700_000_000 + i, 5, 40 + i], offset: 0, limit: 21 };
        walk(content.db, { ...q, walkRows: TEXT_WALK_ROWS });
        textFirst(content.db, q);
      }
      // Two shapes, each built twice on its first call (with placeholders, and once to check them);
      // under verification, every later call (8) is checked against an ordinary build too.
      assert.equal(builds, 4 + (process.env.EXPRESS_AGENT_DISCOVERY_VERIFY_QUERIES === '1' ? 8 : 0));
    });

    it('a category and a publication window apply to every path', async () => {
      const [notes] = listed.slice(1);
      for (const word of ['harbour', 'kelpie', 'sparse']) {
        const rows = await pageOf(content.db, word, 'newest', { categoryIds: [notes!], publishedFrom: new Date('2015-01-10T00:00:00Z'), limit: 101 });
        const all = await expectedIds(content.db, [notes!], word, 'newest');
        const inWindow = await sql<{ id: number }>`SELECT id FROM rsc WHERE id IN (${sql.join(all.length ? all : [0])}) AND publication_start >= '2015-01-10T00:00:00Z'`.execute(content.db);
        const keep = new Set(inWindow.rows.map((r) => Number(r.id)));
        assert.deepEqual(rows.map((r) => r.id), all.filter((id) => keep.has(id)).slice(0, 101), word);
      }
    });

    it('a common word is one statement (the walk); a rare or absent word the walk, then text first; a sparse one the walk, then more walk', async () => {
      const kind = (s: CompiledQuery) => (/"candidates"/.test(s.sql) ? 'text first' : /walk_row/.test(s.sql) ? 'walk' : 'complete');
      const expectations: Record<string, string[]> = {
        harbour: ['walk'],
        kelpie: ['walk', 'text first'],
        absentword: ['walk', 'text first'],
        sparse: ['walk', 'complete'],
        skewtide: ['walk', 'text first'],
      };
      for (const [word, kinds] of Object.entries(expectations)) {
        const recorder = recording(content.db);
        const page = await pageOf(recorder.db, word, 'id');
        assert.deepEqual(page.map((r) => r.id), await expectedIds(content.db, listed, word, 'id', 21), word);
        assert.deepEqual(recorder.statements.map(kind), kinds, word);
        if (kinds[1] !== 'text first') continue;
        // Only one branch runs: the candidates of a word within the bound, else the walk.
        const { rows } = await content.db.executeQuery<{ 'QUERY PLAN': string }>(
          CompiledQuery.raw(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${recorder.statements[1]!.sql}`, [...recorder.statements[1]!.parameters]),
        );
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        const candidatesRead = !/CTE Scan on candidates r\S* \(never executed\)/.test(plan);
        assert.equal(candidatesRead, word !== 'skewtide', plan);
      }
      // Fewer listable rows than the walk's bound (here a category's): the walk reaches the end, one statement.
      const recorder = recording(content.db);
      const rows = await pageOf(recorder.db, 'kelpie', 'id', { categoryIds: [listed[1]!] });
      assert.deepEqual(rows.map((r) => r.id), await expectedIds(content.db, [listed[1]!], 'kelpie', 'id'));
      assert.deepEqual(recorder.statements.map(kind), ['walk']);
    });
  });
}

const server = backends.find((b) => b.name === 'postgres');
const ROWS = 1_000_000;

/** The definitions of `rsc`'s indexes and constraints, as PostgreSQL prints them. */
async function rscSchema(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ def: string }>`
    SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index WHERE indrelid = 'rsc'::regclass
    UNION ALL SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'rsc'::regclass
    ORDER BY 1`.execute(db);
  return rows.map((r) => r.def);
}

/**
 * A fresh PostgreSQL database with ROWS resources of `article`. The rows are written with no secondary
 * index to keep up and no deferred foreign-key check queued per row (about a third of the time): the
 * category key is added back (checked once over the table), the sort and GIN indexes built after the
 * rows, each as the migrations define it (the schema is compared with the migrated one); then the
 * planner's statistics and the visibility map.
 */
async function millionResources(): Promise<{ content: TestDatabase; article: number }> {
  const content = await server!.open();
  try {
    const { db } = content;
    await bootstrapVocabulary(db);
    const article = await insertCategory(db, { name: 'article' });
    const migrated = await rscSchema(db);
    const { rows: indexes } = await sql<{ name: string; def: string }>`
      SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS def FROM pg_index
      WHERE indrelid = 'rsc'::regclass AND NOT indisunique`.execute(db);
    const { rows: keys } = await sql<{ name: string; def: string }>`
      SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE conrelid = 'rsc'::regclass AND contype = 'f'`.execute(db);
    for (const { name } of keys) await sql`ALTER TABLE rsc DROP CONSTRAINT ${sql.id(name)}`.execute(db);
    for (const { name } of indexes) await sql`DROP INDEX ${sql.id(name)}`.execute(db);
    await bulkResources(db, article, ROWS);
    for (const { name, def } of keys) await sql`ALTER TABLE rsc ADD CONSTRAINT ${sql.id(name)} ${sql.raw(def)}`.execute(db);
    for (const { def } of indexes) await sql.raw(def).execute(db);
    assert.deepEqual(await rscSchema(db), migrated, 'the indexes and constraints of rsc as migrated');
    await sql`VACUUM ANALYZE`.execute(db);
    return { content, article };
  } catch (error) {
    await content.close();
    throw error;
  }
}

/**
 * Started with the file: the rows are written by the PostgreSQL server while the suites above run
 * (PGlite works in this process); the suite below waits for them in its `before`.
 */
const million = server ? millionResources() : undefined;
million?.catch(() => {});

describe('text search plans at 1,000,000 resources [postgres]', { skip: server ? false : 'DATABASE_URL is not set' }, () => {
  let content: TestDatabase;
  let article: number;
  before(async () => {
    ({ content, article } = await million!);
  });
  after(() => content?.close());

  /** `EXPLAIN ANALYZE` of a statement as it ran (its values, so its custom plan), as text. */
  async function executedPlan(compiled: CompiledQuery): Promise<string> {
    const { rows } = await content.db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${compiled.sql}`, [...compiled.parameters]),
    );
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  /** Rows that an executed scan of the sort's index on `r` returned (undefined when none ran). */
  const sortIndexRows = (plan: string, sort: SearchSort): number | undefined => {
    const line = plan.split('\n').find((l) => new RegExp(`Index Scan (Backward )?using ${SORT_INDEX[sort]} on rsc r(_\\d+)? \\(actual rows=`).test(l));
    return line ? Number(/actual rows=(\d+)/.exec(line)![1]) : undefined;
  };

  for (const sort of SORTS) {
    it(`sort=${sort}: a common word walks the sort's index and stops with the page (one statement)`, async () => {
      const recorder = recording(content.db);
      const rows = await pageOf(recorder.db, 'harbour', sort);
      assert.deepEqual(rows.map((r) => r.id), await expectedIds(content.db, [article], 'harbour', sort, 21));
      assert.equal(recorder.statements.length, 1);
      const plan = await executedPlan(recorder.statements[0]!);
      const walked = sortIndexRows(plan, sort);
      assert.ok(walked !== undefined && walked < 200, plan);
      assert.doesNotMatch(plan, /rsc_fts_idx/, plan);
    });

    for (const word of ['kelpie', 'zzabsent']) {
      it(`sort=${sort}: ${word === 'kelpie' ? 'a rare' : 'an absent'} word reads the GIN bitmap, the sort's index only up to the walk's bound`, async () => {
        const recorder = recording(content.db);
        const rows = await pageOf(recorder.db, word, sort);
        assert.deepEqual(rows.map((r) => r.id), await expectedIds(content.db, [article], word, sort, 21));
        assert.equal(recorder.statements.length, 2);
        const [walk, textFirst] = await Promise.all(recorder.statements.map((s) => executedPlan(s)));
        // The walk's bound, the row past it, and one row the window reads ahead.
        assert.ok(sortIndexRows(walk!, sort)! <= TEXT_WALK_ROWS + 2, walk);
        assert.doesNotMatch(walk!, /rsc_fts_idx/, walk);
        assert.match(textFirst!, /Bitmap Index Scan on rsc_fts_idx \(actual rows=/, textFirst);
        assert.match(textFirst!, /CTE Scan on candidates r\S* \(actual rows=/, textFirst);
        assert.equal(sortIndexRows(textFirst!, sort), undefined, `no walk of ${SORT_INDEX[sort]}:\n${textFirst}`);
        assert.doesNotMatch(textFirst!, /Seq Scan on rsc\b/, textFirst);
      });
    }

    it(`sort=${sort}: a keyset walk of a rare word visits every match once`, async () => {
      const expected = await expectedIds(content.db, [article], 'kelpie', sort);
      assert.ok(expected.length > 30 && expected.length < TEXT_CANDIDATE_BOUND);
      assert.deepEqual(await keysetWalk(content.db, { text: 'kelpie', sort, siteNoindex: false }, 7), expected);
    });
  }
});
