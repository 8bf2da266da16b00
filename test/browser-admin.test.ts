import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkip, launchChromium, saveScreenshot } from './support/chromium.js';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { DEMO } from '../example-site/seed.js';

/** The one DOM function these tests call inside the page (the test project is compiled without DOM types). */
declare const getComputedStyle: (element: unknown) => { display: string; whiteSpace: string };

/** Where the screenshots of the admin pages go (gitignored: look at them, do not commit them). */
const ARTIFACTS = path.join('test-artifacts', 'admin');

/** A JSON response body, as tests read it. */
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

// The administrator's view in a real browser, without JavaScript: sign in, reach the agent admin pages
// from the site's navigation, read the inspector's reasons, change a setting, run Verify; anonymous
// visitors get 404. Then the site's own editor makes a resource private and agents lose it at once.
for (const backend of surfaceBackends) {
  describe(`the administrator in a real browser (Debian Chromium, ${backend.name})`, { skip: chromiumSkip }, () => {
    let running: RunningSite;
    let base: string;
    let browser: Browser;
    let page: Page;
    /** Console messages of the admin's tab (a CSP violation is reported there, even with JavaScript off). */
    const consoleMessages: string[] = [];
    const screenshot = (name: string) => saveScreenshot(page, path.join(ARTIFACTS, `${backend.name.toLowerCase()}-${name}.png`));
    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      running = await startExampleSite(backend);
      base = running.origin;
      const { site } = running;
      browser = await launchChromium();
      const context = await browser.newContext({ javaScriptEnabled: false });
      page = await context.newPage();
      page.on('console', (m) => consoleMessages.push(`${m.type()}: ${m.text()}`));
      await page.goto(`${base}/login`);
      await page.getByLabel('Password').fill(site.session.adminPassword);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/`);
    });
    after(async () => {
      await browser?.close();
      await running?.close();
    });

    it('the home page shows no API links in its body (they are in <head>); the admin area shows API help', async () => {
      const bodyLinks = await page.locator('body a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
      assert.ok(!bodyLinks.some((href) => /\/api|llms|openapi/.test(href)), bodyLinks.join(' '));
      assert.equal(await page.locator('head link[rel="service-doc"]').getAttribute('href'), `${base}/api-help`);
      await page.getByRole('link', { name: 'Agent discovery' }).click();
      await page.waitForURL(`${base}/admin/agent/`);
      assert.equal(await page.getByRole('link', { name: 'API help' }).getAttribute('href'), `${base}/api-help`);
      assert.match(await page.locator('main').innerText(), /Effective settings/);
    });

    it('the inspector explains a private, a noindex-category and a public resource', async () => {
      const inspect = async (ref: string) => {
        await page.getByRole('link', { name: 'Resource inspector' }).click();
        await page.getByLabel('Resource id, name or page URL').fill(ref);
        await page.getByRole('button', { name: 'Inspect' }).click();
        await page.waitForURL(/\/admin\/agent\/resource\?ref=/);
        return page.locator('main').innerText();
      };
      const priv = await inspect(DEMO.private);
      assert.match(priv, /Anonymous-visible: no/);
      assert.match(priv, /private: its visibility is "members", not "public"/);
      assert.match(priv, /Agents get 404 for this resource/);
      const press = await inspect(DEMO.pressRelease);
      assert.match(press, /Anonymous-visible: yes/);
      assert.match(press, /Indexable: no/);
      assert.match(press, /category noindex: its category "press_release" \(\d+\) is noindex/);
      const pub = await inspect(DEMO.welcome);
      assert.match(pub, /Anonymous-visible: yes/);
      assert.match(pub, /Indexable: yes/);
      assert.match(pub, /content_complete: true/);
      const markdownLink = await page.getByRole('link', { name: 'Markdown read' }).getAttribute('href');
      assert.match(markdownLink ?? '', /\/agent\/resource\/\d+\/markdown\?language=en$/);
      const alternates = await page.locator('td', { hasText: 'text/markdown' }).count();
      assert.ok(alternates >= 1, 'the Markdown alternate is advertised');
    });

    it('the inspector takes a page URL, says a missing language, links the human page, and lists and searches resources', async () => {
      const dutch = (await getJson(`${base}/api/agent/resource/${DEMO.dutchOnly}?language=nl`)).result;
      await page.goto(`${base}/admin/agent/`);
      await page.getByRole('link', { name: 'Resource inspector' }).click();
      // Nothing entered: the newest resources, paged, and a search box.
      const api = (await getJson(`${base}/api/agent/search?sort=newest&pagelen=20`)).result;
      const titles = await page.locator('#resource-list tbody tr td:first-child').allInnerTexts();
      assert.deepEqual(titles, api.items.map((i: { title: string }) => i.title));
      await screenshot('inspector-list');
      await page.getByRole('link', { name: 'Older' }).click();
      await page.waitForURL(/\/admin\/agent\/resource\?page=2$/);
      assert.equal(await page.locator('#resource-list tbody tr').count(), 20);
      await page.getByLabel('Search resources').fill('harbour');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/\/admin\/agent\/resource\?text=harbour$/);
      const found = (await getJson(`${base}/api/agent/search?text=harbour&sort=newest&pagelen=20`)).result.items.map((i: { title: string }) => i.title);
      assert.deepEqual(await page.locator('#resource-list tbody tr td:first-child').allInnerTexts(), found);
      await screenshot('inspector-search');
      // A result opens the inspection; then a page URL of the site (its English form) as the admin copied it.
      await page.getByRole('link', { name: found[0] }).click();
      await page.waitForURL(/\/admin\/agent\/resource\?ref=\d+$/);
      assert.match(await page.locator('h2').first().innerText(), new RegExp(found[0]));
      await page.getByLabel('Resource id, name or page URL').fill(dutch.page_url.replace('/nl/', '/en/'));
      await page.getByRole('button', { name: 'Inspect' }).click();
      await page.waitForURL(/\/admin\/agent\/resource\?ref=http/);
      assert.equal(await page.locator('#language-note').innerText(), 'This resource has no en version; showing nl.');
      assert.equal(await page.locator('#human-page').getAttribute('href'), dutch.page_url);
      await screenshot('inspector-language');
      await page.locator('#human-page').click();
      await page.waitForURL(dutch.page_url);
      assert.equal(await page.locator('h1').innerText(), dutch.title);
      // By name.
      await page.goto(`${base}/admin/agent/resource`);
      await page.getByLabel('Resource id, name or page URL').fill(DEMO.blocks);
      await page.getByRole('button', { name: 'Inspect' }).click();
      await page.waitForURL(new RegExp(`ref=${DEMO.blocks}$`));
      assert.match(await page.locator('#omissions').innerText(), /unsupported block type "gallery"/);
      await screenshot('inspector-resource');
    });

    it('every admin page loads its stylesheet under the CSP (no violation), shows readable dates, sizes that do not wrap and the way back', async () => {
      consoleMessages.length = 0;
      const pages = [
        ['overview', '/admin/agent/', 200],
        ['settings', '/admin/agent/settings', 200],
        ['verify', '/admin/agent/verify', 200],
        ['plans', '/admin/agent/plans', 200],
        ['inspector-problem', '/admin/agent/resource?ref=Not%20a%20page', 400],
      ] as const;
      for (const [name, url, status] of pages) {
        const res = await page.goto(`${base}${url}`);
        assert.equal(res?.status(), status, url);
        assert.match(res?.headers()['content-security-policy'] ?? '', /style-src 'self'/);
        // The stylesheet applied (no inline style exists to do it otherwise).
        assert.equal(await page.locator('nav.site-bar').evaluate((el) => getComputedStyle(el).display), 'flex', `${url}: the admin stylesheet is applied`);
        await screenshot(name);
      }
      assert.deepEqual(consoleMessages.filter((m) => /Content Security Policy|Refused/i.test(m)), []);
      await page.goto(`${base}/admin/agent/`);
      const size = page.locator('td.num.nowrap').first();
      assert.match(await size.innerText(), /^\d+(\.\d)? (bytes|KiB)$/);
      assert.equal(await size.evaluate((el) => getComputedStyle(el).whiteSpace), 'nowrap');
      const date = await page.locator('time').first().innerText();
      assert.match(date, /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC$/);
      // The way back: the site, and the site's own admin navigation.
      await page.getByRole('link', { name: 'Edit resources' }).click();
      await page.waitForURL(`${base}/admin/resources`);
      await page.getByRole('link', { name: 'Agent discovery', exact: true }).click();
      await page.waitForURL(`${base}/admin/agent/`);
      await page.getByRole('link', { name: 'Back to the site' }).click();
      await page.waitForURL(`${base}/`);
    });

    it('the Block showcase page shows humans the callout, the gallery and the poll', async () => {
      const showcase = (await getJson(`${base}/api/agent/resource/${DEMO.blocks}`)).result;
      const anon = await browser.newPage();
      await anon.goto(showcase.page_url);
      assert.match(await anon.locator('aside.callout').innerText(), /Tip\s+Visit at dawn\./);
      assert.equal(await anon.locator('.gallery img').count(), 2);
      for (const img of await anon.locator('.gallery img').all()) assert.ok(await img.evaluate((el) => {
        const image = el as unknown as { complete: boolean; naturalWidth: number };
        return image.complete && image.naturalWidth > 0;
      }), 'the gallery image loads');
      assert.match(await anon.locator('section.poll').innerText(), /Do you like harbours\?[\s\S]*yes[\s\S]*no/);
      await saveScreenshot(anon, path.join(ARTIFACTS, `${backend.name.toLowerCase()}-block-showcase.png`));
      await anon.close();
    });

    it('a description changed in Settings is in /llms.txt on the next request', async () => {
      await page.goto(`${base}/admin/agent/`);
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.locator('input[name="description_source"][value="site"]').check();
      await page.getByLabel('Description', { exact: true }).fill('Changed in the browser: harbour stories for agents.');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForURL(/\/admin\/agent\/settings\?saved=1$/);
      assert.match(await page.getByRole('status').innerText(), /Settings saved/);
      const llms = await (await fetch(`${base}/llms.txt`)).text();
      assert.match(llms, /^> Changed in the browser: harbour stories for agents\.$/m);
      await page.goto(`${base}/`);
      assert.equal(await page.locator('main p').first().innerText(), 'Changed in the browser: harbour stories for agents.', 'the home page shows the description in force');
    });

    it('Verify runs the checks against the site and shows the readiness score, the time of the run, each status and every fix', async () => {
      await page.goto(`${base}/admin/agent/`);
      await page.getByRole('link', { name: 'Verify' }).click();
      await page.getByRole('button', { name: 'Run the checks' }).click();
      await page.waitForSelector('#summary');
      await screenshot('verify-report');
      // The site on 127.0.0.1 without Content Signals has findings of its own; what matters here is a
      // readable report: the score, the time of the run, a status for every check and a fix for every failure.
      assert.match(await page.locator('#summary').innerText(), /^Readiness score \d{1,3}\/100\./);
      assert.match(await page.locator('#ran-at').innerText(), /^\d{1,2} [A-Z][a-z]+ \d{4}\D+\d{2}:\d{2}:\d{2} UTC$/);
      const results = await page.locator('#checks tbody tr td:nth-child(2)').allInnerTexts();
      assert.ok(results.length > 10);
      assert.ok(results.every((r) => ['passed', 'failed', 'skipped', 'not applicable'].includes(r)), results.join(', '));
      const failedFixes = await page.locator('#checks tbody tr', { has: page.locator('td:nth-child(2)', { hasText: /^failed$/ }) }).locator('td:last-child').allInnerTexts();
      assert.ok(failedFixes.every((fix) => fix.trim().length > 20), 'every failed check says how to fix it');
    });

    it('editing a resource to private in the site\'s editor removes it from search, related, llms.txt and head links at once', async () => {
      const id: number = (await getJson(`${base}/api/agent/resource/${DEMO.englishOnly}`)).result.id;
      const ada = (await getJson(`${base}/api/agent/resource/ada_lovelace`)).result.id;
      const inSearch = async () => (await getJson(`${base}/api/agent/search?text=English`)).result.items.some((i: { id: number }) => i.id === id);
      const inRelated = async () => (await getJson(`${base}/api/agent/related/${ada}?direction=in`)).result.items.some((i: { resource: { id: number } }) => i.resource.id === id);
      const inLlms = async () => (await (await fetch(`${base}/llms.txt`)).text()).includes(`/agent/resource/${id}/markdown`);
      const headAlternates = async () => {
        const anon = await browser.newPage();
        await anon.goto(`${base}/en/page/${id}`);
        const n = await anon.locator('head link[rel="alternate"]').count();
        await anon.close();
        return n;
      };
      assert.deepEqual([await inSearch(), await inRelated(), await inLlms(), await headAlternates()], [true, true, true, 2]);

      await page.goto(`${base}/admin/resources`);
      await page.locator(`a[href="/admin/resources/${id}"]`).click();
      await page.getByLabel('Visibility').fill('members');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(new RegExp(`/admin/resources/${id}\\?saved=1$`));

      assert.deepEqual([await inSearch(), await inRelated(), await inLlms()], [false, false, false]);
      const anon = await browser.newPage();
      const res = await anon.goto(`${base}/en/page/${id}`);
      assert.equal(res?.status(), 404, 'the page itself is gone for anonymous visitors');
      assert.equal(await anon.locator('head link[rel="alternate"]').count(), 0);
      await anon.close();
      assert.equal((await fetch(`${base}/api/agent/resource/${id}`)).status, 404);
      await page.goto(`${base}/admin/agent/resource?ref=${id}`);
      assert.match(await page.locator('main').innerText(), /private: its visibility is "members", not "public"/);
    });

    it('anonymous visitors get 404 on every admin URL', async () => {
      const anon = await browser.newPage();
      for (const path of ['/admin/agent/', '/admin/agent/resource?ref=welcome', '/admin/agent/verify', '/admin/agent/settings', '/admin/resources']) {
        const res = await anon.goto(`${base}${path}`);
        assert.equal(res?.status(), 404, path);
        assert.match(await anon.locator('h1').innerText(), /Not found/);
      }
      await anon.close();
    });
  });
}
