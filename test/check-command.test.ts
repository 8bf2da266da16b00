import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import express from 'express';
import { runCheck } from './support/check-cli.js';

/**
 * The per-request timeout of the runs against the example site (ms, as the command takes it): what is
 * checked, not how fast. On a busy 2-core CI machine the first build of llms-full.txt on PGlite (kept
 * once built, issue 32) took longer than the command's default 5 s.
 */
const SLOW_MACHINE_TIMEOUT = '20000';
import { checkReportSchema, runSiteChecks, DEFAULT_MAX_REQUESTS, type CheckReport } from '../src/check/index.js';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { idOf } from './support/demo.js';
import { analyze } from './support/fetchkit.js';
import { LOOPBACK, startCheckedSite, type CheckedSite } from './support/agent-ready-site.js';
import { CHECK_CATALOG } from '../src/check/index.js';
import { DEMO } from '../example-site/seed.js';

/** A loopback server that counts the requests it receives. */
interface Counted {
  origin: string;
  /** Requests received so far, with their method and path. */
  seen: string[];
  close(): Promise<void>;
}

async function listen(handler: http.RequestListener): Promise<Counted> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const cli = runCheck;

/** Runs `check --json` and validates the report with the exported schema. */
async function jsonReport(args: string[]): Promise<{ code: number; report: CheckReport }> {
  const { code, out } = await cli([...args, '--json']);
  return { code, report: checkReportSchema.parse(JSON.parse(out)) };
}

const byId = (report: CheckReport, id: string) => {
  const check = report.checks.find((c) => c.id === id);
  assert.ok(check, `no check ${id}`);
  return check;
};

const failedIds = (report: CheckReport) => report.checks.filter((c) => c.status === 'failed').map((c) => c.id);

/** The checks every run makes, in order (before any --private/--noindex). */
const CHECK_IDS = Object.keys(CHECK_CATALOG);

const execFileAsync = promisify(execFile);

