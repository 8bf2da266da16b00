import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { isNotModified, parseIfNoneMatch } from '../src/http/conditional.js';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { rawRequest, startHostApp, type HostApp } from './support/fetchkit.js';
import { DEMO } from '../example-site/seed.js';

describe('If-None-Match parsing and weak comparison', () => {
  it('parses *, lists, W/ prefixes, whitespace, empty elements and commas inside a tag', () => {
    assert.equal(parseIfNoneMatch('*'), '*');
    assert.equal(parseIfNoneMatch(' * '), '*');
    assert.deepEqual(parseIfNoneMatch('"a"'), ['a']);
    assert.deepEqual(parseIfNoneMatch('"a", W/"b" ,, "c,d"\t'), ['a', 'b', 'c,d']);
    assert.deepEqual(parseIfNoneMatch(',"a",'), ['a']);
    assert.deepEqual(parseIfNoneMatch('""'), ['']);
    assert.deepEqual(parseIfNoneMatch(''), []);
  });

  it('rejects values outside the grammar', () => {
    for (const bad of ['\xa0*', '**', 'a', '"a', '"a" "b"', 'w/"a"', 'W/ "a"', '"a"x', '*, "a"', '"a b"', '"a\\"b"', '"\x7f"']) {
      assert.equal(parseIfNoneMatch(bad), undefined, JSON.stringify(bad));
    }
  });

  it('matches by weak comparison; malformed or missing headers never match', () => {
    const tag = '"1a-xyz"';
    assert.equal(isNotModified('"1a-xyz"', tag), true);
    assert.equal(isNotModified('W/"1a-xyz"', tag), true);
    assert.equal(isNotModified('"other", W/"1a-xyz"', tag), true);
    assert.equal(isNotModified('*', tag), true);
    assert.equal(isNotModified('"1a-xyZ"', tag), false, 'opaque-tags compare case-sensitively');
    assert.equal(isNotModified('"other"', tag), false);
    assert.equal(isNotModified('1a-xyz', tag), false);
    assert.equal(isNotModified(undefined, tag), false);
    assert.equal(isNotModified('"1a-xyz"', 'W/"1a-xyz"'), true, 'a weak own tag matches too');
  });
});

/** The request cache directives that must not stop a 304. */
const DIRECTIVES: Record<string, Record<string, string>> = {
  none: {},
  'Cache-Control: no-cache': { 'Cache-Control': 'no-cache' },
  'Pragma: no-cache': { Pragma: 'no-cache' },
  'both (as fetch() sends)': { 'Cache-Control': 'no-cache', Pragma: 'no-cache' },
  'Cache-Control: max-age=0': { 'Cache-Control': 'max-age=0' },
};

for (const backend of surfaceBackends) {
  describe(`conditional requests on every plugin representation [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let host: HostApp;
    let paths: string[];
    before(async () => {
      demo = await openDemoDatabase(backend);
      host = await startHostApp(demo.db);
      const id = await demo.id(DEMO.welcome);
      paths = [
        '/openapi.json',
        '/.well-known/api-catalog',
        '/llms.txt',
        '/.well-known/ard.json',
        '/api-help',
        '/api/agent',
        '/api/agent/search?sort=newest&pagelen=3',
        `/api/agent/resource/${id}`,
        `/api/agent/resource/${id}?language=nl`,
        `/api/agent/related/${id}`,
        '/api/agent/schema?kind=predicate',
        `/agent/resource/${id}/markdown`,
      ];
    });
    after(async () => {
      await host?.close();
      await demo?.close();
    });

    it('a matching If-None-Match is 304 with and without request cache directives, GET and HEAD', async () => {
      let checked = 0;
      for (const path of paths) {
        const first = await rawRequest(`${host.origin}${path}`);
        assert.equal(first.status, 200, path);
        const tag = first.headers.etag!;
        assert.match(tag, /^"[^"]+"$/, `${path}: strong ETag`);
        for (const method of ['GET', 'HEAD']) {
          for (const [name, headers] of Object.entries(DIRECTIVES)) {
            const res = await rawRequest(`${host.origin}${path}`, { method, headers: { ...headers, 'If-None-Match': tag } });
            assert.equal(res.status, 304, `${method} ${path} with ${name}`);
            assert.equal(res.headers.etag, tag, `${method} ${path} with ${name}: ETag`);
            assert.equal(res.headers['cache-control'], first.headers['cache-control'], `${method} ${path}: Cache-Control kept`);
            assert.equal(res.body, '');
            checked++;
          }
        }
      }
      assert.equal(checked, paths.length * 2 * Object.keys(DIRECTIVES).length);
    });

    it('weak comparison, lists and *: 304; a different tag or a malformed value: 200', async () => {
      for (const path of paths) {
        const first = await rawRequest(`${host.origin}${path}`);
        const tag = first.headers.etag!;
        const noCache = { 'Cache-Control': 'no-cache', Pragma: 'no-cache' };
        const cases: [string, number][] = [
          [`W/${tag}`, 304],
          [`"nope", ${tag}`, 304],
          [`W/"nope" ,${tag},`, 304],
          ['*', 304],
          ['"nope"', 200],
          [tag.slice(1, -1), 200],
          [`${tag} garbage`, 200],
          [`"${'x'.repeat(2000)}`, 200],
        ];
        for (const method of ['GET', 'HEAD']) {
          for (const [value, status] of cases) {
            const res = await rawRequest(`${host.origin}${path}`, { method, headers: { ...noCache, 'If-None-Match': value } });
            assert.equal(res.status, status, `${method} ${path} If-None-Match: ${value.slice(0, 40)}`);
            assert.equal(res.headers.etag, tag, `${method} ${path}: ETag on ${status}`);
            if (status === 200 && method === 'GET') assert.equal(res.body, first.body);
          }
        }
      }
    });

    it('fetch() (which adds no-cache to a conditional request) gets 304', async () => {
      for (const path of paths) {
        const first = await fetch(`${host.origin}${path}`);
        await first.arrayBuffer();
        const tag = first.headers.get('etag')!;
        for (const method of ['GET', 'HEAD']) {
          const res = await fetch(`${host.origin}${path}`, { method, headers: { 'If-None-Match': tag } });
          assert.equal(res.status, 304, `${method} ${path}`);
          await res.arrayBuffer();
        }
      }
    });
  });
}
