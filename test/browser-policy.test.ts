// The Policy page as the owner uses it, in Debian's Chromium without JavaScript: GPTBot and a browser have read the
// site; the owner picks the "Block AI training" preset, sees the preview count GPTBot's requests, saves, sees the
// change recorded, and GPTBot is refused at once while people are served. A bad policy is refused with the rule
// and field named, the policy in force unchanged. A screenshot is left in test-artifacts/ to look at.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkip, launchChromium, saveScreenshot } from './support/chromium.js';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { LOOPBACK_RANGES } from './support/loopback-ranges.js';
import { adminCookie } from '../example-site/session.js';

const ARTIFACTS = 'test-artifacts';
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.3; +https://openai.com/gptbot)';
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('the Policy page in Chromium', { skip: chromiumSkip }, () => {
  let running: RunningSite;
  let browser: Browser;
  let page: Page;
  let base: string;
  const problems: string[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    running = await startExampleSite(surfaceBackends[0]!, { plugin: { traffic: { flushIntervalMs: 300_000 }, verification: { rangesFile: LOOPBACK_RANGES } } });
    base = running.origin;
    for (let i = 0; i < 6; i++) assert.equal((await fetch(`${base}/llms.txt`, { headers: { 'user-agent': GPTBOT } })).status, 200);
    assert.equal((await fetch(`${base}/`, { headers: { 'user-agent': CHROME } })).status, 200);
    browser = await launchChromium();
    const context = await browser.newContext({ javaScriptEnabled: false });
    const cookie = adminCookie(running.site.session);
    const eq = cookie.indexOf('=');
    await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: base }]);
    page = await context.newPage();
    page.on('console', (m) => {
      // The refused form is answered 400 on purpose: the browser logs the status.
      if (/status of 400/.test(m.text())) return;
      if (m.type() === 'error' || /Content Security Policy|Refused/i.test(m.text())) problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/favicon.ico') problems.push('the admin page made the browser fetch the site\'s /favicon.ico');
    });
  });
  after(async () => {
    await browser?.close();
    await running?.close();
  });

  it('previews a preset against the last days, saves it, records it, and the policy is in force at once', async () => {
    await page.goto(`${base}/admin/agent/policy`);
    assert.equal(await page.locator('h1').innerText(), 'Policy: what each agent gets');
    assert.match(await page.locator('#policy').inputValue(), /"rules": \[\]/);
    await page.click('#preset-block-training');
    assert.match(await page.locator('#policy').inputValue(), /"purpose": "training"/);
    const summary = await page.locator('#preview-summary').innerText();
    const blocked = Number(/would have blocked (\d+) requests/.exec(summary)?.[1]);
    assert.ok(blocked >= 6, `GPTBot's requests are counted as blocked: ${summary}`);
    assert.match(await page.locator('#preview-agents').innerText(), /gptbot/);
    await saveScreenshot(page, path.join(ARTIFACTS, 'policy-preview.png'));
    await page.click('#save-button');
    assert.match(page.url(), /\/admin\/agent\/policy\?saved=1$/);
    assert.match(await page.locator('#saved').innerText(), /Saved/);
    assert.match(await page.locator('#changes').innerText(), /block: purpose training/);
    assert.equal((await fetch(`${base}/llms.txt`, { headers: { 'user-agent': GPTBOT } })).status, 403);
    assert.equal((await fetch(`${base}/llms.txt`, { headers: { 'user-agent': CHROME } })).status, 200);
    assert.match(await (await fetch(`${base}/robots.txt`)).text(), /User-agent: GPTBot\n/);
  });

  it('a bad policy is refused with the rule and field named, and the policy in force stays', async () => {
    await page.goto(`${base}/admin/agent/policy`);
    await page.fill('#policy', '{"rules":[{"purpose":"training","action":"limit","perMinute":-5}]}');
    await page.click('#save-button');
    assert.match(await page.locator('#problem').innerText(), /rule 1 field "perMinute"/);
    assert.equal((await fetch(`${base}/llms.txt`, { headers: { 'user-agent': GPTBOT } })).status, 403, 'the saved policy still holds');
    await saveScreenshot(page, path.join(ARTIFACTS, 'policy-refused.png'));
    assert.deepEqual(problems, []);
  });
});
