import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type express from 'express';
import fc from 'fast-check';
import request from 'supertest';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { edgeVocabulary, insertEdgeRows, insertNodes, localPath, relatedApp, type EdgeVocabulary, type NodeKind } from './support/edge-graph.js';

const KINDS: NodeKind[] = ['public', 'public', 'public', 'private', 'unpublished', 'noindex', 'hiddenCategory'];
const PREDICATES = ['about', 'cites', 'mentions', 'secret'] as const;

/** A random graph around one hub: endpoint kinds, and edges by endpoint index (-1 = the hub itself). */
const graph = fc
  .array(fc.constantFrom(...KINDS), { maxLength: 14, size: 'max' })
  .chain((kinds) =>
    fc.record({
      kinds: fc.constant(kinds),
      edges: fc.uniqueArray(
        fc.record({
          direction: fc.constantFrom('out' as const, 'in' as const),
          node: fc.integer({ min: -1, max: kinds.length - 1 }),
          predicate: fc.constantFrom(...PREDICATES),
        }),
        { maxLength: 48, size: 'max', selector: (e) => `${e.direction}/${e.node}/${e.predicate}` },
      ),
      pagelen: fc.integer({ min: 1, max: 6 }),
      direction: fc.constantFrom('out' as const, 'in' as const),
      filter: fc.constantFrom(undefined, 'about' as const, 'cites' as const),
    }),
  );

for (const backend of surfaceBackends) {
  describe(`related walk property [${backend.name}]`, () => {
    let content: TestDatabase;
    let vocab: EdgeVocabulary;
    let app: express.Express;

    before(async () => {
      content = await backend.open();
      vocab = await edgeVocabulary(content.db);
      app = await relatedApp(content.db);
    });
    after(() => content.close());

    it('walking next_url yields exactly the visible edges, in order, once each', async () => {
      await fc.assert(
        fc.asyncProperty(graph, async (g) => {
          const [hub] = await insertNodes(content.db, vocab, ['public'], 'hub');
          const ids = await insertNodes(content.db, vocab, g.kinds);
          const idOf = (node: number) => (node < 0 ? hub! : ids[node]!);
          const kindOf = (node: number): NodeKind => (node < 0 ? 'public' : g.kinds[node]!);
          const predicateId = (p: (typeof PREDICATES)[number]) => vocab[p];
          await insertEdgeRows(
            content.db,
            // A self-loop is one edge, seen from both directions.
            g.edges
              .filter((e) => !(e.node < 0 && e.direction === 'in' && g.edges.some((o) => o.node < 0 && o.direction === 'out' && o.predicate === e.predicate)))
              .map((e) =>
                e.direction === 'out'
                  ? { subject: hub!, predicate: predicateId(e.predicate), object: idOf(e.node) }
                  : { subject: idOf(e.node), predicate: predicateId(e.predicate), object: hub! },
              ),
          );
          // The candidates: this direction's edges (a self-loop counts in both), after the predicate filter.
          const candidates = g.edges
            .filter((e) => e.direction === g.direction || e.node < 0)
            .filter((e) => g.filter === undefined || e.predicate === g.filter);
          const distinctCandidates = new Set(candidates.map((e) => `${e.predicate}/${e.node}`)).size;
          const expected = [
            ...new Set(
              candidates
                .filter((e) => kindOf(e.node) === 'public' && e.predicate !== 'secret')
                .map((e) => [predicateId(e.predicate), idOf(e.node)] as const)
                .sort((a, b) => a[0] - b[0] || a[1] - b[1])
                .map(([p, n]) => `${p}:${n}`),
            ),
          ];

          const query = new URLSearchParams({ direction: g.direction, pagelen: String(g.pagelen), ...(g.filter ? { predicate: g.filter } : {}) });
          let url: string | null = `/api/agent/related/${hub}?${query}`;
          const seen: string[] = [];
          let pages = 0;
          while (url) {
            const res: request.Response = await request(app).get(url).expect(200);
            const page = res.body.result as { items: { predicate: { id: number }; resource: { id: number } }[]; next: boolean; next_url: string | null; limit_reached: boolean };
            pages++;
            assert.ok(page.items.length <= g.pagelen);
            for (const item of page.items) seen.push(`${item.predicate.id}:${item.resource.id}`);
            assert.equal(page.next, page.next_url !== null);
            assert.equal(page.limit_reached, false);
            url = page.next ? localPath(page.next_url!) : null;
          }
          assert.equal(pages, Math.max(1, Math.ceil(distinctCandidates / g.pagelen)), 'one request per candidate page, no more');
          assert.deepEqual(seen, expected);
        }),
        { numRuns: backend.name === 'pglite' ? 40 : 60 },
      );
    });
  });
}
