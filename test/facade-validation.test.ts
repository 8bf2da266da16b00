import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import type { Express } from 'express';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { continuationScope, createContinuationCodec } from '../src/http/continuation.js';

/** Asserts a 400 envelope naming the parameter. */
async function expect400(app: Express, url: string, parameter: string, reason?: RegExp) {
  const res = await request(app).get(url);
  assert.equal(res.status, 400, `${url} → ${res.status} ${res.text}`);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.body.status, 'error');
  assert.equal(res.body.error, 'bad_request');
  assert.match(res.body.message, new RegExp(`parameter "${parameter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`), `${url}: ${res.body.message}`);
  if (reason) assert.match(res.body.message, reason, url);
}

async function expect200(app: Express, url: string) {
  const res = await request(app).get(url);
  assert.equal(res.status, 200, `${url} → ${res.status} ${res.text}`);
  assert.equal(res.body.status, 'ok');
  return res.body.result;
}

for (const backend of surfaceBackends) {
  describe(`facade parameter validation [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let app: Express;
    before(async () => {
      demo = await openDemoDatabase(backend);
      ({ app } = await pluginApp(demo.db));
    });
    after(() => demo.close());

    it('search accepts every parameter with good values', async () => {
      for (const q of [
        '',
        'text=harbour',
        'cat=article',
        `cat=${await demo.id('article')}`,
        'sort=id',
        'sort=newest',
        'sort=oldest',
        'sort=modified',
        'publication_after=2020-01-01',
        'publication_before=2030-12-31',
        'publication_after=2024-02-29&publication_before=2024-02-29',
        'language=nl',
        'page=2&pagelen=100',
        'page=100&pagelen=100',
        'pagelen=1',
        `text=${encodeURIComponent('é'.repeat(256))}`,
      ]) {
        await expect200(app, `/api/agent/search?${q}`);
      }
    });

    it('search rejects each kind of bad value, naming the parameter', async () => {
      await expect400(app, '/api/agent/search?bogus=1', 'bogus', /unknown parameter/);
      await expect400(app, '/api/agent/search?sort=id&sort=newest', 'sort', /more than once/);
      await expect400(app, '/api/agent/search?text=a&text=b', 'text', /more than once/);
      await expect400(app, '/api/agent/search?sort=random', 'sort');
      await expect400(app, '/api/agent/search?sort=', 'sort');
      // 513 bytes of UTF-8: 256 two-byte characters and one more byte.
      await expect400(app, `/api/agent/search?text=${encodeURIComponent('é'.repeat(256) + 'a')}`, 'text', /512 bytes/);
      await expect400(app, '/api/agent/search?pagelen=0', 'pagelen');
      await expect400(app, '/api/agent/search?pagelen=101', 'pagelen');
      await expect400(app, '/api/agent/search?pagelen=abc', 'pagelen');
      await expect400(app, '/api/agent/search?pagelen=1e2', 'pagelen');
      await expect400(app, '/api/agent/search?pagelen=-5', 'pagelen');
      await expect400(app, '/api/agent/search?pagelen=%2010', 'pagelen');
      await expect400(app, '/api/agent/search?page=0', 'page');
      await expect400(app, '/api/agent/search?page=101&pagelen=100', 'page', /10000/);
      await expect400(app, '/api/agent/search?page=10001', 'page');
      await expect400(app, '/api/agent/search?publication_after=2024-02-30', 'publication_after', /calendar/);
      await expect400(app, '/api/agent/search?publication_before=2023-02-29', 'publication_before', /calendar/);
      await expect400(app, '/api/agent/search?publication_before=2024-13-01', 'publication_before');
      await expect400(app, '/api/agent/search?publication_after=24-01-01', 'publication_after');
      await expect400(app, '/api/agent/search?publication_after=2024-03-02&publication_before=2024-03-01', 'publication_after', /later/);
      await expect400(app, '/api/agent/search?language=fr', 'language');
      await expect400(app, '/api/agent/search?cat=no_such_category', 'cat', /unknown category/);
      await expect400(app, '/api/agent/search?cat=999999', 'cat', /unknown category/);
      await expect400(app, '/api/agent/search?cat=Bad-Name', 'cat');
      await expect400(app, '/api/agent/search?cat=internal_notes', 'cat', /unknown category/);
      await expect400(app, '/api/agent/search?cursor=!!!', 'cursor');
    });

    it('page × pagelen: 10000 is accepted, 10001 is not', async () => {
      await expect200(app, '/api/agent/search?page=100&pagelen=100');
      await expect200(app, '/api/agent/search?page=10000&pagelen=1');
      await expect400(app, '/api/agent/search?page=10001&pagelen=1', 'page');
      await expect400(app, '/api/agent/search?page=137&pagelen=73', 'page');
    });

    it('a tampered, transplanted, foreign or malformed continuation is a 400, never a 500', async () => {
      const first = await expect200(app, '/api/agent/search?pagelen=2&sort=newest');
      const next = new URL(first.next_url);
      const cursor = next.searchParams.get('cursor')!;
      // Sealed: the position is not readable (no ids, no JSON).
      assert.throws(() => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
      assert.ok(Buffer.from(cursor, 'base64url').length > 12 + 16, 'nonce, ciphertext and tag');
      const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);
      const foreign = createContinuationCodec('some-other-deployment-secret-000000000').encode(
        continuationScope('/api/agent/search', { language: 'en', pagelen: 2, sort: 'newest' }),
        2,
        [Math.floor(Date.now() / 1000), 0, 1],
      );
      for (const bad of [flip(cursor, 5), flip(cursor, cursor.length - 3), cursor.slice(0, -4), `${cursor}AAAA`, foreign, Buffer.from('[1,2]').toString('base64url').padEnd(20, 'A')]) {
        await expect400(app, `/api/agent/search?pagelen=2&sort=newest&page=2&cursor=${encodeURIComponent(bad)}`, 'cursor');
      }
      // Transplanted to another query (different sort) or another page: rejected.
      await expect400(app, `/api/agent/search?pagelen=2&sort=oldest&page=2&cursor=${encodeURIComponent(cursor)}`, 'cursor');
      await expect400(app, `/api/agent/search?pagelen=2&sort=newest&page=1&cursor=${encodeURIComponent(cursor)}`, 'cursor');
      await expect400(app, `/api/agent/search?pagelen=2&sort=newest&cursor=${encodeURIComponent(cursor)}`, 'cursor');
      // The genuine one works.
      await expect200(app, `/api/agent/search?pagelen=2&sort=newest&page=2&cursor=${encodeURIComponent(cursor)}`);
    });

    it('positions that open but are not safe integers of the right length are a 400', async () => {
      const secret = 'facade-validation-secret-0123456789abcdef';
      const { app: keyed } = await pluginApp(demo.db, { continuationSecret: secret });
      const codec = createContinuationCodec(secret);
      const scope = (sort: string) => continuationScope('/api/agent/search', { language: 'en', pagelen: 1, sort });
      for (const [sort, position] of [['id', [1.5]], ['id', [1, 2]], ['newest', [1e300, 0, 1]], ['newest', [1.5, 0, 1.5]], ['newest', [-1e20, 0, 1]], ['newest', [1, 1]], ['oldest', [1]]] as const) {
        const token = codec.encode(scope(sort), 2, [...position]);
        await expect400(keyed, `/api/agent/search?pagelen=1&sort=${sort}&page=2&cursor=${token}`, 'cursor');
      }
      const schemaToken = codec.encode(continuationScope('/api/agent/schema', { kind: 'category', language: 'en', pagelen: 1 }), 2, [1.5]);
      await expect400(keyed, `/api/agent/schema?pagelen=1&page=2&cursor=${schemaToken}`, 'cursor');
      // Fixed width: the token's length says nothing about the position's digits.
      assert.equal(codec.encode(scope('id'), 2, [1]).length, codec.encode(scope('id'), 2, [Number.MAX_SAFE_INTEGER]).length);
      assert.equal(codec.encode(scope('newest'), 2, [1, 0, 1]).length, codec.encode(scope('newest'), 2, [-Number.MAX_SAFE_INTEGER, 999999, Number.MAX_SAFE_INTEGER]).length);
      // The same codec and a sound position: accepted.
      await expect200(keyed, `/api/agent/search?pagelen=1&sort=id&page=2&cursor=${codec.encode(scope('id'), 2, [1])}`);
    });

    it('control characters, NUL and far-future dates never reach the database as a 500', async () => {
      await expect400(app, '/api/agent/search?text=a%00b', 'text', /control character/);
      await expect400(app, '/api/agent/search?text=%1B%5B31m', 'text', /control character/);
      await expect200(app, `/api/agent/search?text=${encodeURIComponent('tab\tand newline\n')}`);
      await expect200(app, '/api/agent/search?publication_before=9999-12-31');
      await expect200(app, '/api/agent/search?publication_after=0001-01-01');
      await expect400(app, '/api/agent/search?publication_after=0000-01-01', 'publication_after');
    });

    it('resource read: numeric id or name; anything else 400; only language is accepted', async () => {
      await expect200(app, `/api/agent/resource/${await demo.id('welcome')}`);
      await expect200(app, '/api/agent/resource/welcome?language=nl');
      await expect400(app, '/api/agent/resource/Welcome', 'id');
      await expect400(app, '/api/agent/resource/0', 'id');
      await expect400(app, '/api/agent/resource/-1', 'id');
      await expect400(app, '/api/agent/resource/1.5', 'id');
      await expect400(app, `/api/agent/resource/${'9'.repeat(20)}`, 'id');
      await expect400(app, '/api/agent/resource/welcome?page=1', 'page', /unknown/);
      await expect400(app, '/api/agent/resource/welcome?language=en&language=nl', 'language', /more than once/);
      await expect400(app, '/api/agent/resource/welcome?language=xx', 'language');
    });

    it('schema: kind and paging validated', async () => {
      await expect200(app, '/api/agent/schema');
      await expect200(app, '/api/agent/schema?kind=category&pagelen=100');
      await expect200(app, '/api/agent/schema?kind=predicate&language=nl');
      await expect400(app, '/api/agent/schema?kind=edge', 'kind');
      await expect400(app, '/api/agent/schema?kind=category&kind=predicate', 'kind');
      await expect400(app, '/api/agent/schema?pagelen=101', 'pagelen');
      await expect400(app, '/api/agent/schema?text=x', 'text', /unknown/);
    });

    it('other methods get 405 with Allow: GET, HEAD', async () => {
      for (const path of ['/api/agent/search', '/api/agent/resource/welcome', '/api/agent/schema']) {
        const res = await request(app).post(path);
        assert.equal(res.status, 405);
        assert.equal(res.headers.allow, 'GET, HEAD');
        const del = await request(app).delete(path);
        assert.equal(del.status, 405);
      }
    });
  });
}