for (const backend of surfaceBackends) {
  describe(`check against the example site [${backend.name}]`, () => {
    let content: TestDatabase;
    let web: CheckedSite;
    let leaky: Counted;
    let privateId: number;
    let noindexId: number;
    before(async () => {
      content = await backend.open();
      web = await startCheckedSite(content.db);
      await analyze(content.db);
      privateId = await idOf(content.db, DEMO.private);
      noindexId = await idOf(content.db, DEMO.noindex);

      // A host that advertises a private resource on purpose: a JSON alternate on the home page, and
      // its Markdown (and a noindex resource) in llms.txt.
      const leak = express();
      leak.get('/llms.txt', async (_req, res) => {
        const real = await (await fetch(`${web.loopback}/llms.txt`)).text();
        const origin = `http://${_req.get('host')}`;
        res.type('text/plain').send(
          `${real.replaceAll(web.origin, origin)}\n## Members\n\n` +
            `- [Members only](${origin}/agent/resource/${privateId}/markdown): private\n` +
            `- [Hidden](${origin}/agent/resource/${noindexId}/markdown): noindex\n`,
        );
      });
      leak.get('/', (req, res, next) => {
        res.append('Link', `<http://${req.get('host')}/api/agent/resource/${privateId}>; rel="alternate"; type="application/json"`);
        next();
      });
      leak.use(web.site.app);
      leaky = await listen(leak);
    });
    after(async () => {
      await leaky?.close();
      await web?.close();
      await content?.close();
    });

    it('exit 0, every check passing, one line each; private and noindex resources are not advertised', async () => {
      const { code, out, err } = await cli([`${web.origin}/`, '--connect-to', LOOPBACK, '--timeout', SLOW_MACHINE_TIMEOUT, '--private', DEMO.private, '--private', String(privateId), '--noindex', DEMO.noindex]);
      assert.equal(err, '');
      assert.equal(code, 0, out);
      const lines = out.split('\n').filter((l) => /^[✓✗·-] /.test(l));
      assert.equal(lines.length, CHECK_IDS.length + 3);
      assert.deepEqual(lines.filter((l) => !l.startsWith('✓ ')), ['· OAuth metadata: no OAuth metadata published: nothing asks agents to authorize (an anonymous API needs none)'], out);
      assert.doesNotMatch(out, /fix:/);
      assert.match(out, /^✓ llms\.txt \(llmstxt\.org reference grammar\): "Harbour Example": summary, \d+ sections/m);
      assert.match(out, /^✓ A resource page: \/\w\w\/page\/\d+ \(front matter of \/agent\/resource\/\d+\/markdown\?language=\w\w, llms\.txt section "Newest"\)$/m);
      assert.match(out, /^✓ Private resource members_only is not advertised: facade read 404; not in llms\.txt, home and page links, sitemap/m);
      assert.match(out, /^✓ Noindex resource hidden_from_search is not advertised: facade read 200; .*its page \(200\)$/m);
      assert.match(out, /^Readiness score 100\/100 · 34 checks: 33 passed, 0 failed, 1 not applicable \(\d+ requests\)$/m);
    });

    it('--json: the documented schema, every check ok; the request count is the server\'s and within the bound', async () => {
      const before = web.seen.length;
      const { code, report } = await jsonReport([web.origin, '--connect-to', LOOPBACK, '--timeout', SLOW_MACHINE_TIMEOUT, '--noindex', String(noindexId)]);
      const received = web.seen.length - before;
      assert.equal(code, 0);
      assert.equal(report.ok, true);
      assert.equal(report.url, `${web.origin}/`);
      assert.deepEqual(report.checks.map((c) => c.id), [...CHECK_IDS, `noindex:${noindexId}`]);
      assert.equal(report.score, 100);
      for (const c of report.checks) {
        assert.equal(c.status, c.id === 'oauth-metadata' ? 'not_applicable' : 'passed', `${c.id}: ${c.detail}`);
        assert.equal(c.fix, null);
        assert.equal(c.because, null);
      }
      assert.equal(report.requests, received);
      assert.ok(received <= DEFAULT_MAX_REQUESTS, `${received} requests`);
      assert.match(byId(report, 'mcp-card').detail, /endpoint \/mcp/);
      assert.match(byId(report, 'ard').detail, /2 entries .*2 urls served with their type/);
    });

    it('--page on the Dutch page: its alternates carry nl, and the English page\'s carry en', async () => {
      const welcome = await idOf(content.db, DEMO.welcome);
      const { code, report } = await jsonReport([web.origin, '--connect-to', LOOPBACK, '--timeout', SLOW_MACHINE_TIMEOUT, '--page', `${web.origin}/nl/page/${welcome}`]);
      assert.equal(code, 0, JSON.stringify(failedIds(report)));
      assert.equal(byId(report, 'page').detail, `/nl/page/${welcome} (given with --page)`);
      assert.equal(byId(report, 'resource-language').detail, "alternates carry the page's language (nl, en)");
      assert.match(byId(report, 'resource-read').detail, new RegExp(`/api/agent/resource/${welcome}\\?language=nl \\(JSON\\)`));
    });

    it('a host that advertises a private resource: the --private and --noindex checks fail, naming where', async () => {
      const { code, out } = await cli([leaky.origin, '--private', String(privateId), '--noindex', DEMO.noindex]);
      assert.equal(code, 1);
      const { report } = await jsonReport([leaky.origin, '--private', String(privateId), '--noindex', DEMO.noindex]);
      assert.deepEqual(failedIds(report).filter((id) => id.includes(':')), [`private:${privateId}`, `noindex:${DEMO.noindex}`]);
      const leak = byId(report, `private:${privateId}`);
      assert.match(leak.detail, new RegExp(`llms\\.txt links it \\(/agent/resource/${privateId}/markdown\\)`));
      assert.match(leak.detail, new RegExp(`the home page has an alternate to it \\(/api/agent/resource/${privateId}\\)`));
      assert.match(leak.fix ?? '', /must appear nowhere agents look/);
      assert.match(byId(report, `noindex:${DEMO.noindex}`).detail, new RegExp(`llms\\.txt links it \\(/agent/resource/${noindexId}/markdown\\)`));
      assert.match(out, new RegExp(`^✗ Private resource ${privateId} is not advertised: .*\\n {4}fix: `, 'm'));
    });

    it('the request bound: with a budget of 12 the server receives 12 requests and the rest is reported, not sent', async () => {
      const before = web.seen.length;
      const report = await runSiteChecks(web.origin, { maxRequests: 12, connectTo: LOOPBACK });
      assert.equal(web.seen.length - before, 12);
      assert.equal(report.requests, 12);
      assert.equal(report.ok, false);
      assert.match(byId(report, 'llms-txt').detail, /was not requested: the budget of 12 requests is used up/);
    });

    it('a run keeps its connections to itself: after a run with --connect-to, one without looks the host up again', async () => {
      const { code: first } = await cli([web.origin, '--connect-to', LOOPBACK, '--timeout', SLOW_MACHINE_TIMEOUT, '--json']);
      assert.equal(first, 0);
      const { code, out, err } = await cli([web.origin]);
      assert.equal(code, 1);
      assert.equal(out, '');
      assert.match(err, new RegExp(`^express-agent-discovery check: cannot connect to ${web.origin.replace(/[.]/g, '\\.')}/ \\((?:ENOTFOUND|EAI_AGAIN|timed out after 5000 ms)\\)`));
    });

    it('runs as a child process: node --import tsx src/cli/main.ts check <url>', async () => {
      const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'check', web.origin, '--connect-to', LOOPBACK, '--timeout', SLOW_MACHINE_TIMEOUT], { encoding: 'utf8' });
      assert.match(stdout, /^Checking http:\/\/harbour-agent-demo\.net:\d+\/ as agents see it$/m);
      assert.match(stdout, /^Readiness score 100\/100 · 31 checks: 30 passed, 0 failed, 1 not applicable \(\d+ requests\)$/m);
    });
  });
}

