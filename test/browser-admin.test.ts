import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkip, launchChromium } from './support/chromium.js';
import { backends, type TestDatabase } from './support/backends.js';
import { createExampleSite } from '../example-site/app.js';
import { DEMO } from '../example-site/seed.js';

/** A JSON response body, as tests read it. */
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

// The administrator's view in a real browser, without JavaScript: sign in, reach the agent admin pages
// from the site's navigation, read the inspector's reasons, change a setting, run Verify; anonymous
// visitors get 404. Then the site's own editor makes a resource private and agents lose it at once.
for (const backend of backends) {
  describe(`the administrator in a real browser (Debian Chromium, ${backend.name})`, { skip: chromiumSkip }, () => {
    let content: TestDatabase;
    let server: Server;
    let base: string;
    let browser: Browser;
    let page: Page;
    before(async () => {
      content = await backend.open();
      const site = await createExampleSite({ database: { kysely: content.db } });
      server = await new Promise<Server>((resolve) => {
        const s = site.app.listen(0, '127.0.0.1', () => resolve(s));
      });
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      browser = await launchChromium();
      const context = await browser.newContext({ javaScriptEnabled: false });
      page = await context.newPage();
      await page.goto(`${base}/login`);
      await page.getByLabel('Password').fill(site.session.adminPassword);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/`);
    });
    after(async () => {
      await browser?.close();
      server?.close();
      await content?.close();
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
        await page.getByLabel('Resource id or name').fill(ref);
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

    it('a description changed in Settings is in /llms.txt on the next request', async () => {
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.locator('input[name="description_source"][value="site"]').check();
      await page.getByLabel('Description', { exact: true }).fill('Changed in the browser: harbour stories for agents.');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForURL(/\/admin\/agent\/settings\?saved=1$/);
      assert.match(await page.getByRole('status').innerText(), /Settings saved/);
      const llms = await (await fetch(`${base}/llms.txt`)).text();
      assert.match(llms, /^> Changed in the browser: harbour stories for agents\.$/m);
    });

    it('Verify runs the checks against the site and all pass', async () => {
      await page.getByRole('link', { name: 'Verify' }).click();
      await page.getByRole('button', { name: 'Run the checks' }).click();
      await page.waitForSelector('#summary');
      assert.match(await page.locator('#summary').innerText(), /^All \d+ checks passed/);
      const results = await page.locator('#checks tbody tr td:nth-child(2)').allInnerTexts();
      assert.ok(results.length > 10);
      assert.ok(results.every((r) => r === 'passed' || r === 'skipped'), results.join(', '));
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
