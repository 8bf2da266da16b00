import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import express from 'express';
import { backends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { listen, type RawResponse, type RawServer } from './support/raw-http.js';
import { createExampleSite, type ExampleSite } from '../example-site/app.js';
import { adminCookie } from '../example-site/session.js';
import { DEMO } from '../example-site/seed.js';

/** The hosts no absolute URL may be built on. */
const BAD_HOSTS = [
  'example.org:65536',
  'example.org:99999',
  'a:b',
  '[::1',
  '[:::]',
  '',
  `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.example`,
  'x>; rel="evil", <http://evil.example/',
];


function assertEnvelope(res: RawResponse, status: number, what: string): { error: string; message: string } {
  assert.equal(res.status, status, `${what}: ${res.body.slice(0, 200)}`);
  assert.match(String(res.headers['content-type']), /^application\/json/, what);
  assert.equal(res.headers['cache-control'], 'no-store', what);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
  const body = JSON.parse(res.body) as { status: string; error: string; message: string };
  assert.equal(body.status, 'error', what);
  return body;
}

for (const backend of backends) {
  describe(`hostile input [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let site: ExampleSite;
    let server: RawServer;
    let welcome: number;
    const errors: string[] = [];
    const writeStderr = process.stderr.write.bind(process.stderr);

    before(async () => {
      demo = await openDemoDatabase(backend);
      site = await createExampleSite({ database: { kysely: demo.db } });
      server = await listen(site.app);
      welcome = await demo.id(DEMO.welcome);
      // What the example site logs: a stack trace there means a client's mistake was taken for a fault.
      process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        errors.push(String(chunk));
        return writeStderr(chunk, ...rest);
      }) as typeof process.stderr.write;
    });
    after(async () => {
      process.stderr.write = writeStderr;
      await server.close();
      await site.close();
      await demo.close();
    });
    const get = (path: string, headers: Record<string, string> = {}) => server.request({ path, headers });

    it('an unusable Host is a 400 envelope naming the header on every plugin route', async () => {
      const routes: [string, Record<string, string>][] = [
        ['/llms.txt', {}],
        ['/openapi.json', {}],
        ['/.well-known/api-catalog', {}],
        ['/.well-known/ard.json', {}],
        ['/api-help', {}],
        ['/api/agent/search?text=harbour', {}],
        [`/api/agent/resource/${welcome}`, {}],
        [`/api/agent/related/${welcome}`, {}],
        ['/api/agent/schema', {}],
        [`/agent/resource/${welcome}/markdown`, {}],
        [`/id/${welcome}`, { Accept: 'text/markdown' }],
        [`/id/${welcome}`, { Accept: 'application/json' }],
      ];
      for (const host of BAD_HOSTS) {
        for (const [path, headers] of routes) {
          const res = await get(path, { ...headers, Host: host });
          const body = assertEnvelope(res, 400, `${host} ${path}`);
          assert.equal(body.error, 'bad_request');
          assert.match(body.message, /header "Host"/);
          assert.ok(!res.body.includes('evil.example'), 'the host is not echoed');
        }
      }
      // The largest port is a port.
      const ok = await get('/llms.txt', { Host: 'example.org:65535' });
      assert.equal(ok.status, 200);
      assert.match(ok.body, /http:\/\/example\.org:65535\/api-help/);
    });

    it('the MCP endpoint answers an unusable Host with a JSON-RPC 400 naming the header', async () => {
      const call = (host: string) =>
        server.request({
          method: 'POST',
          path: '/mcp',
          headers: { Host: host, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
      for (const host of BAD_HOSTS) {
        const res = await call(host);
        assert.equal(res.status, 400, host);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.match(JSON.parse(res.body).error.message, /header "Host"/);
      }
      // A host the URL parser rewrites (`1.2.3` is the IPv4 address 1.2.0.3) still reaches the tools.
      for (const host of ['1.2.3', 'Example.ORG:8080', '[::1]:3000']) {
        const res = await call(host);
        assert.equal(res.status, 200, `${host}: ${res.body.slice(0, 200)}`);
        assert.ok(Array.isArray(JSON.parse(res.body).result.tools));
      }
    });

    it('a trusted X-Forwarded-Host is validated the same way, and named', async () => {
      const { app } = await pluginApp(demo.db);
      const host = express().set('trust proxy', true).use(app);
      const proxied = await listen(host);
      try {
        const bad = await proxied.request({ path: '/llms.txt', headers: { 'X-Forwarded-Host': 'example.org:70000' } });
        assert.match(assertEnvelope(bad, 400, 'forwarded').message, /header "X-Forwarded-Host"/);
        const good = await proxied.request({ path: '/llms.txt', headers: { 'X-Forwarded-Host': 'public.example:8443', 'X-Forwarded-Proto': 'https' } });
        assert.equal(good.status, 200);
        assert.match(good.body, /https:\/\/public\.example:8443\/api-help/);
      } finally {
        await proxied.close();
      }
    });

    it('host pages with an unusable Host go out without the site links, never a 500, never the raw Host', async () => {
      for (const host of BAD_HOSTS) {
        for (const path of ['/', `/en/page/${welcome}`]) {
          const res = await get(path, { Host: host });
          assert.equal(res.status, 200, `${host} ${path}`);
          const link = String(res.headers.link ?? '');
          assert.ok(!/api-catalog|rel="self"|evil/.test(link), `${host} ${path}: ${link}`);
          if (host) assert.ok(!res.body.includes(host), `${host} is not copied into the page`);
        }
      }
      const res = await get(`/en/page/${welcome}`, { Host: 'www.example.org:8080' });
      assert.match(String(res.headers.link), new RegExp(`<http://www\\.example\\.org:8080/en/page/${welcome}>; rel="self"`));
      assert.match(String(res.headers.link), /rel="api-catalog"/);
    });

    it('a cookie that does not decode is skipped, on host pages and on the compat reads', async () => {
      const privateId = await demo.id(DEMO.private);
      for (const cookie of ['theme=100%', 'theme=%E0%A4%A', 'example_session=%', `example_session=${'é'.repeat(50)}`, '=; ;;=x']) {
        for (const path of ['/', `/en/page/${welcome}`, '/login', '/no/such/page', `/api/model/edge/get/o/${welcome}/subject`, `/api/model/edge/get/o_props/${welcome}/subject`]) {
          const res = await get(path, { Cookie: cookie });
          assert.ok(res.status < 500, `${cookie} ${path}: ${res.status}`);
        }
        assert.equal((await get(`/en/page/${privateId}`, { Cookie: cookie })).status, 404, 'no session from a bad cookie');
      }
      // A bad cookie next to a good session: the session still counts.
      const both = await get(`/en/page/${privateId}`, { Cookie: `theme=100%; ${adminCookie(site.session)}` });
      assert.equal(both.status, 200);
    });

    it('an undecodable page path is a 400, not a 500', async () => {
      for (const path of ['/en/page/%zz', '/en/page/%E0%A4%A', '/%zz/page/1']) {
        const res = await get(path);
        assert.ok(res.status === 400 || res.status === 404, `${path}: ${res.status}`);
        assert.ok(!/ at |node_modules/.test(res.body), res.body);
      }
      assert.equal((await get('/en/page/%zz')).status, 400);
    });

    it('login forms: too large 413, another charset 415, malformed 400', async () => {
      const form = (body: string | Buffer, headers: Record<string, string> = {}) =>
        server.request({ method: 'POST', path: '/login', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body });
      const logged = errors.length;
      assert.equal((await form(`password=${'a'.repeat(5000)}`)).status, 413);
      assert.equal((await form('password=x', { 'Content-Type': 'application/x-www-form-urlencoded; charset=klingon' })).status, 415);
      assert.equal((await form('password=x', { 'Content-Encoding': 'br-nope' })).status, 415);
      assert.equal((await form(Buffer.from('not gzip at all'), { 'Content-Encoding': 'gzip' })).status, 400);
      assert.equal((await form(Array.from({ length: 50 }, (_, i) => `p${i}=1`).join('&'))).status, 413);
      const wrong = await form('password=%zz&password=admin&=&&');
      assert.equal(wrong.status, 303);
      assert.equal(wrong.headers.location, '/login?failed=1');
      const right = await form(`password=${encodeURIComponent(site.session.adminPassword)}`);
      assert.equal(right.status, 303);
      assert.match(String(right.headers['set-cookie']), /example_session=/);
      assert.deepEqual(errors.slice(logged).filter((e) => / at |Error/.test(e)), []);
    });

    it('a form cut off mid-body leaves no stack in the log', async () => {
      const logged = errors.length;
      // A form cut off mid-body: the client is gone, so only the log can show how it was handled.
      const closed = new Promise<void>((resolve) => {
        server.server.once('request', (req: import('node:http').IncomingMessage) => {
          // Registered before the app's own listeners: once they have run too, the error is handled.
          req.once('close', () => setImmediate(() => setImmediate(resolve)));
        });
      });
      const socket = new Socket();
      await new Promise<void>((resolve) => socket.connect(server.port, '127.0.0.1', resolve));
      socket.write('POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\npassword=');
      await new Promise((resolve) => setImmediate(resolve));
      socket.destroy();
      await closed;
      assert.deepEqual(errors.slice(logged).filter((e) => / at |Error/.test(e)), []);
    });
  });
}
