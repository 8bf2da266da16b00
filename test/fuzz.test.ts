import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import { backends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { listen, type RawRequest, type RawResponse, type RawServer } from './support/raw-http.js';
import { createExampleSite, type ExampleSite } from '../example-site/app.js';
import { adminCookie } from '../example-site/session.js';
import { DEMO } from '../example-site/seed.js';

/**
 * A bounded, reproducible fuzz of hostile requests against the example site with the plugin mounted
 * (behind a host app that trusts X-Forwarded-*): hostile query strings, paths, headers, cookies,
 * methods and form bodies. Every request must get a non-5xx answer (503/504 are deliberate), every
 * 4xx of a plugin route the JSON envelope with `no-store`, no body a stack trace or SQL, and the
 * process must still serve a normal request at the end.
 */
const SEED = 0x5eed_2026;
const REQUESTS_PER_BACKEND = 1500;
const CONCURRENCY = 8;

/** mulberry32: a small seeded PRNG, so a failing request can be reproduced from the seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const chance = (p: number): boolean => next() < p;
  return { next, int, pick, chance };
}
type Random = ReturnType<typeof prng>;

/** The routes the plugin answers itself: a 4xx there must be its envelope. */
const PLUGIN_PATH = new RegExp(
  [
    '^/(?:llms\\.txt|openapi\\.json|api-help|\\.well-known/(?:api-catalog|ard\\.json))$',
    '^/api/agent(?:/.*)?$',
    '^/agent/resource/[^/]+/markdown$',
    '^/api/model/edge/get/(?:o|s|o_props|s_props)/[^/]+(?:/[^/]+)?$',
  ].join('|'),
);
/** What must never leave the server: stack frames, module paths, SQL text. */
const LEAK = /\n\s+at |\bat [\w.$<>]+ \(.*:\d+:\d+\)|node_modules|SELECT |syntax error/;

/** Values that are hostile somewhere: bad escapes, NUL, unicode, huge, prototype keys, numbers out of range. */
function hostileValue(r: Random): string {
  return r.pick([
    () => '',
    () => '%',
    () => '%zz',
    () => '%E0%A4%A',
    () => '%00',
    () => 'a%00b',
    () => '%C0%AE%C0%AE',
    () => encodeURIComponent('中文 {中文} ☃ 😀'),
    () => encodeURIComponent('\u202Eevil\u200B'),
    () => '+'.repeat(r.int(20)),
    () => 'x'.repeat(1 + r.int(6000)),
    () => encodeURIComponent('é'.repeat(1 + r.int(400))),
    () => String(r.int(100)),
    () => '-1',
    () => '0',
    () => '1e308',
    () => '99999999999999999999999',
    () => 'NaN',
    () => '__proto__',
    () => 'constructor',
    () => 'newest',
    () => 'predicate',
    () => 'in',
    () => 'en',
    () => 'nl',
    () => 'de',
    () => encodeURIComponent('en\r\nX-Evil: 1'),
    () => '2026-02-30',
    () => '2026-01-01',
    () => 'welcome',
    () => 'subject',
    () => 'article',
    () => 'A'.repeat(200),
    () => '..%2F..%2Fetc%2Fpasswd',
  ])();
}

const PARAM_NAMES = [
  'text', 'cat', 'sort', 'page', 'pagelen', 'language', 'direction', 'predicate', 'kind', 'publication_after',
  'publication_before', 'cursor', 'offset', 'limit', 'failed', '__proto__', 'constructor', 'a[]', 'a[b]', 'text[]',
  '__proto__[x]', '', '%zz', 'text%00',
];

function hostileQuery(r: Random): string {
  if (r.chance(0.25)) return '';
  const parts: string[] = [];
  const n = 1 + r.int(4);
  for (let i = 0; i < n; i++) {
    const name = r.pick(PARAM_NAMES);
    parts.push(r.chance(0.1) ? name : `${name}=${hostileValue(r)}`);
    if (r.chance(0.15)) parts.push(`${name}=${hostileValue(r)}`); // a duplicate
  }
  return `?${parts.join(r.chance(0.9) ? '&' : ';')}`;
}

function hostilePath(r: Random, ids: readonly string[]): string {
  const id = () => (r.chance(0.6) ? r.pick(ids) : hostileValue(r));
  return r.pick([
    () => '/',
    () => '/llms.txt',
    () => '/openapi.json',
    () => '/api-help',
    () => '/.well-known/api-catalog',
    () => '/.well-known/ard.json',
    () => '/.well-known/mcp/server-card.json',
    () => '/api/agent/search',
    () => '/api/agent/schema',
    () => '/api/agent',
    () => `/api/agent/${hostileValue(r)}`,
    () => `/api/agent/resource/${id()}`,
    () => `/api/agent/related/${id()}`,
    () => `/agent/resource/${id()}/markdown`,
    () => `/api/model/edge/get/${r.pick(['o', 's', 'o_props', 's_props'])}/${id()}/${r.pick(['subject', 'author', hostileValue(r)])}`,
    () => `/api/model/edge/get/o/${id()}`,
    () => `/id/${id()}`,
    () => `/${r.pick(['en', 'nl', 'de', '%zz', '..'])}/page/${id()}`,
    () => '/login',
    () => '/logout',
    () => `/${'a'.repeat(1 + r.int(5000))}`,
    () => '/../../etc/passwd',
    () => '/api/agent/../agent/search',
    () => '/api/agent/search/',
    () => '/API/agent/search',
    () => `/${encodeURIComponent('中文')}/page/1`,
    () => '/%2e%2e/%2e%2e/llms.txt',
    () => '//llms.txt',
  ])();
}

const BAD_HOSTS = ['example.org:65536', 'a:b', '[::1', '', 'x>; rel="evil", <http://evil.example/', `${'a'.repeat(70)}.example`, '[:::]', 'example.org:-1', 'ex ample.org', '\u00e9xample.org'];

function hostileHeaders(r: Random, goodHost: string, admin: string): Record<string, string> {
  const h: Record<string, string> = {};
  h.Host = r.chance(0.6) ? goodHost : r.chance(0.3) ? 'www.example.org:8080' : r.pick(BAD_HOSTS);
  if (r.chance(0.5)) {
    h.Accept = r.pick([
      'text/markdown', 'application/json', 'text/html', '*/*', '', ';;;,,,', 'text/markdown;q=abc', 'text/*;q=1.5, application/json;q=-1',
      'text/html, text/markdown, text/plain, */*;q=0.8', `${'a/b;'.repeat(300)}`, 'application/json; charset="\u00ff"',
    ]);
  }
  if (r.chance(0.3)) h['If-None-Match'] = r.pick(['*', '"', 'W/"x"', '"abc", W/', ','.repeat(200), 'W/'.repeat(100), '"a"'.repeat(500)]);
  if (r.chance(0.4)) {
    h.Cookie = r.pick([
      'theme=100%', 'example_session=%', `example_session=${'\u00e9'.repeat(60)}`, '=;=;;', 'a=%E0%A4%A; b=%zz', `${admin}; theme=100%`, admin,
      `example_session=${'x'.repeat(4000)}`, '__proto__=1; constructor=2',
    ]);
  }
  if (r.chance(0.25)) h['X-Forwarded-Host'] = r.pick(['evil.example', 'example.org:65536', 'a:b', '', ', ,', 'good.example, evil.example', '[::1]:99999']);
  if (r.chance(0.2)) h['X-Forwarded-Proto'] = r.pick(['https', 'gopher', '', 'https, http', '\u00ff']);
  if (r.chance(0.1)) h['X-Forwarded-For'] = r.pick(['1.2.3.4', 'not-an-ip', '', '::1, ::1, ::1']);
  if (r.chance(0.1)) h['Accept-Language'] = r.pick(['nl', '*', ';q=', 'x'.repeat(3000)]);
  return h;
}

function hostileForm(r: Random): Pick<RawRequest, 'body' | 'headers'> {
  const contentType = r.pick([
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=utf-8',
    'application/x-www-form-urlencoded; charset=klingon',
    'application/x-www-form-urlencoded; charset=latin1',
    'application/json',
    'multipart/form-data; boundary=x',
    'text/plain',
    ';;;',
  ]);
  const body = r.pick([
    () => 'password=admin',
    () => `password=${'a'.repeat(1 + r.int(8000))}`,
    () => 'password=%zz&password=%&&==',
    () => Array.from({ length: r.int(40) }, (_, i) => `p${i}=${i}`).join('&'),
    () => '{"password": "admin"}',
    () => '\u0000\u00ff'.repeat(r.int(50)),
    () => '',
  ])();
  const headers: Record<string, string> = { 'Content-Type': contentType };
  if (r.chance(0.1)) headers['Content-Encoding'] = r.pick(['gzip', 'br', 'compress', 'identity']);
  return { body, headers };
}

const decodedOrRaw = (v: string): string => {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
};

/** A JSON-RPC request to the MCP endpoint: hostile JSON, methods, tool names and arguments. */
function hostileMcp(r: Random): Pick<RawRequest, 'body' | 'headers'> {
  const call = (name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id: r.int(1000), method: 'tools/call', params: { name, arguments: args } });
  const value = (): unknown => r.pick([() => decodedOrRaw(hostileValue(r)), () => r.int(1e6) - 500, () => null, () => ({ __proto__: { x: 1 } }), () => [1, 2], () => 1e308])();
  const body = r.pick([
    () => '{',
    () => '',
    () => 'null',
    () => '[]',
    () => `{"jsonrpc":"2.0","id":1,"method":"${'x'.repeat(r.int(3000))}"}`,
    () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } }),
    () => JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    () => call('search', { text: value(), cat: value(), sort: value(), language: value(), page: value(), pagelen: value() }),
    () => call('read_resource', { id: value(), language: value() }),
    () => call('related', { id: value(), direction: value(), predicate: value() }),
    () => call('schema', { kind: value() }),
    () => call(r.pick(['nope', '__proto__', 'constructor', '']), {}),
    () => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"text":"${'a'.repeat(70000)}"}}}`,
  ])();
  const headers: Record<string, string> = {
    'Content-Type': r.chance(0.85) ? 'application/json' : r.pick(['text/plain', 'application/json; charset=klingon', '']),
    Accept: r.chance(0.8) ? 'application/json, text/event-stream' : r.pick(['*/*', 'application/json', 'text/html', '']),
  };
  return { body, headers };
}

for (const backend of backends) {
  describe(`fuzz [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let site: ExampleSite;
    let server: RawServer;
    const logged: string[] = [];
    const writeStderr = process.stderr.write.bind(process.stderr);

    before(async () => {
      demo = await openDemoDatabase(backend);
      site = await createExampleSite({ database: { kysely: demo.db } });
      // A host that trusts its proxy, so that X-Forwarded-* take part.
      server = await listen(express().set('trust proxy', true).use(site.app));
      process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        logged.push(String(chunk));
        return writeStderr(chunk, ...rest);
      }) as typeof process.stderr.write;
    });
    after(async () => {
      process.stderr.write = writeStderr;
      await server.close();
      await site.close();
      await demo.close();
    });

    it(`${REQUESTS_PER_BACKEND} hostile requests: no 5xx, plugin 4xx are envelopes, nothing leaks, the process serves on`, async (t) => {
      const r = prng(SEED);
      const ids = [
        ...(await Promise.all([DEMO.welcome, DEMO.private, DEMO.noindex, DEMO.image, DEMO.unpublished, DEMO.blocks].map((n) => demo.id(n)))).map(String),
        DEMO.welcome, DEMO.private, 'subject', '0', '1',
      ];
      const goodHost = `127.0.0.1:${server.port}`;
      const admin = adminCookie(site.session);
      const histogram = new Map<number, number>();
      const failures: string[] = [];

      const check = (req: RawRequest, res: RawResponse) => {
        histogram.set(res.status, (histogram.get(res.status) ?? 0) + 1);
        const what = `${req.method} ${req.path.slice(0, 120)} ${JSON.stringify(req.headers).slice(0, 200)} → ${res.status}`;
        if (res.status >= 500 && res.status !== 503 && res.status !== 504) failures.push(`5xx: ${what} ${res.body.slice(0, 200)}`);
        if (LEAK.test(res.body)) failures.push(`leak: ${what} ${res.body.slice(0, 300)}`);
        const path = req.path.split('?')[0]!;
        if (path === '/mcp' && res.status >= 400 && res.status < 500) {
          // JSON-RPC errors, not the facade envelope: JSON, and never sniffed.
          if (!/^application\/json/.test(String(res.headers['content-type'])) || res.headers['x-content-type-options'] !== 'nosniff') {
            failures.push(`MCP 4xx not JSON: ${what} ${res.headers['content-type']} ${res.body.slice(0, 200)}`);
          }
        }
        // A 404 for a request that prefers Markdown is the Markdown 404 (where to search instead).
        const markdown404 =
          res.status === 404 &&
          /^text\/markdown; charset=utf-8/.test(String(res.headers['content-type'])) &&
          res.headers['cache-control'] === 'no-store' &&
          res.headers['x-content-type-options'] === 'nosniff' &&
          /markdown/i.test(String(req.headers?.['Accept'] ?? req.headers?.['accept'] ?? '')) &&
          (req.method === 'HEAD' || res.body.startsWith('# Not found\n'));
        if (PLUGIN_PATH.test(path) && res.status >= 400 && res.status < 500 && !markdown404) {
          const json = /^application\/json/.test(String(res.headers['content-type']));
          if (!json || res.headers['cache-control'] !== 'no-store' || res.headers['x-content-type-options'] !== 'nosniff') {
            failures.push(`not an envelope: ${what} ${res.headers['content-type']} ${res.headers['cache-control']}`);
          } else if (req.method !== 'HEAD' && JSON.parse(res.body).status !== 'error') {
            failures.push(`envelope without status error: ${what}`);
          }
        }
      };

      const requests: RawRequest[] = [];
      for (let i = 0; i < REQUESTS_PER_BACKEND; i++) {
        const headers = hostileHeaders(r, goodHost, admin);
        if (r.chance(0.08)) {
          const mcp = hostileMcp(r);
          requests.push({ method: r.chance(0.9) ? 'POST' : r.pick(['GET', 'DELETE', 'PUT']), path: `/mcp${r.chance(0.1) ? hostileQuery(r) : ''}`, headers: { ...headers, ...mcp.headers }, body: mcp.body });
          continue;
        }
        if (r.chance(0.08)) {
          const form = hostileForm(r);
          requests.push({ method: 'POST', path: `/login${r.chance(0.2) ? hostileQuery(r) : ''}`, headers: { ...headers, ...form.headers }, body: form.body });
          continue;
        }
        const method = r.chance(0.8) ? 'GET' : r.pick(['HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
        requests.push({ method, path: `${hostilePath(r, ids)}${hostileQuery(r)}`, headers });
      }
      for (let i = 0; i < requests.length; i += CONCURRENCY) {
        const batch = requests.slice(i, i + CONCURRENCY);
        const answers = await Promise.all(batch.map((req) => server.request(req).catch((error: Error) => error)));
        answers.forEach((res, j) => {
          const req = batch[j]!;
          if (res instanceof Error) failures.push(`no answer (${res.message}): ${req.method} ${req.path.slice(0, 120)} ${JSON.stringify(req.headers).slice(0, 200)} ${String(req.body ?? '').slice(0, 200)}`);
          else check(req, res);
        });
      }

      const home = await server.request({ path: '/' });
      assert.equal(home.status, 200, 'the process still serves the home page');
      const search = await server.request({ path: '/api/agent/search?text=harbour' });
      assert.equal(search.status, 200, 'and the facade');
      const stacks = logged.filter((line) => /\n\s+at /.test(line));

      const counts = [...histogram.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
      t.diagnostic(`${backend.name}: ${requests.length} requests, status histogram ${counts}`);
      assert.deepEqual(failures.slice(0, 20), [], `${failures.length} failures`);
      assert.deepEqual(stacks.slice(0, 5), [], 'no stack traces in the log');
    });
  });
}
