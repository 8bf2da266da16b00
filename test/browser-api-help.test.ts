import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { chromiumSkip, launchChromium } from './support/chromium.js';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { DEMO } from '../example-site/seed.js';

// A person's view: the API help page in a real browser, its search example clicked, and an
// ordinary page whose visible body says nothing about the API (discovery lives in <head> only).
describe('in a real browser (Debian Chromium)', { skip: chromiumSkip }, () => {
  let running: RunningSite;
  let base: string;
  let browser: Browser;
  before(async () => {
    running = await startExampleSite(surfaceBackends[0]!);
    base = running.origin;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await running?.close();
  });

  it('the API help page\'s search example is clickable and returns public results', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${base}/api-help`);
    assert.equal(response?.status(), 200);
    assert.match(await page.title(), /API help · Harbour Example/);
    await page.getByRole('link', { name: 'Full-text search example' }).click();
    await page.waitForURL(/\/api\/agent\/search\?/);
    const body = JSON.parse(await page.locator('body').innerText());
    assert.equal(body.status, 'ok');
    assert.ok(body.result.items.length > 0, 'the example finds something');
    assert.ok(!JSON.stringify(body).includes('SECRET'));
    await page.close();
  });

  it('a resource page shows no API links in its body; the head carries them', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/api/agent/resource/${DEMO.welcome}`);
    const id = JSON.parse(await page.locator('body').innerText()).result.id;
    await page.goto(`${base}/en/page/${id}`);
    const visible = await page.locator('body').innerText();
    assert.match(visible, /Welcome to the example site/);
    assert.ok(!/api|markdown|openapi|llms/i.test(visible), `visible body mentions the API: ${visible}`);
    const bodyLinks = await page.locator('body a').evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
    assert.ok(!bodyLinks.some((href) => /\/api|markdown|openapi|llms/.test(href)));
    const alternates = await page.locator('head link[rel="alternate"]').evaluateAll((ls) => ls.map((l) => l.getAttribute('type')));
    assert.deepEqual(alternates.sort(), ['application/json', 'text/html', 'text/html', 'text/markdown'], 'its two language versions, its JSON and its Markdown');
    await page.close();
  });
});
