import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, type Compilable } from 'kysely';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { edgeVocabulary, insertEdgeRows, insertNodes, type EdgeVocabulary } from './support/edge-graph.js';
import { edgeCandidates, edgePage, edgePageQuery, editorialEdgesQuery, relatedPageQuery, type EdgeCandidateQuery } from '../src/content/edges.js';

/** Edges on the hub, per predicate: enough that an index scan beats a sort of the node's edges. */
const PER_PREDICATE = 1500;

for (const backend of surfaceBackends) {
  describe(`edge page query [${backend.name}]`, () => {
    let content: TestDatabase;
    let vocab: EdgeVocabulary;
    let hub: number;
    let endpoints: number[];

    before(async () => {
      content = await backend.open();
      const { db } = content;
      vocab = await edgeVocabulary(db);
      [hub] = await insertNodes(db, vocab, ['public'], 'hub') as [number];
      endpoints = await insertNodes(db, vocab, Array.from({ length: PER_PREDICATE }, (_, i) => (i % 10 === 0 ? 'private' : 'public')));
      // The hub has out and in edges under three predicates; the endpoints also link among themselves (noise).
      for (const predicate of [vocab.about, vocab.cites, vocab.mentions]) {
        await insertEdgeRows(db, endpoints.map((object) => ({ subject: hub, predicate, object })));
        await insertEdgeRows(db, endpoints.map((subject) => ({ subject, predicate, object: hub })));
      }
      await insertEdgeRows(db, endpoints.slice(1).map((object, i) => ({ subject: endpoints[i]!, predicate: vocab.about, object })));
      // What autovacuum does on a live site: without statistics the planner guesses table sizes.
      await content.db.executeQuery(CompiledQuery.raw('ANALYZE'));
    });
    after(() => content.close());

    const q = (over: Partial<EdgeCandidateQuery> = {}): EdgeCandidateQuery => ({ resourceId: hub, direction: 'out', offset: 0, limit: 21, ...over });

    it('compiles to a row-value keyset over the unique index columns (out)', () => {
      const compiled = edgeCandidates(content.db, q({ predicateId: 7, after: [7, 42] })).compile();
      assert.equal(
        compiled.sql,
        'select "e"."id" as "edge_id", "e"."predicate_id", "e"."object_id" as "endpoint_id" from "edge" as "e" ' +
          'where "e"."subject_id" = $1::bigint and "e"."predicate_id" = $2::bigint and ("e"."predicate_id", "e"."object_id") > ((SELECT $3::bigint), (SELECT $4::bigint)) ' +
          'order by "e"."predicate_id", "e"."object_id" limit $5',
      );
      assert.deepEqual(compiled.parameters, [hub, 7, 7, 42, 21]);
    });

    it('compiles to a row-value keyset over the unique index columns (in)', () => {
      const compiled = edgeCandidates(content.db, q({ direction: 'in', after: [3, 9] })).compile();
      assert.equal(
        compiled.sql,
        'select "e"."id" as "edge_id", "e"."predicate_id", "e"."subject_id" as "endpoint_id" from "edge" as "e" ' +
          'where "e"."object_id" = $1::bigint and ("e"."predicate_id", "e"."subject_id") > ((SELECT $2::bigint), (SELECT $3::bigint)) ' +
          'order by "e"."predicate_id", "e"."subject_id" limit $4',
      );
      assert.deepEqual(compiled.parameters, [hub, 3, 9, 21]);
    });

    it('a first page without continuation has no position condition; page N uses an offset', () => {
      const first = edgeCandidates(content.db, q()).compile();
      assert.doesNotMatch(first.sql, /\) > \(/);
      assert.doesNotMatch(first.sql, /offset/);
      const third = edgeCandidates(content.db, q({ offset: 40 })).compile();
      assert.match(third.sql, /limit \$2 offset \$3$/);
      assert.deepEqual(third.parameters, [hub, 21, 40]);
    });

    it('filters the endpoints and predicates in the same statement, outside the bounded candidate set', () => {
      const compiled = edgePageQuery(content.db, { ...q({ after: [1, 2] }), siteNoindex: false }).compile();
      assert.match(compiled.sql, /^select .* from \(select "e"\."id" as "edge_id".* limit \$\d+\) as "c" left join lateral \(select "r"\."id".* from "rsc" as "r" where "r"\."id" = "c"\."endpoint_id" and \("r"\."is_published"/);
      assert.match(compiled.sql, /left join lateral \(select "p"\."id", "p"\."name" from "rsc" as "p" where "p"\."id" = "c"\."predicate_id" and \("p"\."is_published"[\s\S]* and \(NOT "p"\."seo_noindex"[\s\S]* limit \$\d+\) as "pv" on true/);
      assert.match(compiled.sql, /NOT "r"\."seo_noindex"/);
      assert.doesNotMatch(compiled.sql, /order by [^)]*$/, 'no ORDER BY outside the candidate set');
    });

    for (const direction of ['out', 'in'] as const) {
      for (const withPredicate of [false, true]) {
        for (const read of ['edge page', 'related page (with the resource)'] as const) {
          it(`plans an index scan on the unique index with the row comparison as index condition, no sort (${read}, ${direction}${withPredicate ? ', predicate' : ''})`, async () => {
            const index = direction === 'out' ? 'edge_subject_predicate_object_key' : 'edge_object_predicate_subject_key';
            const far = direction === 'out' ? 'object_id' : 'subject_id';
            const page = { ...q({ direction, after: [vocab.about, endpoints[700]!], ...(withPredicate ? { predicateId: vocab.about } : {}) }), siteNoindex: false };
            const query = read === 'edge page' ? edgePageQuery(content.db, page) : relatedPageQuery(content.db, page);
            const plan = await explain(content, query);
            assert.match(plan, new RegExp(`Index (Only )?Scan using ${index} on edge e`), plan);
            assert.match(plan, new RegExp(`Index Cond: .*ROW\\((e\\.)?predicate_id, (e\\.)?${far}\\) > ROW\\(`), plan);
            assert.doesNotMatch(plan, /Sort/, plan);
            assert.doesNotMatch(plan, /Seq Scan on edge/, plan);
            // The LIMIT sits directly on the index scan (past the position's one-time subqueries): only pagelen + 1 edges are read.
            assert.match(plan, new RegExp(`Limit[^\\n]*\\n(\\s*(InitPlan|->\\s+Result)[^\\n]*\\n)*\\s*->\\s+Index (Only )?Scan using ${index}`), plan);
            // The position is a run-time value (InitPlans), so the plan does not depend on where it lies.
            assert.match(plan, /InitPlan/, plan);
          });
        }
      }
    }

    it('plans the editorial order of the compatibility API on the (…, seq, id) index without a sort', async () => {
      const plan = await explain(content, editorialEdgesQuery(content.db, {
        resourceId: hub,
        direction: 'out',
        predicateId: vocab.cites,
        access: 'all',
        window: { offset: 100, limit: 20 },
      }));
      assert.match(plan, /Index (Only )?Scan using edge_subject_predicate_seq_idx on edge e/, plan);
      assert.doesNotMatch(plan, /Sort/, plan);
    });

    it('returns the pagelen + 1 candidates in keyset order, hidden ones kept with no endpoint', async () => {
      const rows = await edgePage(content.db, { ...q({ predicateId: vocab.cites, limit: 21 }), siteNoindex: false });
      assert.equal(rows.length, 21);
      assert.deepEqual(rows.map((r) => r.endpoint_id), endpoints.slice(0, 21));
      assert.ok(rows.every((r) => r.predicate_id === vocab.cites));
      assert.equal(rows[0]!.endpoint, undefined, 'endpoint 0 is private');
      assert.equal(rows[1]!.endpoint?.id, endpoints[1]);
      assert.deepEqual(rows[1]!.predicate, { id: vocab.cites, name: 'cites' });
      const next = await edgePage(content.db, { ...q({ predicateId: vocab.cites, after: [vocab.cites, endpoints[20]!] }), siteNoindex: false });
      assert.equal(next[0]!.endpoint_id, endpoints[21]);
    });

    it('site noindex hides every endpoint but keeps the candidates', async () => {
      const rows = await edgePage(content.db, { ...q({ limit: 5 }), siteNoindex: true });
      assert.equal(rows.length, 5);
      assert.ok(rows.every((r) => r.endpoint === undefined));
    });
  });
}

/** The text plan of a query, with its parameters bound (so the planner sees real values). */
async function explain(content: TestDatabase, query: Compilable): Promise<string> {
  const compiled = query.compile();
  const result = await content.db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]));
  return result.rows.map((r) => r['QUERY PLAN']).join('\n');
}
