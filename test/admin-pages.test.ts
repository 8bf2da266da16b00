import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createServer, get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';
import request from 'supertest';
import { sql } from 'kysely';
import { createAgentDiscovery } from '../src/index.js';
import { openDemoDatabase } from './support/demo.js';
import { Migrator } from 'kysely/migration';
import { backends, surfaceBackends, type TestDatabase } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { createExampleSite } from '../example-site/app.js';
import { adminCookie } from '../example-site/session.js';
import { DEMO } from '../example-site/seed.js';
import { seedDemoContent } from '../example-site/seed.js';
import { migrations } from '../migrations/index.js';
import { assertContentSchema } from '../src/db/schema-check.js';
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE } from '../src/db/migrator.js';
import { openDatabase } from '../src/db/connection.js';
import { CSRF_COOKIE } from '../src/admin/csrf.js';
import { adminBytes, adminDate } from '../src/admin/admin-format.js';
import { resolveOptions } from '../src/options.js';

/** A form page's CSRF cookie and token, as a browser would hold them. */
async function formSession(base: string, admin: string, path: string): Promise<{ cookie: string; token: string }> {
  const res = await fetch(`${base}${path}`, { headers: { cookie: admin } });
  assert.equal(res.status, 200);
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${CSRF_COOKIE}=`));
  assert.ok(set, 'the form page sets the CSRF cookie');
  assert.match(set, /HttpOnly/);
  assert.match(set, /SameSite=Strict/);
  assert.match(set, /Path=\/admin\/agent/);
  const token = /name="_csrf" value="([^"]+)"/.exec(await res.text())?.[1];
  assert.ok(token, 'the form carries the token');
  return { cookie: `${admin}; ${set.split(';')[0]}`, token };
}

/** A JSON response body, as tests read it. */
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

const post = (base: string, path: string, cookie: string, fields: Record<string, string>) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

const settingsFields = (token: string, extra: Record<string, string> = {}) => ({
  _csrf: token,
  description_source: 'options',
  description: '',
  noindex: 'options',
  sitemapUrl_source: 'options',
  sitemapUrl: '',
  llmsNotes_source: 'options',
  llmsNotes: '',
  ...extra,
});

for (const backend of surfaceBackends) {
  describe(`agent admin pages (${backend.name})`, () => {
    let running: RunningSite;
    let content: TestDatabase;
    let base: string;
    let admin: string;
    before(async () => {
      running = await startExampleSite(backend);
      ({ content, origin: base } = running);
      admin = adminCookie(running.site.session);
    });
    after(() => running?.close());

    it('anonymous visitors and forged cookies get the site\'s own 404 on every admin URL, GET and POST', async () => {
      const missing = await fetch(`${base}/no/such/page`);
      const expected = await missing.text();
      for (const path of ['/admin/agent', '/admin/agent/', '/admin/agent/resource?ref=welcome', '/admin/agent/verify', '/admin/agent/settings', '/admin/resources', '/admin/resources/5']) {
        for (const cookie of [undefined, 'example_session=admin.forged']) {
          const res = await fetch(`${base}${path}`, { headers: cookie ? { cookie } : {} });
          assert.equal(res.status, 404, path);
          assert.equal(await res.text(), expected, `${path} looks like a missing page`);
        }
        const res = await post(base, path, '', { _csrf: 'x' });
        assert.equal(res.status, 404, `POST ${path}`);
      }
    });

    it('the overview shows the effective settings with their source, live documents, counts and the newest resources', async () => {
      const res = await fetch(`${base}/admin/agent/`, { headers: { cookie: admin } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const html = await res.text();
      assert.match(html, /<td>Description<\/td><td>Articles, guides and photographs about the old harbour, in English and Dutch\.<\/td><td class="nowrap">options \(code\)<\/td>/);
      assert.match(html, /<td>Site noindex<\/td><td>no<\/td><td class="nowrap">default<\/td>/);
      for (const path of ['/llms.txt', '/api-help', '/openapi.json', '/.well-known/api-catalog', '/.well-known/ard.json', '/api/agent']) {
        assert.match(html, new RegExp(`>${path.replace(/\./g, '\\.')}</a></td><td class="ok">OK: 200<`), path);
      }
      const search = await getJson(`${base}/api/agent/search?sort=newest&pagelen=10`);
      const first = search.result.items[0];
      assert.ok(html.includes(`>${first.title}</a>`), 'the newest resource as search lists it');
      assert.ok(!html.includes('SECRET'), 'nothing private is listed');
      const listed = Number(/id="count-listed">(\d+)</.exec(html)?.[1]);
      const visible = Number(/id="count-public">(\d+)</.exec(html)?.[1]);
      const indexable = Number(/id="count-indexable">(\d+)</.exec(html)?.[1]);
      assert.ok(listed > 300 && indexable >= listed && visible > indexable, `${visible} ≥ ${indexable} ≥ ${listed}`);
      const [{ n }] = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM rsc WHERE is_published AND visibility = 'public' AND publication_start <= now() AND (publication_end IS NULL OR publication_end > now())`.execute(content.db)).rows as [{ n: number }];
      assert.equal(visible, n);
    });

    it('without baseUrl, the overview asks the app in-process: a foreign Host is never fetched', async () => {
      // A listener on another port stands for the address a forged Host names: it must see no connection.
      let connections = 0;
      const bait = createServer((_req, res) => res.end('bait')).on('connection', () => void (connections += 1));
      await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve));
      try {
        const foreign = `127.0.0.1:${(bait.address() as AddressInfo).port}`;
        const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          httpGet(`${base}/admin/agent/`, { headers: { cookie: admin, host: foreign } }, (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, body: text }));
          }).on('error', reject);
        });
        assert.equal(status, 200);
        assert.match(body, /id="checked-via">Asked of this app now, in-process/);
        for (const path of ['/llms.txt', '/openapi.json', '/.well-known/api-catalog', '/api/agent']) {
          assert.match(body, new RegExp(`href="http://${foreign}${path.replace(/\./g, '\\.')}">${path.replace(/\./g, '\\.')}</a></td><td class="ok">OK: 200<`), `${path} answered by the app itself`);
        }
        assert.ok(!body.includes('bait'));
        assert.equal(connections, 0, 'no connection to the address the Host header names');
      } finally {
        await new Promise((resolve) => bait.close(resolve));
      }
    });

    it('the inspector gives each reason, the advertised links and the Markdown preview', async () => {
      const inspect = async (ref: string) => {
        const res = await fetch(`${base}/admin/agent/resource?ref=${ref}`, { headers: { cookie: admin } });
        return { status: res.status, html: await res.text() };
      };
      const priv = await inspect(DEMO.private);
      assert.equal(priv.status, 200);
      assert.match(priv.html, /Anonymous-visible: <strong class="bad">no/);
      assert.match(priv.html, /private: its visibility is &quot;members&quot;, not &quot;public&quot;/);
      assert.match(priv.html, /id="no-markdown"/);
      assert.ok(!/rel<\/th>[\s\S]*<td>alternate<\/td>/.test(priv.html), 'no alternates for a private resource');

      const press = await inspect(DEMO.pressRelease);
      assert.match(press.html, /Anonymous-visible: <strong class="ok">yes/);
      assert.match(press.html, /Indexable: <strong class="bad">no/);
      assert.match(press.html, /category noindex: its category &quot;press_release&quot; \(\d+\) is noindex/);

      for (const [ref, why] of [
        [DEMO.unpublished, /<li>not published<\/li>/],
        [DEMO.scheduled, /before its window: publication starts \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC<\/li>/],
        [DEMO.expired, /after its window: publication ended \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC<\/li>/],
        [DEMO.noindex, /resource noindex: the resource itself is marked noindex/],
      ] as const) {
        assert.match((await inspect(ref)).html, why, ref);
      }

      const pub = await inspect(DEMO.welcome);
      assert.match(pub.html, /Anonymous-visible: <strong class="ok">yes/);
      assert.match(pub.html, /Indexable: <strong class="ok">yes/);
      assert.match(pub.html, /Listed in search and llms\.txt: <strong>yes/);
      assert.match(pub.html, /<td>alternate<\/td><td>text\/markdown<\/td>/);
      assert.match(pub.html, /<td>alternate<\/td><td>application\/json<\/td>/);
      assert.match(pub.html, /content_complete: <strong>true<\/strong>/);
      assert.match(pub.html, /<pre id="markdown-preview">---\ntitle: &quot;Welcome to the example site&quot;/);
      assert.match(pub.html, /<a href="http:\/\/127\.0\.0\.1:\d+\/api\/agent\/resource\/\d+\?language=en">JSON read<\/a>/);

      const showcase = await inspect(DEMO.blocks);
      assert.match(showcase.html, /<ul id="omissions"><li>\[Omitted: unsupported block type &quot;gallery&quot;\]<\/li>/);

      assert.equal((await inspect('no_such_resource')).status, 404);
      const bad = await inspect('Not%20A%20Ref');
      assert.equal(bad.status, 400);
      assert.match(bad.html, /is not a resource id, name or page URL: enter a number, a name such as about_us, or a page URL such as http:\/\/127\.0\.0\.1:\d+\/en\/page\/12\./);
    });

    it('the inspector takes a page URL, names a missing language, links the human page, and lists and searches what agents can find', async () => {
      const inspect = async (query: string) => {
        const res = await fetch(`${base}/admin/agent/resource?${query}`, { headers: { cookie: admin } });
        return { status: res.status, html: await res.text() };
      };
      const welcome = (await getJson(`${base}/api/agent/resource/${DEMO.welcome}?language=nl`)).result;
      // A page URL, absolute or root-relative, in the language of the URL.
      for (const ref of [welcome.page_url, new URL(welcome.page_url).pathname, `${welcome.page_url}/?utm=x`]) {
        const byUrl = await inspect(`ref=${encodeURIComponent(ref)}`);
        assert.equal(byUrl.status, 200, ref);
        assert.match(byUrl.html, new RegExp(`\\(id ${welcome.id}, name ${DEMO.welcome},`), ref);
        assert.match(byUrl.html, /content_complete: <strong>true<\/strong> \(language nl\)/, ref);
        assert.ok(byUrl.html.includes(`Human page (nl): <a id="human-page" href="${welcome.page_url}">`), ref);
        assert.doesNotMatch(byUrl.html, /id="language-note"/);
      }
      // The plugin's entity URL carries the id: found, and said how.
      const byEntity = await inspect(`ref=${encodeURIComponent(`/id/${welcome.id}`)}`);
      assert.match(byEntity.html, new RegExp(`\\(id ${welcome.id}, name ${DEMO.welcome},`));
      assert.match(byEntity.html, new RegExp(`id="url-note">No resource has exactly this page URL; &quot;${welcome.id}&quot; in it names the resource shown`));
      const elsewhere = await inspect(`ref=${encodeURIComponent('https://elsewhere.example/en/page/1')}`);
      assert.equal(elsewhere.status, 400);
      assert.match(elsewhere.html, /https:\/\/elsewhere\.example\/en\/page\/1 is not a page of this site: its pages are on http:\/\/127\.0\.0\.1:\d+\./);
      const nowhere = await inspect(`ref=${encodeURIComponent('/en/no-such-page')}`);
      assert.equal(nowhere.status, 404);
      assert.match(nowhere.html, /No resource has the page URL http:\/\/127\.0\.0\.1:\d+\/en\/no-such-page/);

      // A language the resource lacks is said, by name and by its English page URL alike.
      const dutch = (await getJson(`${base}/api/agent/resource/${DEMO.dutchOnly}?language=nl`)).result;
      for (const query of [`ref=${DEMO.dutchOnly}&language=en`, `ref=${encodeURIComponent(dutch.page_url.replace('/nl/', '/en/'))}`]) {
        const page = await inspect(query);
        assert.match(page.html, /<p role="note" class="notice" id="language-note">This resource has no en version; showing nl\.<\/p>/, query);
        assert.ok(page.html.includes(`Human page (nl): <a id="human-page" href="${dutch.page_url}">`), query);
      }
      assert.doesNotMatch((await inspect(`ref=${DEMO.dutchOnly}&language=nl`)).html, /id="language-note"/);

      // Nothing entered: the newest resources agents can find, paged, as the search API lists them.
      const listed = (html: string) => [...html.matchAll(/<tr><td><a href="\/admin\/agent\/resource\?ref=(\d+)">/g)].map((m) => Number(m[1]));
      const first = await inspect('');
      assert.equal(first.status, 200);
      const api = (await getJson(`${base}/api/agent/search?sort=newest&pagelen=20`)).result;
      assert.deepEqual(listed(first.html), api.items.map((i: { id: number }) => i.id));
      assert.match(first.html, /<td class="nowrap">\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC<\/td>/);
      assert.match(first.html, /<a rel="next" href="\/admin\/agent\/resource\?page=2">Older<\/a>/);
      const second = await inspect('page=2');
      const api2 = (await getJson(api.next_url)).result;
      assert.deepEqual(listed(second.html), api2.items.map((i: { id: number }) => i.id));
      assert.match(second.html, /<a rel="prev" href="\/admin\/agent\/resource\?page=1">Newer<\/a>/);
      // A search, by the search API's own rules: nothing private, however it matches.
      const found = await inspect('text=harbour');
      const apiFound = (await getJson(`${base}/api/agent/search?text=harbour&sort=newest&pagelen=20`)).result;
      assert.ok(apiFound.items.length > 0);
      assert.deepEqual(listed(found.html), apiFound.items.map((i: { id: number }) => i.id));
      const privateId = (await inspect(`ref=${DEMO.private}`)).html.match(/\(id (\d+),/)?.[1];
      const secret = await inspect('text=SECRET');
      assert.ok(privateId && !listed(secret.html).includes(Number(privateId)), 'a private resource is never listed');
      assert.match(secret.html, /id="no-results">No resource agents can find matches “SECRET”/);
    });

    it('the admin pages load their own stylesheet under a CSP without inline styles or scripts, with readable sizes and a way back', async () => {
      const res = await fetch(`${base}/admin/agent/`, { headers: { cookie: admin } });
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /style-src 'self'(;|$)/);
      assert.doesNotMatch(csp, /unsafe-inline|script-src/);
      const html = await res.text();
      assert.doesNotMatch(html, /<style|<script|style="/);
      const href = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1];
      assert.equal(href, '/admin/agent/agent-admin.css');
      const css = await fetch(`${base}${href}`, { headers: { cookie: admin } });
      assert.equal(css.status, 200);
      assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
      assert.match(await css.text(), /\.nowrap\{white-space:nowrap/);
      assert.equal((await fetch(`${base}${href}`)).status, 404, 'anonymous visitors get 404 for the stylesheet too');
      // Sizes in binary units that do not wrap; the way back to the site and the host's admin; the plans page.
      const sizes = [...html.matchAll(/<td class="nowrap num" title="(\d+) bytes">([^<]+)<\/td>/g)];
      assert.ok(sizes.length >= 6, 'every document has its size');
      for (const [, bytes, shown] of sizes) assert.equal(shown, Number(bytes) < 1024 ? `${bytes} bytes` : `${(Number(bytes) / 1024).toFixed(1)} KiB`);
      assert.match(html, /<a href="http:\/\/127\.0\.0\.1:\d+\/">Back to the site<\/a>/);
      assert.match(html, /<a href="\/admin\/resources">Edit resources<\/a>/);
      assert.match(html, /<a href="\/admin\/agent\/plans">Query plans<\/a>/);
      assert.match(html, /<time datetime="\d{4}-\d{2}-\d{2}T[^"]+">\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC<\/time>/);
      assert.doesNotMatch(html.replace(/datetime="[^"]+"/g, ''), /\d{2}:\d{2}:\d{2}\.\d{3}Z/, 'no raw ISO dates shown');
    });

    it('a POST without the CSRF token, with a wrong one or without the cookie is refused with 403', async () => {
      const { cookie, token } = await formSession(base, admin, '/admin/agent/settings');
      const cases: Array<[string, string, Record<string, string>, RegExp]> = [
        ['no token', cookie, settingsFields(''), /the form carries no CSRF token/],
        ['wrong token', cookie, settingsFields(`${token.slice(0, -2)}AA`), /CSRF token does not match/],
        ['no cookie', admin, settingsFields(token), /CSRF cookie is missing/],
      ];
      for (const [name, c, fields, message] of cases) {
        const res = await post(base, '/admin/agent/settings', c, { ...fields, description_source: 'site', description: 'CSRF-ATTACK' });
        assert.equal(res.status, 403, name);
        assert.match(await res.text(), message, name);
      }
      const verify = await post(base, '/admin/agent/verify', cookie, {});
      assert.equal(verify.status, 403);
      const crossSite = await fetch(`${base}/admin/agent/settings`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
        body: new URLSearchParams(settingsFields(token)).toString(),
      });
      assert.equal(crossSite.status, 403);
      assert.ok(!(await (await fetch(`${base}/llms.txt`)).text()).includes('CSRF-ATTACK'));
    });

    it('settings are validated: a 2 MB description is refused naming the field, and nothing is stored', async () => {
      const { cookie, token } = await formSession(base, admin, '/admin/agent/settings');
      const res = await post(base, '/admin/agent/settings', cookie, settingsFields(token, { description_source: 'site', description: 'x'.repeat(2 * 1024 * 1024) }));
      assert.equal(res.status, 400);
      const html = await res.text();
      assert.match(html, /The settings were not saved/);
      assert.match(html, /<li>Description must be at most 1000 characters \(got 2097152\)<\/li>/);
      assert.ok(html.length < 20_000, 'the 2 MB value is not echoed back whole');
      const bad = await post(base, '/admin/agent/settings', cookie, settingsFields(token, { sitemapUrl_source: 'site', sitemapUrl: 'javascript:alert(1)' }));
      assert.equal(bad.status, 400);
      assert.match(await bad.text(), /<li>Sitemap URL must be a path on this site/);
      const huge = await post(base, '/admin/agent/settings', cookie, settingsFields(token, { description: 'x'.repeat(5 * 1024 * 1024) }));
      assert.equal(huge.status, 413);
      assert.match(await huge.text(), /The form is larger than 4 MiB/);
      assert.equal((await running.site.agent.settings()).source.description, 'options');
    });

    it('a saved setting applies to the next request of llms.txt, API help, ARD, OpenAPI and the API root; site noindex hides every listing', async () => {
      const { cookie, token } = await formSession(base, admin, '/admin/agent/settings');
      const description = 'Harbour history, set at run time by the administrator.';
      const notes = 'Cite the page_url of each resource. Set on the admin page.';
      const res = await post(base, '/admin/agent/settings', cookie, settingsFields(token, { description_source: 'site', description, llmsNotes_source: 'site', llmsNotes: notes, sitemapUrl_source: 'site', sitemapUrl: '' }));
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/admin/agent/settings?saved=1');
      const llms = await (await fetch(`${base}/llms.txt`)).text();
      assert.match(llms, new RegExp(`^> ${description.replace(/\./g, '\\.')}$`, 'm'));
      assert.ok(llms.includes(notes.replace('_', '\\_')), 'the notes, as plain text escaped for Markdown');
      assert.ok(!llms.includes('sitemap.xml'), 'the sitemap is unset at run time');
      assert.ok((await (await fetch(`${base}/api-help`)).text()).includes(description));
      assert.ok((await getJson(`${base}/.well-known/ard.json`)).entries[0].description.startsWith(description));
      assert.ok((await getJson(`${base}/openapi.json`)).info.description.includes(description));
      assert.ok((await getJson(`${base}/api/agent`)).result.description.startsWith(description));
      const page = await fetch(`${base}/admin/agent/settings?saved=1`, { headers: { cookie } });
      assert.match(await page.text(), /Settings saved/);

      // Site noindex at run time: nothing listed or advertised, direct reads still work.
      const noindex = await post(base, '/admin/agent/settings', cookie, settingsFields(token, { noindex: 'yes' }));
      assert.equal(noindex.status, 303);
      const search = await getJson(`${base}/api/agent/search`);
      assert.deepEqual(search.result.items, []);
      const llms2 = await (await fetch(`${base}/llms.txt`)).text();
      assert.ok(!/\/agent\/resource\/\d+\/markdown/.test(llms2), 'no newest resources');
      const welcome = (await getJson(`${base}/api/agent/resource/${DEMO.welcome}`)).result;
      const pageRes = await fetch(`${base}/en/page/${welcome.id}`);
      assert.ok(!/rel="alternate"/.test(pageRes.headers.get('link') ?? ''));
      assert.ok(!(await (await fetch(`${base}/sitemap.xml`)).text()).includes('/page/'));
      const inspected = await (await fetch(`${base}/admin/agent/resource?ref=${DEMO.welcome}`, { headers: { cookie: admin } })).text();
      assert.match(inspected, /site noindex: the whole site is noindex \(setting from database\)/);

      // Back to the options.
      assert.equal((await post(base, '/admin/agent/settings', cookie, settingsFields(token))).status, 303);
      assert.match(await (await fetch(`${base}/llms.txt`)).text(), /^> Articles, guides and photographs/m);
      assert.ok((await getJson(`${base}/api/agent/search`)).result.items.length > 0);
    });

    it('the site\'s resource editor refuses a POST without its CSRF token and saves one with it', async () => {
      const id = (await getJson(`${base}/api/agent/resource/${DEMO.about}`)).result.id;
      const page = await fetch(`${base}/admin/resources/${id}`, { headers: { cookie: admin } });
      const html = await page.text();
      const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
      assert.ok(token);
      const fields = Object.fromEntries([...html.matchAll(/name="([a-z_]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&')]));
      const form = { ...fields, category_id: /<option value="(\d+)" selected>/.exec(html)![1]!, is_published: 'on', title_en: 'About this site, edited' };
      const refused = await post(base, `/admin/resources/${id}`, admin, { ...form, _csrf: '' });
      assert.equal(refused.status, 403);
      assert.match(await refused.text(), /CSRF token/);
      const saved = await post(base, `/admin/resources/${id}`, admin, { ...form, _csrf: token });
      assert.equal(saved.status, 303);
      assert.equal((await getJson(`${base}/api/agent/resource/${id}`)).result.title, 'About this site, edited');
    });

    it('Verify runs every check against the live site: a readiness score, the private and noindex resources confirmed hidden, a fix for every failure', async () => {
      const { cookie, token } = await formSession(base, admin, '/admin/agent/verify');
      const res = await post(base, '/admin/agent/verify', cookie, { _csrf: token, private: DEMO.private, noindex: DEMO.noindex });
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /<p role="status" id="summary"><strong id="score">Readiness score \d{1,3}\/100\.<\/strong>/);
      for (const id of [`private:${DEMO.private}`, `noindex:${DEMO.noindex}`]) {
        assert.match(html, new RegExp(`<tr id="check-${id}"><td>[^<]*not advertised</td><td class="ok">passed</td>`), id);
      }
      // This site on 127.0.0.1 has findings of its own (a placeholder ARD publisher, no Content Signals): each says its fix.
      const rows = [...html.matchAll(/<tr id="check-[^"]+">(.*?)<\/tr>/g)].map((m) => m[1]!);
      assert.ok(rows.length > 10);
      for (const row of rows.filter((r) => r.includes('<td class="bad">failed</td>'))) assert.match(row, /<td>[^<]{20,}<\/td>$/, row);
    });
  });
}

describe('settings schema', () => {
  it('a database migrated by the previous version is reported as older, naming the settings migration', async () => {
    const content = await openDatabase({ memory: true });
    try {
      const migrator = new Migrator({ db: content.db, provider: { getMigrations: async () => migrations }, migrationTableName: MIGRATION_TABLE, migrationLockTableName: MIGRATION_LOCK_TABLE });
      await migrator.migrateTo('0001_content_schema');
      await assert.rejects(assertContentSchema(content.db, 'dataDir'), /content schema is older than this version of the package; migrations not applied: 0002_agent_settings, /);
    } finally {
      await content.close();
    }
  });

  it('a database whose settings table was dropped fails at start, naming the table and the fix (never a failing statement per request)', async () => {
    const content = await backends[0]!.open();
    try {
      await seedDemoContent(content.db);
      await sql`DROP TABLE agent_discovery_settings`.execute(content.db);
      await assert.rejects(
        createExampleSite({ database: { kysely: content.db }, seed: false }),
        /the plugin's own table agent_discovery_settings is missing although its migration is recorded.*delete its row from agent_discovery_migration/,
      );
    } finally {
      await content.close();
    }
  });
});

describe(`the admin router in an Express 4 host [${surfaceBackends[0]!.name}]`, () => {
  it('answers the administrator, 404s everyone else, and refuses a POST without the token', async () => {
    const express4 = createRequire(import.meta.url)('express4') as () => express.Express;
    const demo = await openDemoDatabase(surfaceBackends[0]!);
    try {
      const agent = await createAgentDiscovery({ siteTitle: 'Express 4 host', languages: ['en', 'nl'], baseUrl: 'https://four.example', database: { kysely: demo.db }, isAdmin: async (req) => req.get('x-test-admin') === 'yes' });
      const app = express4();
      app.use('/admin/agent', agent.adminRouter);
      app.use((_req, res) => res.status(404).type('text').send('host 404'));
      const anon = await request(app).get(`/admin/agent/resource?ref=${DEMO.private}`);
      assert.equal(anon.status, 404);
      assert.equal(anon.text, 'host 404');
      const inspected = await request(app).get(`/admin/agent/resource?ref=${DEMO.private}`).set('x-test-admin', 'yes');
      assert.equal(inspected.status, 200);
      assert.match(inspected.text, /private: its visibility is &quot;members&quot;/);
      const refused = await request(app).post('/admin/agent/settings').set('x-test-admin', 'yes').type('form').send({ noindex: 'yes' });
      assert.equal(refused.status, 403);
      assert.equal((await agent.settings()).noindex, false);
      await agent.close();
    } finally {
      await demo.close();
    }
  });
});

describe('what the admin pages show people', () => {
  it('dates in UTC to the minute, sizes in binary units; nothing invented for a missing or unreadable date', () => {
    assert.equal(adminDate('2026-12-01T10:44:07.123Z'), '1 Dec 2026, 10:44 UTC');
    assert.equal(adminDate(new Date(Date.UTC(2026, 0, 9, 0, 5, 59))), '9 Jan 2026, 00:05 UTC');
    assert.equal(adminDate('2026-09-02T23:59:00Z'), '2 Sep 2026, 23:59 UTC');
    assert.equal(adminDate(null), '');
    assert.equal(adminDate(undefined), '');
    assert.equal(adminDate('not a date'), 'not a date');
    assert.deepEqual([0, 1, 1023, 1024, 3096, 1024 * 1024 - 1, 5 * 1024 * 1024].map(adminBytes), ['0 bytes', '1 byte', '1023 bytes', '1.0 KiB', '3.0 KiB', '1024.0 KiB', '5.0 MiB']);
  });

  it('adminLinks takes root-relative and http(s) links, and refuses anything else naming the option', () => {
    const base = { siteTitle: 'T', database: { memory: true } as const };
    assert.deepEqual(resolveOptions({ ...base, adminLinks: [{ label: ' Edit ', href: '/admin' }, { label: 'CMS', href: 'https://cms.example/' }] }).adminLinks, [
      { label: 'Edit', href: '/admin' },
      { label: 'CMS', href: 'https://cms.example/' },
    ]);
    assert.deepEqual(resolveOptions(base).adminLinks, []);
    for (const [links, message] of [
      [[{ label: 'x', href: 'javascript:alert(1)' }], /option "adminLinks\[0\]\.href": expected a root-relative path/],
      [[{ label: 'x', href: '//evil.example/' }], /option "adminLinks\[0\]\.href"/],
      [[{ label: '', href: '/a' }], /option "adminLinks\[0\]\.label"/],
      [Array.from({ length: 11 }, () => ({ label: 'x', href: '/a' })), /option "adminLinks"/],
    ] as const) {
      assert.throws(() => resolveOptions({ ...base, adminLinks: links }), message);
    }
  });
});
