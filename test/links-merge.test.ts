import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import express from 'express';
import { createContext } from '../src/context.js';
import { resolveOptions, type AgentDiscoveryOptions } from '../src/options.js';
import type { ContentDatabase } from '../src/db/connection.js';
import { createLinkMiddleware } from '../src/discovery/index.js';
import { mergeLinkValues } from '../src/links/link-format.js';
import { headerLines, parseLinkHeaders, rawRequest } from './support/fetchkit.js';

const express4 = createRequire(import.meta.url)('express4') as () => express.Express;

/** The Link middleware needs no database: a stand-in Kysely is enough. */
function linkMiddleware(options: Partial<AgentDiscoveryOptions> = {}) {
  const fake = { selectFrom() {} } as unknown as ContentDatabase['db'];
  const resolved = resolveOptions({ siteTitle: 'Merge test', database: { kysely: fake }, ...options });
  return createLinkMiddleware(createContext(resolved, { db: fake, kind: 'postgres', pool: undefined, close: async () => {} } as ContentDatabase));
}

async function listen(app: express.Express): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe('mergeLinkValues', () => {
  it('merges values into one, exact duplicates once, order kept', () => {
    const merged = mergeLinkValues(['<https://hub.example/>; rel="hub"', '<https://hub.example/>; rel=hub, </llms.txt>; rel="describedby"']);
    assert.equal(merged, '<https://hub.example/>; rel="hub", </llms.txt>; rel="describedby"');
  });
  it('keeps links that differ in any parameter', () => {
    const merged = mergeLinkValues(['</a>; rel="alternate"; type="text/markdown"', '</a>; rel="alternate"; type="application/json"']);
    assert.equal(parseLinkHeaders([merged]).length, 2);
  });
  it('keeps a value the parser cannot read, verbatim', () => {
    assert.equal(mergeLinkValues(['not a link', '</x>; rel="y"']), 'not a link, </x>; rel="y"');
  });
  it('keeps quotes, backslashes and non-ASCII titles byte for byte', () => {
    const merged = mergeLinkValues(['</x>; rel="y"; title="Caf\u00e9 \\"quoted\\""']);
    const [ref] = parseLinkHeaders([merged]);
    assert.equal(ref!.title, 'Caf\u00e9 "quoted"');
  });
  it('returns an empty string for no values', () => {
    assert.equal(mergeLinkValues([]), '');
  });
});

