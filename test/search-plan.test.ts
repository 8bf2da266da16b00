import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { bootstrapVocabulary, insertCategory } from '../example-site/content-store.js';
import { searchSelect, type SearchSort } from '../src/content/search.js';

const INDEX: Record<SearchSort, string> = {
  id: 'rsc_pkey',
  newest: 'rsc_publication_start_desc_idx',
  oldest: 'rsc_publication_start_asc_idx',
  modified: 'rsc_modified_desc_idx',
};

for (const backend of surfaceBackends) {
  describe(`search keyset plan [${backend.name}]`, () => {
    let content: TestDatabase;
    before(async () => {
      content = await backend.open();
      await bootstrapVocabulary(content.db);
      const article = await insertCategory(content.db, { name: 'article' });
      await sql`INSERT INTO rsc (category_id, is_published, publication_start, modified, language, title)
        SELECT ${article}, true, timestamptz '2020-01-01' + (i % 5000) * interval '1 hour',
               timestamptz '2021-01-01' + ((i * 37) % 20000) * interval '1 minute', '{en}', '{"en":"x"}'::jsonb
        FROM generate_series(1, 20000) AS i`.execute(content.db);
      await sql`ANALYZE`.execute(content.db);
    });
    after(() => content.close());

    for (const sort of Object.keys(INDEX) as SearchSort[]) {
      it(`sort=${sort}: a continuation is an index range on ${INDEX[sort]}, with no Sort node`, async () => {
        const after = sort === 'id' ? [15_000] : [(sort === 'modified' ? Date.UTC(2021, 0, 10) : Date.UTC(2020, 3, 1)) / 1000, 0, 15_000];
        const compiled = searchSelect(content.db, { sort, siteNoindex: false, after, offset: 0, limit: 21 }).compile();
        if (sort === 'newest') {
          // The position's values are one-time subqueries (run-time values), so every position is planned alike.
          assert.match(compiled.sql, /"r"\."publication_start" <= \('epoch'::timestamptz \+ \(SELECT \$\d+::bigint\) \* interval '1 second' \+ \(SELECT \$\d+::bigint\) \* interval '1 microsecond'\)/);
          assert.match(compiled.sql, /order by "r"\."publication_start" desc, "r"\."id" asc/);
        }
        if (sort === 'oldest') assert.match(compiled.sql, /\("r"\."publication_start", r\.id\) > \(/);
        const plan = await content.db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]));
        const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
        assert.match(text, new RegExp(`Index Scan using ${INDEX[sort]} on rsc r`), text);
        const cond = text.split('\n').find((l) => /Index Cond/.test(l) && (sort === 'id' ? /id >/.test(l) : /1970-01-01/.test(l)));
        assert.ok(cond, `the keyset position is an index condition:\n${text}`);
        assert.doesNotMatch(text, /\bSort\b/, text);
        assert.doesNotMatch(text, /Seq Scan on rsc r\b/, text);
      });
    }
  });
}
