import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type express from 'express';
import request from 'supertest';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { edgeVocabulary, insertEdgeRows, insertNodes, relatedApp, type EdgeVocabulary } from './support/edge-graph.js';
import { compatEdgeRoutes } from '../src/facade/compat-edge-routes.js';
import { relatedRoute } from '../src/facade/related-route.js';
import { operationsOf } from '../src/http/route.js';
import { resolveOptions } from '../src/options.js';

const ADMIN = { 'x-test-role': 'admin' };

for (const backend of surfaceBackends) {
  describe(`compatibility edge model API [${backend.name}]`, () => {
    let content: TestDatabase;
    let vocab: EdgeVocabulary;
    let app: express.Express;
    let hub: number;
    /** Endpoints of the hub's `about` edges: public, private, unpublished, noindex, public, public. */
    let nodes: number[];
    /** The hub's `about` object ids in editorial order (seq, then edge id), as an administrator sees them. */
    let editorial: number[];

    before(async () => {
      content = await backend.open();
      vocab = await edgeVocabulary(content.db);
      // The example site's hook: the signed-in administrator sees everything, everyone else is anonymous.
      app = await relatedApp(content.db, { callerAccess: (req) => (req.get('x-test-role') === 'admin' ? 'all' : 'anonymous') });
      [hub] = (await insertNodes(content.db, vocab, ['public'], 'hub')) as [number];
      nodes = await insertNodes(content.db, vocab, ['public', 'private', 'unpublished', 'noindex', 'public', 'public']);
      const seqs = [30, 10, 20, 10, 5, 30];
      await insertEdgeRows(content.db, nodes.map((object, i) => ({ subject: hub, predicate: vocab.about, object, seq: seqs[i]! })));
      // Equal seq values fall back to edge id, i.e. insertion order here.
      editorial = [nodes[4]!, nodes[1]!, nodes[3]!, nodes[2]!, nodes[0]!, nodes[5]!];
      await insertEdgeRows(content.db, nodes.map((subject, i) => ({ subject, predicate: vocab.cites, object: hub, seq: 100 - i })));
      await insertEdgeRows(content.db, [{ subject: hub, predicate: vocab.secret, object: nodes[0]! }]);
    });
    after(() => content.close());

    const anonymousView = () => editorial.filter((id) => id !== nodes[1] && id !== nodes[2]);
    const ok = async (path: string, headers: Record<string, string> = {}) => {
      const res = await request(app).get(path).set(headers).expect(200);
      assert.equal(res.body.status, 'ok');
      return res;
    };

    it('without offset or limit returns the full id list in editorial order (seq, then edge id)', async () => {
      const res = await ok(`/api/model/edge/get/o/${hub}/about`, ADMIN);
      assert.deepEqual(res.body.result, editorial);
      assert.deepEqual((await ok(`/api/model/edge/get/o/${hub}/${vocab.about}`, ADMIN)).body.result, editorial);
    });

    it('s lists subjects of incoming edges; the _props forms list edge properties', async () => {
      const s = await ok(`/api/model/edge/get/s/${hub}/cites`, ADMIN);
      assert.deepEqual(s.body.result, [...nodes].reverse());
      const props = await ok(`/api/model/edge/get/o_props/${hub}/about?limit=2`, ADMIN);
      assert.equal(props.body.result.length, 2);
      const first = props.body.result[0];
      assert.deepEqual(Object.keys(first).sort(), ['created', 'id', 'object_id', 'predicate_id', 'seq', 'subject_id']);
      assert.equal(first.subject_id, hub);
      assert.equal(first.object_id, editorial[0]);
      assert.equal(first.predicate_id, vocab.about);
      assert.equal(first.seq, 5);
      assert.match(first.created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const sProps = await ok(`/api/model/edge/get/s_props/${hub}/cites?offset=5`, ADMIN);
      assert.deepEqual(sProps.body.result.map((e: { subject_id: number }) => e.subject_id), [nodes[0]]);
    });

    it('with offset and/or limit returns that slice of the same list', async () => {
      const path = `/api/model/edge/get/o/${hub}/about`;
      assert.deepEqual((await ok(`${path}?offset=1&limit=2`, ADMIN)).body.result, editorial.slice(1, 3));
      assert.deepEqual((await ok(`${path}?offset=4`, ADMIN)).body.result, editorial.slice(4, 24));
      assert.deepEqual((await ok(`${path}?limit=3`, ADMIN)).body.result, editorial.slice(0, 3));
      assert.deepEqual((await ok(`${path}?offset=0&limit=100`, ADMIN)).body.result, editorial);
      assert.deepEqual((await ok(`${path}?offset=6`, ADMIN)).body.result, []);
      assert.deepEqual((await ok(`${path}?offset=9980&limit=20`, ADMIN)).body.result, [], 'offset + limit = 10000 is allowed');
      // Anonymous callers get slices of their own (filtered) list.
      assert.deepEqual((await ok(`${path}?offset=1&limit=2`)).body.result, anonymousView().slice(1, 3));
    });

    it('rejects bad offset and limit values with a 400 naming the parameter', async () => {
      const path = `/api/model/edge/get/o/${hub}/about`;
      const matrix: [string, string][] = [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=', 'limit'],
        ['offset=-1', 'offset'],
        ['offset=1.5', 'offset'],
        ['offset=10001', 'offset'],
        ['offset=9990', 'offset'],
        ['offset=9990&limit=11', 'offset'],
        ['offset=1&offset=2', 'offset'],
        ['page=2', 'page'],
        ['cursor=abc', 'cursor'],
      ];
      for (const [query, parameter] of matrix) {
        const res = await request(app).get(`${path}?${query}`).set(ADMIN);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.status, 'error', query);
        assert.equal(res.body.error, 'bad_request', query);
        assert.match(res.body.message, new RegExp(`^parameter "${parameter}": `), query);
        assert.equal(res.headers['cache-control'], 'no-store', query);
      }
      const missing = await request(app).get(`/api/model/edge/get/o/${hub}`).expect(400);
      assert.match(missing.body.message, /^parameter "predicate": required/);
      await request(app).get('/api/model/edge/get/o/Bad-Id/about').expect(400);
      await request(app).get(`/api/model/edge/get/o/${hub}/Bad-Predicate`).expect(400);
    });

    it('unknown predicates and resources are 404', async () => {
      for (const path of [
        `/api/model/edge/get/o/${hub}/no_such_predicate`,
        `/api/model/edge/get/o/${hub}/999999999`,
        `/api/model/edge/get/o/${hub}/topic`,
        '/api/model/edge/get/o/999999999/about',
      ]) {
        const res = await request(app).get(path).set(ADMIN).expect(404);
        assert.equal(res.body.error, 'not_found', path);
      }
    });

    it('anonymous callers see only anonymous-visible resources; the administrator sees everything', async () => {
      // Noindex is about discovery, not permission: the noindex endpoint stays in the anonymous list.
      assert.deepEqual((await ok(`/api/model/edge/get/o/${hub}/about`)).body.result, anonymousView());
      assert.deepEqual((await ok(`/api/model/edge/get/s/${hub}/cites`)).body.result, [nodes[5], nodes[4], nodes[3], nodes[0]]);
      // A private predicate and a private resource: 404 for anonymous, readable for the administrator.
      await request(app).get(`/api/model/edge/get/o/${hub}/secret_link`).expect(404);
      assert.deepEqual((await ok(`/api/model/edge/get/o/${hub}/secret_link`, ADMIN)).body.result, [nodes[0]]);
      const privateNode = nodes[1]!;
      const anon = await request(app).get(`/api/model/edge/get/s/${privateNode}/about`).expect(404);
      assert.equal(anon.body.message, 'resource not found');
      assert.deepEqual((await ok(`/api/model/edge/get/s/${privateNode}/about`, ADMIN)).body.result, [hub]);
    });

    it('is never cached publicly: private, no-store, no ETag; HEAD works, other methods are 405', async () => {
      const res = await ok(`/api/model/edge/get/o/${hub}/about`, ADMIN);
      assert.equal(res.headers['cache-control'], 'private, no-store');
      assert.equal(res.headers.etag, undefined);
      assert.equal(res.headers['x-robots-tag'], 'noindex, nofollow');
      assert.match(res.headers['content-type']!, /^application\/json/);
      const head = await request(app).head(`/api/model/edge/get/o/${hub}/about`).set(ADMIN).expect(200);
      assert.equal(head.headers['content-length'], res.headers['content-length']);
      const post = await request(app).post(`/api/model/edge/get/o/${hub}/about`).expect(405);
      assert.equal(post.headers.allow, 'GET, HEAD');
      const postNoPredicate = await request(app).post(`/api/model/edge/get/o/${hub}`).expect(405);
      assert.equal(postNoPredicate.headers.allow, 'GET, HEAD');
    });

    it('a failing access hook is a 500 internal_error envelope, reported through onError, never the host\'s error page', async () => {
      const reported: unknown[] = [];
      const failing = await relatedApp(content.db, {
        callerAccess: () => { throw new Error('session store down'); },
        onError: (error) => { reported.push(error); },
      });
      let forwarded = false;
      failing.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        forwarded = true;
        res.status(500).type('html').send('<pre>host page</pre>');
      });
      const res = await request(failing).get(`/api/model/edge/get/o/${hub}/about`).expect(500);
      assert.deepEqual(res.body, { status: 'error', error: 'internal_error', message: res.body.message });
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.doesNotMatch(res.text, /session store down/);
      assert.equal(forwarded, false);
      assert.deepEqual(reported.map((e) => (e as Error).message), ['session store down']);
    });
  });
}

describe('related and compatibility operations (OpenAPI registry)', () => {
  it('documents the related read and the four compatibility forms with their parameters', () => {
    const options = resolveOptions({ siteTitle: 'T', languages: ['en', 'nl'], database: { memory: true } });
    const ops = operationsOf([relatedRoute(options), ...compatEdgeRoutes()]);
    assert.deepEqual(ops.map((o) => o.path), [
      '/api/agent/related/{id}',
      '/api/model/edge/get/o/{id}/{predicate}',
      '/api/model/edge/get/s/{id}/{predicate}',
      '/api/model/edge/get/o_props/{id}/{predicate}',
      '/api/model/edge/get/s_props/{id}/{predicate}',
    ]);
    assert.deepEqual(Object.keys(ops[0]!.query.shape).sort(), ['cursor', 'direction', 'language', 'page', 'pagelen', 'predicate']);
    assert.deepEqual(Object.keys(ops[1]!.query.shape).sort(), ['limit', 'offset']);
    assert.deepEqual(Object.keys(ops[1]!.pathParams!.shape).sort(), ['id', 'predicate']);
    assert.equal(new Set(ops.map((o) => o.operationId)).size, 5);
  });
});