for (const flavour of ['express5', 'express4'] as const) {
  describe(`Link-merging middleware [${flavour}]`, () => {
    let server: { origin: string; close(): Promise<void> };
    before(async () => {
      const app = flavour === 'express5' ? express() : express4();
      app.use(linkMiddleware());
      app.use(linkMiddleware()); // mounted twice: still merges once
      app.get('/set-after-append', (_req, res) => {
        res.append('Link', '</a>; rel="one"');
        res.set('Link', '</b>; rel="two"');
        res.send('ok');
      });
      app.get('/duplicates', (_req, res) => {
        res.append('Link', '<https://hub.example/>; rel="hub"');
        res.append('Link', ['<https://hub.example/>; rel="hub"', '</c>; rel="three"']);
        res.links({ hub: 'https://hub.example/' });
        res.send('ok');
      });
      app.get('/write-head', (_req, res) => {
        res.setHeader('Link', '</d>; rel="four"');
        res.writeHead(200, { Link: '</e>; rel="five"', 'Content-Type': 'text/plain' });
        res.end('ok');
      });
      app.get('/removed', (_req, res) => {
        res.set('Link', '</f>; rel="six"');
        res.removeHeader('Link');
        res.set('Link', '</g>; rel="seven"');
        res.send('ok');
      });
      app.get('/none', (_req, res) => {
        res.send('ok');
      });
      app.get('/crlf', (_req, res) => {
        try {
          res.set('Link', '</h>; rel="x"\r\nX-Injected: yes');
        } catch {
          // Node refuses the value at the host's call site; nothing is injected.
        }
        res.send('ok');
      });
      server = await listen(app);
    });
    after(() => server.close());

    const links = async (path: string) => {
      const res = await rawRequest(`${server.origin}${path}`);
      const lines = headerLines(res.rawHeaders, 'link');
      return { res, lines, refs: parseLinkHeaders(lines) };
    };

    it('a later res.set keeps the earlier values, in one header', async () => {
      const { lines, refs } = await links('/set-after-append');
      assert.equal(lines.length, 1);
      assert.deepEqual(refs.map((r) => r.rel), ['one', 'two']);
    });
    it('exact duplicates from append, arrays and res.links are sent once', async () => {
      const { lines, refs } = await links('/duplicates');
      assert.equal(lines.length, 1);
      assert.deepEqual(refs.map((r) => `${r.href} ${r.rel}`), ['https://hub.example/ hub', '/c three']);
    });
    it('headers given to writeHead are merged too', async () => {
      const { lines, refs } = await links('/write-head');
      assert.equal(lines.length, 1);
      assert.deepEqual(refs.map((r) => r.rel), ['four', 'five']);
    });
    it('an explicit removeHeader is honoured', async () => {
      const { refs } = await links('/removed');
      assert.deepEqual(refs.map((r) => r.rel), ['seven']);
    });
    it('adds no Link header when none was set (not the home page)', async () => {
      const { lines } = await links('/none');
      assert.equal(lines.length, 0);
    });
    it('a CR/LF in a value never becomes a header', async () => {
      const { res } = await links('/crlf');
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-injected'], undefined);
    });
  });
}

describe('site-level links by the middleware', () => {
  let plain: { origin: string; close(): Promise<void> };
  let allHtml: { origin: string; close(): Promise<void> };
  const hostRoutes = (app: express.Express) => {
    app.get('/', (_req, res) => { res.type('html').send('<p>home</p>'); });
    app.get('/about', (_req, res) => { res.type('html').send('<p>about</p>'); });
    app.get('/data', (_req, res) => { res.json({ ok: true }); });
    app.get('/broken', (_req, res) => { res.status(500).type('html').send('<p>error</p>'); });
    return app;
  };
  before(async () => {
    const a = express();
    a.use(linkMiddleware());
    plain = await listen(hostRoutes(a));
    const b = express();
    b.use(linkMiddleware({ linkAllHtml: true }));
    allHtml = await listen(hostRoutes(b));
  });
  after(async () => {
    await plain.close();
    await allHtml.close();
  });
  const rels = async (url: string, method = 'GET') =>
    parseLinkHeaders(headerLines((await rawRequest(url, { method })).rawHeaders, 'link')).map((r) => r.rel);
  const SITE = ['api-catalog', 'service-desc', 'service-doc', 'describedby', 'ard'];

  it('the home page gets them on GET and HEAD', async () => {
    assert.deepEqual(await rels(`${plain.origin}/`), [...SITE, 'alternate'], 'the site links and the home page\'s Markdown alternate');
    assert.deepEqual(await rels(`${plain.origin}/`, 'HEAD'), [...SITE, 'alternate']);
  });
  it('other pages do not, unless linkAllHtml', async () => {
    assert.deepEqual(await rels(`${plain.origin}/about`), []);
    assert.deepEqual(await rels(`${allHtml.origin}/about`), SITE);
    assert.deepEqual(await rels(`${allHtml.origin}/about`, 'HEAD'), SITE);
  });
  it('never on JSON or error responses', async () => {
    assert.deepEqual(await rels(`${allHtml.origin}/data`), []);
    assert.deepEqual(await rels(`${allHtml.origin}/broken`), []);
  });
  it('absolute URLs on the request origin', async () => {
    const res = await rawRequest(`${plain.origin}/`);
    for (const ref of parseLinkHeaders(headerLines(res.rawHeaders, 'link'))) assert.ok(ref.href.startsWith(`${plain.origin}/`), ref.href);
  });
});
