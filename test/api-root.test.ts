import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { rawRequest, startHostApp, type ExpressFlavour, type HostApp } from './support/fetchkit.js';
import { DEMO } from '../example-site/seed.js';

interface RootDocument {
  status: string;
  result: {
    title: string;
    description: string;
    openapi_url: string;
    api_help_url: string;
    operations: { method: string; path: string; summary: string }[];
  };
}

/** Paths under /api/agent/ that no operation answers. */
const UNKNOWN_API_PATHS = [
  '/api/agent/',
  '/api/agent/foo',
  '/api/agent/search/',
  '/api/agent/Search',
  '/api/agent/resource/',
  '/api/agent/resource/1/extra',
  '/api/agent/related/',
  '/api/agent/schema/x/y/z',
  '/api/agent/foo?text=x',
];

for (const backend of surfaceBackends) {
  for (const flavour of ['express5', 'express4'] as ExpressFlavour[]) {
    describe(`GET /api/agent and unknown API paths [${backend.name}, ${flavour} host]`, () => {
      let demo: DemoDatabase;
      let host: HostApp;
      before(async () => {
        demo = await openDemoDatabase(backend);
        host = await startHostApp(demo.db, {}, flavour);
      });
      after(async () => {
        await host?.close();
        await demo?.close();
      });

      it('is the API root: title, description, description URLs and every documented operation', async () => {
        const res = await rawRequest(`${host.origin}/api/agent`);
        assert.equal(res.status, 200);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(res.headers['cache-control'], 'public, max-age=0, must-revalidate');
        assert.equal(res.headers['x-robots-tag'], 'noindex, nofollow');
        assert.match(res.headers.etag ?? '', /^"[^"]+"$/);
        const doc = JSON.parse(res.body) as RootDocument;
        assert.equal(doc.status, 'ok');
        assert.equal(doc.result.title, 'Example Site content API');
        assert.match(doc.result.description, /^Articles about harbours and open data\.\n\nRead-only, anonymous access/);
        assert.equal(doc.result.openapi_url, `${host.origin}/openapi.json`);
        assert.equal(doc.result.api_help_url, `${host.origin}/api-help`);
        const openapi = JSON.parse((await rawRequest(doc.result.openapi_url)).body) as {
          info: { title: string; description: string };
          paths: Record<string, { get: { summary: string } }>;
        };
        assert.deepEqual(
          doc.result.operations.map((op) => [op.method, op.path, op.summary]),
          Object.entries(openapi.paths).map(([path, item]) => ['GET', path, item.get.summary]),
        );
        assert.ok(doc.result.operations.some((op) => op.path === '/api/agent'), 'the root is documented too');
        assert.deepEqual([openapi.info.title, openapi.info.description], [doc.result.title, doc.result.description]);
        const help = await rawRequest(doc.result.api_help_url);
        assert.match(help.body, /<code>GET \/api\/agent<\/code>/);
      });

      it('HEAD has the GET headers and no body; other methods 405; unknown parameters 400', async () => {
        const get = await rawRequest(`${host.origin}/api/agent`);
        const head = await rawRequest(`${host.origin}/api/agent`, { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(head.body, '');
        for (const name of ['etag', 'content-type', 'content-length', 'cache-control', 'x-robots-tag']) {
          assert.equal(head.headers[name], get.headers[name], name);
        }
        for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
          const res = await rawRequest(`${host.origin}/api/agent`, { method });
          assert.equal(res.status, 405, method);
          assert.equal(res.headers.allow, 'GET, HEAD');
        }
        const bad = await rawRequest(`${host.origin}/api/agent?foo=1`);
        assert.equal(bad.status, 400);
        assert.deepEqual(JSON.parse(bad.body), { status: 'error', error: 'bad_request', message: 'parameter "foo": unknown parameter' });
      });

      it('every href and anchor of the API catalog answers 2xx to GET and HEAD', async () => {
        const catalog = JSON.parse((await rawRequest(`${host.origin}/.well-known/api-catalog`)).body) as {
          linkset: Record<string, string | { href: string }[]>[];
        };
        const urls = new Set<string>();
        for (const context of catalog.linkset) {
          for (const [key, value] of Object.entries(context)) {
            if (key === 'anchor') urls.add(value as string);
            else for (const link of value as { href: string }[]) urls.add(link.href);
          }
        }
        assert.ok(urls.has(`${host.origin}/api/agent`));
        assert.equal(urls.size, 5);
        for (const url of urls) {
          for (const method of ['GET', 'HEAD']) {
            const res = await rawRequest(url, { method });
            assert.ok(res.status >= 200 && res.status < 300, `${method} ${url} → ${res.status}`);
          }
        }
      });

      it('unknown paths under /api/agent/ get the JSON 404 naming the operations, whatever the method', async () => {
        for (const path of UNKNOWN_API_PATHS) {
          for (const method of ['GET', 'HEAD', 'POST']) {
            const res = await rawRequest(`${host.origin}${path}`, { method });
            assert.equal(res.status, 404, `${method} ${path}`);
            assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', `${method} ${path}`);
            assert.equal(res.headers['cache-control'], 'no-store');
            assert.equal(res.headers['x-robots-tag'], 'noindex, nofollow');
            if (method === 'HEAD') {
              assert.equal(res.body, '');
              continue;
            }
            const body = JSON.parse(res.body) as { status: string; error: string; message: string };
            assert.deepEqual([body.status, body.error], ['error', 'not_found']);
            for (const op of ['GET /api/agent,', 'GET /api/agent/search', 'GET /api/agent/resource/{id}', 'GET /api/agent/related/{id}', 'GET /api/agent/schema']) {
              assert.ok(body.message.includes(op), `${path}: ${body.message} names ${op}`);
            }
          }
        }
      });

      it('paths outside /api/agent/ are untouched: the host answers them, the Markdown route still works', async () => {
        for (const path of ['/api/agentx', '/api/agents/search', '/api/other']) {
          const res = await rawRequest(`${host.origin}${path}`);
          assert.equal(res.status, 404, path);
          assert.equal(res.body, 'host 404', path);
        }
        const id = await demo.id(DEMO.welcome);
        const md = await rawRequest(`${host.origin}/agent/resource/${id}/markdown`);
        assert.equal(md.status, 200);
        assert.match(md.headers['content-type'] ?? '', /^text\/markdown/);
        const missing = await rawRequest(`${host.origin}/api/agent/resource/999999`);
        assert.equal(missing.status, 404);
        assert.deepEqual(JSON.parse(missing.body), { status: 'error', error: 'not_found', message: 'resource not found' });
      });
    });
  }
}
