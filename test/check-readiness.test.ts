import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import express from 'express';
import { CHECK_CATALOG, checkReportSchema, readinessScore, type CheckReport, type CheckResult } from '../src/check/index.js';
import { siteLinks } from '../src/links/site-links.js';
import { SITE_LINK_RELS } from '../src/link-relations.js';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { runCheck } from './support/check-cli.js';
import { LOOPBACK, startCheckedSite, type CheckedSite } from './support/agent-ready-site.js';
import { adminCookie } from '../example-site/session.js';
import { DEMO } from '../example-site/seed.js';

/** Runs Verify on the admin page as a signed-in administrator's browser does (CSRF cookie and token first). */
async function verify(ready: CheckedSite, fields: Record<string, string>): Promise<{ status: number; html: string }> {
  const admin = adminCookie(ready.site.session);
  const form = await fetch(`${ready.loopback}/admin/agent/verify`, { headers: { cookie: admin } });
  const csrf = form.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('ead_admin_csrf='));
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  assert.ok(csrf && token, 'the Verify form carries its CSRF cookie and token');
  const res = await fetch(`${ready.loopback}/admin/agent/verify`, {
    method: 'POST',
    headers: { cookie: `${admin}; ${csrf}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token, ...fields }).toString(),
  });
  return { status: res.status, html: await res.text() };
}

/** The text of an element by id as a reader sees it: tags dropped (table cells apart), entities decoded. */
const textOf = (html: string, id: string): string => {
  const m = new RegExp(`<(\\w+)[^>]*\\bid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  assert.ok(m, `no #${id}`);
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
  return m[2]!
    .replace(/<\/t[dh]>/g, ' ')
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => entities[e]!)
    .replace(/\s+/g, ' ')
    .trim();
};

/** `express-agent-discovery check …`: exit code, stdout, stderr (in-process; see `runCheck`). */
const check = runCheck;
const execFileAsync = promisify(execFile);

async function jsonCheck(args: string[]): Promise<{ code: number; report: CheckReport }> {
  const { code, out, err } = await check([...args, '--json']);
  assert.equal(err, '');
  return { code, report: checkReportSchema.parse(JSON.parse(out)) };
}

const withStatus = (report: CheckReport, status: CheckResult['status']) => report.checks.filter((c) => c.status === status).map((c) => c.id);
const byId = (report: CheckReport, id: string) => {
  const c = report.checks.find((r) => r.id === id);
  assert.ok(c, `no check ${id}`);
  return c;
};

/** Every check skipped "because" of another names a failed check, and every failure has a fix of its own. */
function assertRootCausesOnce(report: CheckReport): void {
  const failed = report.checks.filter((c) => c.status === 'failed');
  for (const c of failed) assert.ok(c.fix, `${c.id} has a fix`);
  assert.equal(new Set(failed.map((c) => c.fix)).size, failed.length, 'no fix is given twice');
  for (const c of report.checks.filter((r) => r.because !== null)) {
    assert.equal(c.status, 'skipped', c.id);
    assert.equal(c.fix, null, `${c.id} repeats no fix`);
    assert.equal(byId(report, c.because!).status, 'failed', `${c.id} is skipped because of ${c.because}, a failed check`);
    assert.match(c.detail, /^because ".+" failed$/);
  }
}

/**
 * The per-request timeout of the runs against the example site (ms, as the command takes it): the test is
 * about what is checked, not how fast. On a busy 2-core CI machine the first build of llms-full.txt on
 * PGlite took longer than the command's default 5 s (it is kept once built, issue 32).
 */
const SLOW_MACHINE_TIMEOUT = '20000';

describe('the readiness score', () => {
  it('weighs passed over passed, failed and skipped-because-of-a-failure; nothing to check and not applicable count neither way', () => {
    const c = (status: CheckResult['status'], weight: number, because: string | null = null) => ({ status, weight, because });
    assert.equal(readinessScore([c('passed', 10), c('failed', 5), c('skipped', 5, 'x')]), 50);
    assert.equal(readinessScore([c('passed', 10), c('skipped', 50), c('not_applicable', 50)]), 100);
    assert.equal(readinessScore([c('passed', 2), c('failed', 1)]), 66, 'rounded down: 100 only when everything counted passed');
    assert.equal(readinessScore([c('skipped', 3), c('not_applicable', 3)]), 0, 'nothing counted: no score to give');
  });

  it('the checker looks for the relations the plugin advertises (one list, shared by both)', () => {
    assert.deepEqual(siteLinks('https://example.org').map((l) => l.rel), [...SITE_LINK_RELS]);
  });
});

for (const backend of surfaceBackends) {
  describe(`check grades the example site [${backend.name}]`, () => {
    let content: TestDatabase;
    let ready: CheckedSite;
    before(async () => {
      content = await backend.open();
      ready = await startCheckedSite(content.db);
    });
    after(async () => {
      await ready?.close();
      await content?.close();
    });

    it('with its opt-ins on (MCP, CORS, robots.txt with Content Signals, sitemap, .md twins): score 100, every check passed or not applicable', async () => {
      const { code, report } = await jsonCheck([`${ready.origin}/`, '--connect-to', LOOPBACK, '--timeout', SLOW_MACHINE_TIMEOUT]);
      assert.equal(code, 0, JSON.stringify(report.checks.filter((c) => c.status !== 'passed')));
      assert.equal(report.score, 100);
      assert.deepEqual(report.checks.map((c) => c.id), Object.keys(CHECK_CATALOG));
      for (const c of report.checks) assert.equal(c.weight, CHECK_CATALOG[c.id as keyof typeof CHECK_CATALOG].weight, c.id);
      assert.deepEqual(withStatus(report, 'not_applicable'), ['oauth-metadata']);
      assert.deepEqual(withStatus(report, 'failed'), []);
      assert.deepEqual(withStatus(report, 'skipped'), []);
      assert.match(byId(report, 'ard').detail, /urn:air:harbour-agent-demo\.net:content:api/);
      assert.match(byId(report, 'content-signals').detail, /^Content-Signal: search=yes, ai-input=yes, ai-train=no/);
      assert.match(byId(report, 'translations').detail, /^en \/en\/page\/\d+, nl \/nl\/page\/\d+ in header and <head>$/);
      assert.match(byId(report, 'mcp-protocol').detail, /initialize → 2025-11-25, server\/discover → .*2026-07-28.*, foreign Origin → 403/);
      assert.ok(Date.now() - Date.parse(report.ranAt) < 60_000, 'ranAt is the time of this run');
      const text = await check([ready.origin, '--connect-to', LOOPBACK, '--timeout', SLOW_MACHINE_TIMEOUT]);
      assert.match(text.out, /^Readiness score 100\/100 · 31 checks: 30 passed, 0 failed, 1 not applicable \(\d+ requests\)$/m);
      assert.match(text.out, /^· OAuth metadata: no OAuth metadata published/m);
    });

    it('Verify, when the public base URL does not resolve from the server: one error naming it, what was entered kept', async () => {
      const { status, html } = await verify(ready, { private: DEMO.private });
      assert.equal(status, 502);
      assert.match(textOf(html, 'problem'), /^The checks cannot run: cannot connect to http:\/\/harbour-agent-demo\.net:\d+\/ \((?:ENOTFOUND|EAI_AGAIN|timed out after 5000 ms)\)\.$/);
      assert.match(html, new RegExp(`id="private" name="private" value="${DEMO.private}"`));
      assert.doesNotMatch(html, /id="checks"/);
    });

    it('a page in one language: translations and nothing else is skipped, with nothing to check (the score stays 100)', async () => {
      const ids = (await (await fetch(`${ready.loopback}/api/agent/search?text=English`)).json()) as { result: { items: Array<{ page_url: string; languages?: string[] }> } };
      const page = ids.result.items.map((i) => new URL(i.page_url).pathname).find((p) => p.startsWith('/en/'));
      assert.ok(page, 'an English-only page');
      const { report } = await jsonCheck([ready.origin, '--connect-to', LOOPBACK, '--page', page, '--timeout', SLOW_MACHINE_TIMEOUT]);
      const translations = byId(report, 'translations');
      assert.equal(translations.status, 'skipped');
      assert.equal(translations.because, null);
      assert.match(translations.detail, /^the resource has one language \(en\): no translations to link$/);
      assert.equal(report.score, 100);
    });

    it('an ARD placeholder identifier (a site without a public base URL) is flagged, not passed', async () => {
      const placeholder = express();
      placeholder.get('/.well-known/ard.json', (_req, res) => {
        res.json({
          entries: [
            {
              identifier: 'urn:air:agent.localhost:content:api',
              displayName: 'Content API',
              type: 'application/json',
              url: `http://${_req.get('host')}/api.json`,
              description: 'The content.',
              representativeQueries: ['a', 'b'],
              updatedAt: new Date(0).toISOString(),
            },
          ],
        });
      });
      placeholder.get('/api.json', (_req, res) => res.json({}));
      const server = await listen(placeholder);
      try {
        const flagged = byId((await jsonCheck([server.origin])).report, 'ard');
        assert.equal(flagged.status, 'failed');
        assert.match(flagged.detail, /urn:air:agent\.localhost:content:api names the placeholder publisher agent\.localhost/);
        assert.match(flagged.fix ?? '', /baseUrl option/);
      } finally {
        await server.close();
      }
    });
  });

  describe(`check lists the missing opt-ins of the example site [${backend.name}]`, () => {
    let content: TestDatabase;
    let plain: CheckedSite;
    before(async () => {
      content = await backend.open();
      plain = await startCheckedSite(content.db, { optIns: false });
    });
    after(async () => {
      await plain?.close();
      await content?.close();
    });

    it('without mcp, cors, robotsTxt, sitemap and markdownTwins: those fail naming the option, their dependants are skipped because of them', async () => {
      const { code, report } = await jsonCheck([plain.origin, '--connect-to', LOOPBACK, '--timeout', SLOW_MACHINE_TIMEOUT]);
      assert.equal(code, 1);
      assert.deepEqual(withStatus(report, 'failed'), ['md-twins', 'mcp-card', 'robots-txt', 'sitemap', 'cors']);
      assert.match(byId(report, 'md-twins').fix ?? '', /markdownTwins option/);
      assert.match(byId(report, 'sitemap').fix ?? '', /the sitemap option/);
      assert.equal(byId(report, 'cors-page-markdown').because, 'cors');
      assert.match(byId(report, 'mcp-card').fix ?? '', /mcp option/);
      assert.match(byId(report, 'robots-txt').fix ?? '', /turn on robotsTxt/);
      assert.match(byId(report, 'cors').fix ?? '', /cors: true/);
      assert.equal(byId(report, 'mcp-protocol').because, 'mcp-card');
      assert.equal(byId(report, 'content-signals').because, 'robots-txt');
      assert.match(byId(report, 'ard').detail, /^1 entry \(urn:air:harbour-agent-demo\.net:content:api\); 1 url served with its type$/, 'without MCP, one entry, said in the singular');
      assertRootCausesOnce(report);
      const weights = (ids: string[]) => ids.reduce((sum, id) => sum + byId(report, id).weight, 0);
      const counted = report.checks.filter((c) => c.status !== 'not_applicable');
      const lost = weights(['md-twins', 'mcp-card', 'mcp-protocol', 'robots-txt', 'content-signals', 'license-policy', 'sitemap', 'cors', 'cors-page-markdown']);
      const total = counted.reduce((sum, c) => sum + c.weight, 0);
      assert.equal(report.score, Math.floor((100 * (total - lost)) / total));
      const text = await check([plain.origin, '--connect-to', LOOPBACK, '--timeout', SLOW_MACHINE_TIMEOUT]);
      assert.match(text.out, /^- AI preferences \(Content Signals\): because "robots\.txt" failed$/m);
      assert.equal(text.out.match(/^ {4}fix: /gm)?.length, 5, 'five fixes, one per missing opt-in');
    });
  });
}

for (const backend of surfaceBackends) {
  describe(`Verify on the admin page [${backend.name}]`, () => {
    let content: TestDatabase;
    let local: CheckedSite;
    before(async () => {
      content = await backend.open();
      local = await startCheckedSite(content.db, { publicName: false });
    });
    after(async () => {
      await local?.close();
      await content?.close();
    });

    it('shows the score, each status with its weight and fix, the time of the run, and keeps what was entered', async () => {
      const started = Date.now();
      const page = `${local.loopback}/en/page/${(await (await fetch(`${local.loopback}/api/agent/resource/${DEMO.welcome}`)).json() as { result: { id: number } }).result.id}`;
      // Verify probes with the command's default 5 s per request: llms-full.txt is built once first (it is
      // kept, issue 32), as a site's first agent would, so a busy 2-core machine's slow first build is not what is tested.
      assert.equal((await fetch(`${local.loopback}/llms-full.txt`)).status, 200);
      const { status, html } = await verify(local, { page, private: DEMO.private, noindex: DEMO.noindex });
      assert.equal(status, 200);
      // On 127.0.0.1 without a public base URL the ARD identifier is the placeholder: flagged, with its fix.
      const report = await runReport(local.loopback, page);
      assert.deepEqual(withStatus(report, 'failed'), ['ard']);
      const summary = textOf(html, 'summary');
      assert.match(summary, new RegExp(`^Readiness score ${report.score}/100\\. 1 of ${report.checks.length} checks failed, ${report.checks.length - 2} passed, 1 not applicable \\(\\d+ requests\\)\\. Run at \\d{1,2} December 2026 at \\d\\d:\\d\\d:\\d\\d UTC\\.$`));
      assert.ok(report.score < 100 && report.score > 90, String(report.score));
      const ranAt = /<time id="ran-at" datetime="([^"]+)">/.exec(html)?.[1];
      assert.ok(ranAt && Date.parse(ranAt) >= started - 1000 && Date.parse(ranAt) <= Date.now(), 'the time of this run');
      const ard = textOf(html, 'check-ard');
      assert.match(ard, /^ARD manifest entries failed 6 .*placeholder publisher agent\.localhost.*the baseUrl option\)\.$/);
      assert.match(textOf(html, 'check-oauth-metadata'), /^OAuth metadata not applicable 2 no OAuth metadata published/);
      assert.match(textOf(html, 'check-llms-txt'), /^llms\.txt \(llmstxt\.org reference grammar\) passed 10 /);
      assert.match(textOf(html, `check-private:${DEMO.private}`), /passed 5 facade read 404/);
      assert.match(textOf(html, `check-noindex:${DEMO.noindex}`), /sitemap \(\d+ entries\)/);
      for (const [name, value] of [['page', page], ['private', DEMO.private], ['noindex', DEMO.noindex]]) {
        assert.match(html, new RegExp(`id="${name}" name="${name}" value="${value!.replace(/[.?/]/g, '\\$&')}"`), `${name} kept`);
      }
    });

    it('a page of another site: refused with the reason, the form kept', async () => {
      const { status, html } = await verify(local, { page: 'http://elsewhere.invalid/x' });
      assert.equal(status, 400);
      assert.match(textOf(html, 'problem'), /^The checks cannot run: page must be on http:\/\/127\.0\.0\.1:\d+\.$/);
      assert.match(html, /id="page" name="page" value="http:\/\/elsewhere\.invalid\/x"/);
    });
  });
}

