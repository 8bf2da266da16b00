import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type express from 'express';
import request from 'supertest';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { edgeVocabulary, insertEdgeRows, insertNodes, localPath, relatedApp, type EdgeVocabulary } from './support/edge-graph.js';
import { TEST_CONTINUATION_SECRET } from './support/edge-graph.js';
import { continuationScope, createContinuationCodec } from '../src/http/continuation.js';

interface RelatedItem {
  predicate: { id: number; name: string | null };
  resource: { id: number; title: string; language: string; is_fallback: boolean; category: { id: number; name: string | null } };
}
interface RelatedPage {
  items: RelatedItem[];
  page: number;
  pagelen: number;
  next: boolean;
  next_url: string | null;
  limit_reached: boolean;
}

for (const backend of surfaceBackends) {
  describe(`GET /api/agent/related/:id [${backend.name}]`, () => {
    let content: TestDatabase;
    let vocab: EdgeVocabulary;
    let app: express.Express;

    before(async () => {
      content = await backend.open();
      vocab = await edgeVocabulary(content.db);
      app = await relatedApp(content.db);
    });
    after(() => content.close());

    const get = async (path: string, status = 200) => {
      const res = await request(app).get(path).expect(status);
      return res.body.result as RelatedPage;
    };
    /** Follows next_url from `path` to the end; returns every page. */
    const walk = async (path: string) => {
      const pages: RelatedPage[] = [await get(path)];
      while (pages.at(-1)!.next) {
        assert.ok(pages.length < 500, 'the walk ends');
        pages.push(await get(localPath(pages.at(-1)!.next_url!)));
      }
      return pages;
    };
    const pairs = (pages: RelatedPage[]) => pages.flatMap((p) => p.items.map((i) => `${i.predicate.id}:${i.resource.id}`));
    const hub = async () => (await insertNodes(content.db, vocab, ['public'], 'hub'))[0]!;

    it('orders by predicate id, then endpoint id, with the predicate and the endpoint summary', async () => {
      const h = await hub();
      const nodes = await insertNodes(content.db, vocab, ['public', 'public', 'public', 'public']);
      // Inserted in an order that is neither id order nor predicate order.
      await insertEdgeRows(content.db, [
        { subject: h, predicate: vocab.mentions, object: nodes[0]! },
        { subject: h, predicate: vocab.about, object: nodes[3]! },
        { subject: h, predicate: vocab.cites, object: nodes[1]! },
        { subject: h, predicate: vocab.about, object: nodes[1]! },
        { subject: h, predicate: vocab.mentions, object: nodes[2]! },
      ]);
      const res = await request(app).get(`/api/agent/related/${h}`).expect(200);
      assert.equal(res.headers['cache-control'], 'public, max-age=0, must-revalidate');
      assert.match(res.headers.etag!, /^"/);
      assert.equal(res.headers['x-robots-tag'], 'noindex, nofollow');
      const page = res.body.result as RelatedPage;
      assert.deepEqual(pairs([page]), [
        `${vocab.about}:${nodes[1]}`,
        `${vocab.about}:${nodes[3]}`,
        `${vocab.cites}:${nodes[1]}`,
        `${vocab.mentions}:${nodes[0]}`,
        `${vocab.mentions}:${nodes[2]}`,
      ]);
      assert.deepEqual(page.items[0]!.predicate, { id: vocab.about, name: 'about' });
      const first = page.items[0]!.resource as unknown as Record<string, unknown>;
      assert.deepEqual(Object.keys(first).sort(), [
        'available_languages', 'category', 'id', 'is_fallback', 'json_url', 'language', 'markdown_url', 'modified',
        'page_url', 'publication_start', 'requested_language', 'summary', 'title', 'uri',
      ]);
      assert.equal(first.json_url, `https://example.test/api/agent/resource/${nodes[1]}?language=en`);
      assert.deepEqual(page.items[0]!.resource.category, { id: vocab.topic, name: 'topic', title: 'Topics' });
      assert.equal(page.next, false);
      assert.equal(page.next_url, null);
      assert.equal(page.limit_reached, false);
    });

    it('N + 1 edges at pagelen N: one full page, then one item, then next is false', async () => {
      const h = await hub();
      const nodes = await insertNodes(content.db, vocab, Array(6).fill('public'));
      await insertEdgeRows(content.db, nodes.map((object) => ({ subject: h, predicate: vocab.about, object })));
      const first = await get(`/api/agent/related/${h}?pagelen=5`);
      assert.equal(first.items.length, 5);
      assert.equal(first.next, true);
      assert.match(first.next_url!, new RegExp(`^https://example\\.test/api/agent/related/${h}\\?pagelen=5&page=2&cursor=`));
      const second = await get(localPath(first.next_url!));
      assert.equal(second.page, 2);
      assert.deepEqual(second.items.map((i) => i.resource.id), [nodes[5]]);
      assert.equal(second.next, false);
      assert.equal(second.next_url, null);
      // Exactly N edges at pagelen N: one page, no next.
      const exact = await get(`/api/agent/related/${h}?pagelen=6`);
      assert.equal(exact.items.length, 6);
      assert.equal(exact.next, false);
    });

    it('filters by predicate id or name in SQL', async () => {
      const h = await hub();
      const nodes = await insertNodes(content.db, vocab, Array(4).fill('public'));
      await insertEdgeRows(content.db, [
        ...nodes.map((object) => ({ subject: h, predicate: vocab.about, object })),
        ...nodes.slice(0, 2).map((object) => ({ subject: h, predicate: vocab.cites, object })),
      ]);
      const byName = await walk(`/api/agent/related/${h}?predicate=cites&pagelen=1`);
      assert.deepEqual(pairs(byName), nodes.slice(0, 2).map((n) => `${vocab.cites}:${n}`));
      const byId = await get(`/api/agent/related/${h}?predicate=${vocab.about}`);
      assert.deepEqual(byId.items.map((i) => i.resource.id), nodes);
    });

    it('direction=in lists the subjects of edges pointing at the resource', async () => {
      const h = await hub();
      const nodes = await insertNodes(content.db, vocab, Array(3).fill('public'));
      await insertEdgeRows(content.db, [
        { subject: nodes[2]!, predicate: vocab.about, object: h },
        { subject: nodes[0]!, predicate: vocab.cites, object: h },
        { subject: nodes[1]!, predicate: vocab.about, object: h },
        { subject: h, predicate: vocab.about, object: nodes[0]! },
      ]);
      const incoming = await walk(`/api/agent/related/${h}?direction=in&pagelen=2`);
      assert.deepEqual(pairs(incoming), [`${vocab.about}:${nodes[1]}`, `${vocab.about}:${nodes[2]}`, `${vocab.cites}:${nodes[0]}`]);
      const outgoing = await get(`/api/agent/related/${h}?direction=out`);
      assert.deepEqual(pairs([outgoing]), [`${vocab.about}:${nodes[0]}`]);
    });

    it('an edge inserted before or after the position, or one deleted, between pages never causes a duplicate', async () => {
      const [early] = await insertNodes(content.db, vocab, ['public'], 'early');
      const h = await hub();
      const nodes = await insertNodes(content.db, vocab, Array(8).fill('public'));
      await insertEdgeRows(content.db, nodes.map((object) => ({ subject: h, predicate: vocab.cites, object })));
      const first = await get(`/api/agent/related/${h}?pagelen=3`);
      assert.deepEqual(first.items.map((i) => i.resource.id), nodes.slice(0, 3));
      const [late] = await insertNodes(content.db, vocab, ['public'], 'late');
      await insertEdgeRows(content.db, [
        { subject: h, predicate: vocab.cites, object: early! }, // sorts before the position: not seen in this walk
        { subject: h, predicate: vocab.about, object: late! }, // lower predicate: before the position too
        { subject: h, predicate: vocab.cites, object: late! }, // after the position: seen
      ]);
      await content.db.deleteFrom('edge').where('subject_id', '=', h).where('object_id', '=', nodes[4]!).execute();
      const rest: RelatedPage[] = [await get(localPath(first.next_url!))];
      while (rest.at(-1)!.next) rest.push(await get(localPath(rest.at(-1)!.next_url!)));
      const seen = [...first.items, ...rest.flatMap((p) => p.items)].map((i) => `${i.predicate.id}:${i.resource.id}`);
      assert.equal(new Set(seen).size, seen.length, 'no duplicate');
      assert.deepEqual(seen, [...nodes.slice(0, 4), ...nodes.slice(5), late!].map((n) => `${vocab.cites}:${n}`));
    });

    it('hides endpoints that are not public and indexable, and edges of non-public predicates; pages may be short', async () => {
      const h = await hub();
      const [priv, unpub, noindex, hiddenCat, pub1, pub2] = await insertNodes(content.db, vocab, [
        'private', 'unpublished', 'noindex', 'hiddenCategory', 'public', 'public',
      ]);
      await insertEdgeRows(content.db, [
        ...[priv, unpub, noindex, hiddenCat, pub1].map((object) => ({ subject: h, predicate: vocab.about, object: object! })),
        { subject: h, predicate: vocab.secret, object: pub2! },
      ]);
      const pages = await walk(`/api/agent/related/${h}?pagelen=2`);
      assert.deepEqual(pairs(pages), [`${vocab.about}:${pub1}`]);
      assert.equal(pages[0]!.items.length, 0, 'the first candidate page is all hidden');
      assert.equal(pages[0]!.next, true, 'but the walk goes on');
      assert.ok(!JSON.stringify(pages).includes('secret_link'));
    });

    it('a subject that is not anonymous-visible is the same 404 as a missing one; noindex subjects are readable', async () => {
      const [priv, unpub, noindex] = await insertNodes(content.db, vocab, ['private', 'unpublished', 'noindex']);
      const pub = await hub();
      await insertEdgeRows(content.db, [
        { subject: priv!, predicate: vocab.about, object: pub },
        { subject: noindex!, predicate: vocab.about, object: pub },
      ]);
      const missing = await request(app).get('/api/agent/related/999999999').expect(404);
      assert.deepEqual(missing.body, { status: 'error', error: 'not_found', message: 'resource not found' });
      assert.equal(missing.headers['cache-control'], 'no-store');
      for (const id of [priv, unpub]) {
        const res = await request(app).get(`/api/agent/related/${id}`).expect(404);
        assert.deepEqual(res.body, missing.body);
      }
      await request(app).get('/api/agent/related/no_such_name').expect(404);
      // The id is checked in the page's own statement: a continuation that does not open (foreign or
      // tampered) on a resource that is not visible is still that 404, not the continuation's 400.
      const foreign = createContinuationCodec(TEST_CONTINUATION_SECRET).encode(continuationScope(`related/${pub}`, {}), 2, [1, 1]);
      const tampered = `${foreign.slice(0, 10)}${foreign[10] === 'A' ? 'B' : 'A'}${foreign.slice(11)}`;
      await request(app).get(`/api/agent/related/${pub}?page=2&cursor=${encodeURIComponent(tampered)}`).expect(400);
      for (const id of [priv, 999999999]) {
        for (const cursor of [foreign, tampered]) {
          const res = await request(app).get(`/api/agent/related/${id}?page=2&cursor=${encodeURIComponent(cursor)}`).expect(404);
          assert.deepEqual(res.body, missing.body);
        }
      }
      const readable = await get(`/api/agent/related/${noindex}`);
      assert.deepEqual(readable.items.map((i) => i.resource.id), [pub]);
    });

    it('a related page is one statement: the resource and its page are read together', async () => {
      const h = await hub();
      const [a, b] = await insertNodes(content.db, vocab, ['public', 'public']);
      await insertEdgeRows(content.db, [
        { subject: h, predicate: vocab.about, object: a! },
        { subject: h, predicate: vocab.cites, object: b! },
      ]);
      let executed = 0;
      const counting = content.db.withPlugin({
        transformQuery: (args) => args.node,
        transformResult: async (args) => (executed++, args.result),
      });
      const counted = await relatedApp(counting);
      await request(counted).get(`/api/agent/related/${h}?pagelen=1`).expect(200); // first reads (settings) happen here
      executed = 0;
      const first = await request(counted).get(`/api/agent/related/${h}?pagelen=1`).expect(200);
      assert.equal(executed, 1, 'first page');
      executed = 0;
      const second = await request(counted).get(localPath(first.body.result.next_url)).expect(200);
      assert.equal(executed, 1, 'continuation of an id path');
      assert.deepEqual(second.body.result.items.map((i: RelatedItem) => i.resource.id), [b]);
      executed = 0;
      await request(counted).get(`/api/agent/related/${h}?pagelen=1&direction=in`).expect(200);
      assert.equal(executed, 1, 'incoming');
    });

    it('an unknown, non-public or non-predicate predicate is a 404', async () => {
      const h = await hub();
      for (const predicate of ['no_such_predicate', '999999999', 'secret_link', String(vocab.secret), String(h), 'topic']) {
        const res = await request(app).get(`/api/agent/related/${h}?predicate=${predicate}`).expect(404);
        assert.deepEqual(res.body, { status: 'error', error: 'not_found', message: 'predicate not found' }, predicate);
      }
    });

    it('reads by resource name, in the requested language with fallback fields', async () => {
      const [named] = await insertNodes(content.db, vocab, ['public']);
      await content.db.updateTable('rsc').set({ name: 'named_hub' }).where('id', '=', named!).execute();
      const [target] = await insertNodes(content.db, vocab, ['public'], 'target');
      await content.db.updateTable('rsc').set({ language: ['en'], title: JSON.stringify({ en: 'Only English' }) }).where('id', '=', target!).execute();
      const [both] = await insertNodes(content.db, vocab, ['public'], 'both');
      await insertEdgeRows(content.db, [{ subject: named!, predicate: vocab.about, object: target! }, { subject: named!, predicate: vocab.about, object: both! }]);
      const page = await get('/api/agent/related/named_hub?language=nl&pagelen=1');
      assert.equal(page.items[0]!.resource.title, 'Only English');
      assert.equal(page.items[0]!.resource.is_fallback, true);
      assert.equal(page.items[0]!.resource.language, 'en');
      const next = await get(localPath(page.next_url!));
      assert.equal(next.items[0]!.resource.title, 'both 0 (nl)');
      assert.equal(next.items[0]!.resource.is_fallback, false);
    });

    it('page N without a continuation starts at candidate (N-1) × pagelen', async () => {
      const h = await hub();
      const nodes = await insertNodes(content.db, vocab, Array(7).fill('public'));
      await insertEdgeRows(content.db, nodes.map((object) => ({ subject: h, predicate: vocab.about, object })));
      const third = await get(`/api/agent/related/${h}?pagelen=3&page=3`);
      assert.deepEqual(third.items.map((i) => i.resource.id), [nodes[6]]);
      assert.equal(third.next, false);
    });

    it('stops at the 10,000-candidate bound with limit_reached', async () => {
      const h = await hub();
      const nodes = await insertNodes(content.db, vocab, Array(3400).fill('public'));
      for (const predicate of [vocab.about, vocab.cites, vocab.mentions]) {
        await insertEdgeRows(content.db, nodes.map((object) => ({ subject: h, predicate, object })));
      }
      const last = await get(`/api/agent/related/${h}?pagelen=100&page=100`);
      assert.equal(last.items.length, 100);
      assert.equal(last.next, false);
      assert.equal(last.next_url, null);
      assert.equal(last.limit_reached, true);
      const before = await get(`/api/agent/related/${h}?pagelen=100&page=99`);
      assert.equal(before.limit_reached, false);
      assert.equal(before.next, true);
      const following = await get(localPath(before.next_url!));
      assert.equal(following.page, 100);
      assert.equal(following.limit_reached, true);
      assert.deepEqual(following.items.map((i) => i.resource.id), last.items.map((i) => i.resource.id));
    });

    it('answers HEAD, a matching If-None-Match with 304, and other methods with 405', async () => {
      const h = await hub();
      const res = await request(app).get(`/api/agent/related/${h}`).expect(200);
      const head = await request(app).head(`/api/agent/related/${h}`).expect(200);
      assert.equal(head.headers.etag, res.headers.etag);
      await request(app).get(`/api/agent/related/${h}`).set('If-None-Match', res.headers.etag!).expect(304);
      const post = await request(app).post(`/api/agent/related/${h}`).expect(405);
      assert.equal(post.headers.allow, 'GET, HEAD');
    });

    it('rejects every malformed request with a 400 naming the parameter', async () => {
      const h = await hub();
      const nodes = await insertNodes(content.db, vocab, Array(3).fill('public'));
      await insertEdgeRows(content.db, nodes.map((object) => ({ subject: h, predicate: vocab.about, object })));
      const page = await get(`/api/agent/related/${h}?pagelen=1`);
      const cursor = new URL(page.next_url!).searchParams.get('cursor')!;
      // Sealed by another process (another key): rejected like an edited one.
      const forged = createContinuationCodec('another-process-secret-0123456789abcdef').encode(
        continuationScope(`related/${h}`, { direction: 'out', language: 'en', pagelen: 1 }),
        2,
        [vocab.about, nodes[0]!],
      );
      const matrix: [string, string][] = [
        ['direction=sideways', 'direction'],
        ['direction=', 'direction'],
        ['direction=out&direction=in', 'direction'],
        ['predicate=Not-A-Name', 'predicate'],
        ['predicate=0', 'predicate'],
        ['pagelen=0', 'pagelen'],
        ['pagelen=101', 'pagelen'],
        ['pagelen=1e2', 'pagelen'],
        ['page=0', 'page'],
        ['page=-1', 'page'],
        ['page=501', 'page'],
        ['page=101&pagelen=100', 'page'],
        ['language=fr', 'language'],
        ['foo=1', 'foo'],
        ['cursor=abc', 'cursor'],
        [`cursor=${cursor.slice(0, -2)}xx`, 'cursor'],
        [`pagelen=1&page=2&cursor=${forged}`, 'cursor'],
        [`pagelen=1&page=3&cursor=${cursor}`, 'cursor'],
        [`page=2&pagelen=1&direction=in&cursor=${cursor}`, 'cursor'],
        [`page=2&pagelen=2&cursor=${cursor}`, 'cursor'],
        [`page=2&pagelen=1&language=nl&cursor=${cursor}`, 'cursor'],
      ];
      for (const [query, parameter] of matrix) {
        const res = await request(app).get(`/api/agent/related/${h}?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error, 'bad_request', query);
        assert.match(res.body.message, new RegExp(`^parameter "${parameter}": `), query);
        assert.equal(res.headers['cache-control'], 'no-store', query);
      }
      for (const id of ['Bad-Id', '0', '01']) {
        const res = await request(app).get(`/api/agent/related/${id}`).expect(400);
        assert.match(res.body.message, /^parameter "id": /);
      }
      // A continuation that parses but holds a position of the wrong shape.
      const codec = createContinuationCodec(TEST_CONTINUATION_SECRET);
      const scope = continuationScope(`related/${h}`, { direction: 'out', language: 'en', pagelen: 1 });
      for (const position of [[vocab.about], [1.5, 1], [1e300, 1], [vocab.about, nodes[0]!, 3]]) {
        const bad = codec.encode(scope, 2, position);
        const res = await request(app).get(`/api/agent/related/${h}?pagelen=1&page=2&cursor=${bad}`).expect(400);
        assert.match(res.body.message, /^parameter "cursor": /);
      }
      // A well-formed position sealed with the app's key works, and so does the genuine continuation.
      await request(app).get(`/api/agent/related/${h}?pagelen=1&page=2&cursor=${codec.encode(scope, 2, [vocab.about, nodes[0]!])}`).expect(200);
      await request(app).get(`/api/agent/related/${h}?pagelen=1&page=2&cursor=${cursor}`).expect(200);
    });
  });
}
