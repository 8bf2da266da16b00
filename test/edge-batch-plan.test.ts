import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { backends, type TestDatabase } from './support/backends.js';
import { createContentWriter, type ContentWriter } from '../src/index.js';
import { edgeWriteStatement, type WantedEdge } from '../src/push/edge-batch.js';

/**
 * `setEdgesMany` at the Ghost export's shape (500 sets, string-id subjects): the write statement is
 * planned over its arrays with their true sizes, so no join against the batch is a nested loop over a
 * scan of the batch (a CTE or the unnest itself): the plan that made a batch of 500 sets take seconds.
 */

interface PlanNode {
  'Node Type': string;
  'Plans'?: PlanNode[];
}

/** Every nested loop whose inner side scans the batch (a CTE or a function scan), by its inner node type. */
function loopsOverTheBatch(node: PlanNode, found: string[] = []): string[] {
  const [, inner] = node.Plans ?? [];
  if (node['Node Type'] === 'Nested Loop' && inner && ['CTE Scan', 'Function Scan', 'Materialize'].includes(inner['Node Type'])) found.push(inner['Node Type']);
  for (const child of node.Plans ?? []) loopsOverTheBatch(child, found);
  return found;
}

const hex = (prefix: string, n: number) => `${prefix}${n.toString(16).padStart(22, '0')}`;

for (const backend of backends) {
  describe(`setEdgesMany: linear batches [${backend.name}]`, () => {
    let content: TestDatabase;
    let push: ContentWriter;
    const sets = Array.from({ length: 500 }, (_, n) => ({ subject: hex('5f', n >> 1), predicate: n % 2 ? 'authored_by' : 'tagged', objects: n % 2 ? [hex('7b', n % 8)] : [hex('6a', n % 40), hex('6a', (n * 7) % 40)] }));

    before(async () => {
      content = await backend.open();
      push = createContentWriter(content.db);
      await push.putCategory({ name: 'post' });
      await push.putCategory({ name: 'tag', vocabulary: true });
      await push.putCategory({ name: 'author', vocabulary: true });
      await push.putPredicate({ name: 'tagged', subjects: ['post'], objects: ['tag'] });
      await push.putPredicate({ name: 'authored_by', subjects: ['post'], objects: ['author'] });
      await push.putMany(Array.from({ length: 40 }, (_, n) => ({ id: hex('6a', n), category: 'tag', title: `Tag ${n}` })));
      await push.putMany(Array.from({ length: 8 }, (_, n) => ({ id: hex('7b', n), category: 'author', title: `Author ${n}` })));
      await push.putMany(Array.from({ length: 250 }, (_, n) => ({ id: hex('5f', n), category: 'post', title: `Post ${n}` })));
    });
    after(() => content?.close());

    it('a batch of 500 sets writes every edge once, in order, and again over the stored ones', async () => {
      const expected = sets.reduce((n, s) => n + new Set(s.objects).size, 0);
      let ids: readonly number[] = [];
      assert.deepEqual(await push.setEdgesMany(sets, { batchSize: 500, onProgress: (p) => (ids = p.ids) }), { written: 500 });
      assert.equal(ids.length, expected);
      const count = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM edge`.execute(content.db)).rows[0]!.n);
      assert.equal(await count(), expected);
      const again = sets.map((s, n) => (n === 2 ? { ...s, objects: [s.objects[1]!] } : s));
      await push.setEdgesMany(again, { batchSize: 500 });
      assert.equal(await count(), expected - 1, 'a set that lost an object removes its edge');
      const first = await sql<{ seq: number }>`SELECT e.seq FROM edge e JOIN agent_discovery_external_id m ON m.rsc_id = e.subject_id WHERE m.external_id = ${hex('5f', 1)} AND e.predicate_id = (SELECT id FROM rsc WHERE name = 'tagged')`.execute(content.db);
      assert.deepEqual(first.rows.map((r) => r.seq), [1]);
    });

    it('the write statement of 500 sets joins its arrays by hash or index, never a nested loop over the batch', async () => {
      const ids = await sql<{ id: string; external_id: string }>`SELECT rsc_id AS id, external_id FROM agent_discovery_external_id`.execute(content.db);
      const byHex = new Map(ids.rows.map((r) => [r.external_id, Number(r.id)]));
      const predicate = async (name: string) => Number((await sql<{ id: string }>`SELECT id FROM rsc WHERE name = ${name}`.execute(content.db)).rows[0]!.id);
      const tagged = await predicate('tagged');
      const authored = await predicate('authored_by');
      const wanted: WantedEdge[] = sets.flatMap((s, n) => [...new Set(s.objects)].map((o, i) => ({ subject: byHex.get(s.subject)!, predicate: n % 2 ? authored : tagged, object: byHex.get(o)!, seq: i + 1 })));
      const pairs = sets.map((s, n) => [byHex.get(s.subject)!, n % 2 ? authored : tagged] as const);
      await sql`ANALYZE edge`.execute(content.db);
      const { rows } = await sql<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>`EXPLAIN (FORMAT JSON) ${edgeWriteStatement(wanted, pairs)}`.execute(content.db);
      const raw = rows[0]!['QUERY PLAN'];
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw)[0].Plan as PlanNode;
      assert.deepEqual(loopsOverTheBatch(plan), [], JSON.stringify(plan).slice(0, 2000));
    });
  });
}