/** The report `check --json` gives for the loopback site and page. */
async function runReport(origin: string, page: string): Promise<CheckReport> {
  return (await jsonCheck([origin, '--page', page, '--private', DEMO.private, '--noindex', DEMO.noindex])).report;
}

/** A loopback server. */
async function listen(app: http.RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  return {
    origin: `http://${LOOPBACK}:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('check against a plain Express site, a closed port and a scheme-less URL', () => {
  let plain: { origin: string; close(): Promise<void> };
  before(async () => {
    const app = express();
    app.get('/', (_req, res) => {
      res.type('html').send('<!doctype html><html lang="en"><head><title>Plain</title></head><body><h1>Hello</h1></body></html>');
    });
    app.get('/about', (_req, res) => {
      res.type('html').send('<!doctype html><html lang="en"><head><title>About</title></head><body><p>About us</p></body></html>');
    });
    plain = await listen(app);
  });
  after(async () => {
    await plain?.close();
  });

  it('a plain Express site: each root cause reported once with its fix, what depends on it skipped because of it', async () => {
    const { code, report } = await jsonCheck([plain.origin]);
    assert.equal(code, 1);
    assert.deepEqual(withStatus(report, 'failed'), ['home-link-header', 'home-head', 'discovery-documents', 'mcp-card', 'robots-txt', 'sitemap', 'skills-index']);
    assertRootCausesOnce(report);
    const becauseDiscovery = report.checks.filter((c) => c.because === 'discovery-documents').map((c) => c.id);
    assert.deepEqual(becauseDiscovery, [
      'home-markdown',
      'llms-txt',
      'page',
      'page-link-header',
      'page-head',
      'markdown-negotiation',
      'resource-read',
      'resource-language',
      'translations',
      'md-twins',
      'markdown-404',
      'api-catalog',
      'api-catalog-links',
      'openapi',
      'ard',
      'cors',
      'cors-page-markdown',
      'change-feed',
    ]);
    assert.match(byId(report, 'discovery-documents').fix ?? '', /app\.use\(agent\.router\)/);
    assert.deepEqual(withStatus(report, 'passed'), ['probes', 'catch-all']);
    assert.equal(report.score, Math.floor((100 * (CHECK_CATALOG.probes.weight + CHECK_CATALOG['catch-all'].weight)) / report.checks.filter((c) => c.status !== 'not_applicable').reduce((s, c) => s + c.weight, 0)));

    // The same site with a page given: the page checks run, their own root causes reported once.
    const { report: withPage } = await jsonCheck([plain.origin, '--page', '/about']);
    assert.equal(byId(withPage, 'page').status, 'passed');
    assert.equal(byId(withPage, 'page-link-header').status, 'failed');
    assert.equal(byId(withPage, 'resource-read').because, 'page-link-header');
    assert.equal(byId(withPage, 'resource-language').because, 'page-link-header', 'no alternates: nothing to label, said as a consequence, never passed');
    assertRootCausesOnce(withPage);
  });

  it('a port with nothing listening: one error "cannot connect to …", exit 1, no report', async () => {
    const closed = await listen((_req, res) => res.end());
    const url = `${closed.origin}/`;
    await closed.close();
    for (const args of [[url], [url, '--json']]) {
      const { code, out, err } = await check(args);
      assert.equal(code, 1);
      assert.equal(out, '');
      assert.equal(err, `express-agent-discovery check: cannot connect to ${url} (ECONNREFUSED): is the site running, and is the URL right?\n`);
    }
  });

  it('an HTTPS site whose certificate no client accepts: one error naming the TLS failure, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'check-tls-'));
    try {
      await execFileAsync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]);
      const server = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => res.end('<html></html>'));
      await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
      const url = `https://${LOOPBACK}:${(server.address() as AddressInfo).port}/`;
      try {
        const { code, out, err } = await check([url]);
        assert.equal(code, 1);
        assert.equal(out, '');
        assert.match(err, new RegExp(`^express-agent-discovery check: cannot connect to ${url.replace(/[.]/g, '\\.')} \\((?:DEPTH_ZERO_SELF_SIGNED_CERT|ERR_TLS_CERT_ALTNAME_INVALID)\\)`));
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a URL without a scheme: a usage error with the URL it most likely means, exit 2', async () => {
    const port = new URL(plain.origin).port;
    const { code, out, err } = await check([`127.0.0.1:${port}`]);
    assert.equal(code, 2);
    assert.equal(out, '');
    assert.match(err, new RegExp(`^express-agent-discovery check: not a URL: "127\\.0\\.0\\.1:${port}" \\(did you mean http://127\\.0\\.0\\.1:${port}/\\?\\)`));
    const bare = await check(['example.org']);
    assert.equal(bare.code, 2);
    assert.match(bare.err, /not a URL: "example\.org" \(did you mean https:\/\/example\.org\/\?\)/);
    const junk = await check(['not a url']);
    assert.doesNotMatch(junk.err, /did you mean/);
  });
});