describe('check against sites without the plugin', () => {
  let bare: Counted;
  let hostile: Counted;
  let elsewhere: Counted;
  let hanging: Counted;
  let redirecting: Counted;
  before(async () => {
    const page = '<!doctype html><html lang="en"><head><title>Bare</title></head><body><h1>Hello</h1></body></html>';
    const bareApp = express();
    bareApp.get('/', (_req, res) => {
      res.type('html').send(page);
    });
    bare = await listen(bareApp);

    // Another origin the hostile site points at: the checker must never request it.
    elsewhere = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    // A catch-all 200 with links to another origin and a redirecting llms.txt.
    const hostileApp = express();
    hostileApp.get('/llms.txt', (_req, res) => {
      res.redirect(301, `${elsewhere.origin}/llms.txt`);
    });
    hostileApp.use((_req, res) => {
      res.set('Link', `<${elsewhere.origin}/catalog>; rel="api-catalog", <${elsewhere.origin}/openapi.json>; rel="service-desc", <${elsewhere.origin}/ard.json>; rel="ard"`);
      res.type('html').send(page.replace('<title>', `<link rel="alternate" type="text/markdown" href="${elsewhere.origin}/page.md"><title>`));
    });
    hostile = await listen(hostileApp);

    // A site whose llms.txt never answers.
    const hangingApp = express();
    hangingApp.get('/llms.txt', () => {});
    hangingApp.get('/', (_req, res) => {
      res.type('html').send(page);
    });
    hanging = await listen(hangingApp);

    // A home page that redirects to a language prefix, and llms.txt that redirects too.
    const redirectingApp = express();
    redirectingApp.get('/', (_req, res) => res.redirect(302, '/en/'));
    redirectingApp.get('/llms.txt', (_req, res) => res.redirect(302, '/en/llms.txt'));
    redirectingApp.get('/en/', (_req, res) => {
      res.type('html').send(page);
    });
    redirecting = await listen(redirectingApp);
  });
  after(async () => {
    for (const s of [bare, hostile, elsewhere, hanging, redirecting]) await s?.close();
  });

  it('a bare Express app serving one HTML page: exit 1, listing what is missing with its fix', async () => {
    const { code, out } = await cli([bare.origin]);
    assert.equal(code, 1);
    assert.match(out, /^✗ Home page Link header: GET lacks api-catalog, service-desc, service-doc, describedby, ard; HEAD lacks api-catalog, service-desc, service-doc, describedby, ard\n {4}fix: .*app\.use\(agent\.linkHeaders\)/m);
    assert.match(out, /^- llms\.txt \(llmstxt\.org reference grammar\): because "Discovery documents published" failed$/m);
    assert.match(out, /^✗ Discovery documents published: none of \/llms\.txt, \/\.well-known\/api-catalog, \/openapi\.json, \/\.well-known\/ard\.json answers 2xx\n {4}fix: .*app\.use\(agent\.router\)/m);
    assert.match(out, /^✓ Conventional paths \(HEAD, direct answers\): 404: all 10$/m);
    assert.match(out, /^✗ MCP server card: no MCP endpoint advertised/m);
    const { report } = await jsonReport([bare.origin]);
    assert.deepEqual(report.checks.map((c) => c.id), CHECK_IDS);
    assert.deepEqual(report.checks.filter((c) => c.status === 'passed').map((c) => c.id), ['probes', 'catch-all']);
    for (const c of report.checks.filter((r) => r.status === 'failed')) assert.ok(c.fix, c.id);
    assert.equal(byId(report, 'page').because, 'discovery-documents');
    assert.equal(report.requests, bare.seen.length / 2, 'each run made the same requests');
  });

  it('a catch-all 200 with redirects and links to another origin: reported, never followed', async () => {
    const { code, report } = await jsonReport([hostile.origin, '--page', '/somewhere']);
    assert.equal(code, 1);
    assert.deepEqual(elsewhere.seen, [], 'no request left the checked origin');
    assert.ok(hostile.seen.length <= DEFAULT_MAX_REQUESTS);
    assert.match(byId(report, 'probes').detail, /^\/llms\.txt answered 301 \(redirect to http:\/\/127\.0\.0\.1:\d+\/llms\.txt\)$/);
    assert.match(byId(report, 'catch-all').detail, /^\/\.well-known\/check-[0-9a-f]{12} answered 200$/);
    assert.match(byId(report, 'llms-txt').detail, /answered 301/);
    assert.match(byId(report, 'resource-read').detail, /no JSON alternate/);
    assert.match(byId(report, 'ard').detail, /^GET http:\/\/127\.0\.0\.1:\d+\/ard\.json was not requested: http:\/\/127\.0\.0\.1:\d+ is another origin$/);
  });

  it('one same-origin redirect of the home page is followed (and said); any other redirect is reported, not followed', async () => {
    const { report } = await jsonReport([redirecting.origin]);
    assert.match(byId(report, 'home-link-header').detail, /^GET \(after a 302 redirect to \/en\/\) lacks api-catalog/);
    assert.equal(byId(report, 'llms-txt').detail, 'GET /llms.txt answered 302 (redirect to /en/llms.txt)');
    assert.ok(!redirecting.seen.includes('GET /en/llms.txt'), 'the llms.txt redirect was not followed');
    assert.equal(redirecting.seen.filter((r) => r === 'GET /en/').length, 1);
  });

  it('a request that does not answer times out after --timeout and fails its check', async () => {
    const { code, report } = await jsonReport([hanging.origin, '--timeout', '300']);
    assert.equal(code, 1);
    assert.equal(byId(report, 'llms-txt').detail, 'GET /llms.txt failed: timed out after 300 ms');
  });

  it('usage errors exit 2 and name the problem', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /the URL of the site is missing/],
      [['not a url'], /not a URL: "not a url"/],
      [['ftp://example.com/'], /must be http or https/],
      [['http://a.example/', 'http://b.example/'], /one URL expected, got 2/],
      [['http://a.example/', '--timeout', 'soon'], /--timeout must be milliseconds/],
      [['http://a.example/', '--timeout', '0'], /--timeout must be an integer from 1 to 60000/],
      [['http://a.example/', '--page', 'http://b.example/x'], /--page must be on http:\/\/a\.example/],
      [['http://a.example/', '--private', 'http://b.example/x'], /private http:\/\/b\.example\/x is not on http:\/\/a\.example/],
      [['http://a.example/', '--pgae', 'x'], /Unknown option '--pgae'/],
    ];
    for (const [args, message] of cases) {
      const { code, out, err } = await cli(args);
      assert.equal(code, 2, args.join(' '));
      assert.equal(out, '');
      assert.match(err, message, args.join(' '));
      assert.match(err, /^express-agent-discovery check: /);
    }
    const help = await cli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: express-agent-discovery check <url>/);
  });
});
