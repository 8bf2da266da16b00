import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkip, launchChromium } from './support/chromium.js';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { HOSTILE_DESCRIPTION, HOSTILE_NOTES, publishedTexts, renderMarkdown, startAdminHost, type AdminHost } from './support/published-text.js';

// The Settings page's traps, done by hand in a real browser without JavaScript: each typed text is
// saved or the page says why, the built-in texts are shown and editable, and what an administrator
// types reaches agents as plain text. One browser for the file; a fresh host and database per backend.
let browser: Browser | undefined;
const launched = async () => (browser ??= await launchChromium());
after(async () => {
  await browser?.close();
});

for (const backend of surfaceBackends) {
  describe(`the Settings page by hand (Debian Chromium, JavaScript off, ${backend.name})`, { skip: chromiumSkip }, () => {
    let content: TestDatabase;
    let host: AdminHost;
    let page: Page;
    const settingsUrl = () => `${host.base}/admin/agent/settings`;
    const row = (label: string) => page.locator('table tbody tr', { has: page.locator('td', { hasText: new RegExp(`^${label}$`) }) }).locator('td').nth(1);
    const save = async () => {
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForLoadState();
    };
    const llms = async () => publishedTexts(host.base);
    before(async () => {
      content = await backend.open();
      host = await startAdminHost(content, 'Harbour Archive');
      const context = await (await launched()).newContext({ javaScriptEnabled: false });
      page = await context.newPage();
      await page.goto(settingsUrl());
    });
    after(async () => {
      await page?.context().close();
      await host?.close();
      await content?.close();
    });

    it('shows the built-in description and notes, in force and in the boxes', async () => {
      const { defaults } = await host.agent.settings();
      assert.equal(await page.getByLabel('Description', { exact: true }).inputValue(), defaults.description);
      assert.equal(await page.getByLabel('llms.txt notes', { exact: true }).inputValue(), defaults.llmsNotes);
      assert.ok((await row('Description').innerText()).startsWith(defaults.description));
      assert.ok((await row('llms.txt notes').innerText()).startsWith(defaults.llmsNotes));
    });

    it('a description typed without ticking "Use this value", and notes edited from the built-in text, are saved', async () => {
      await page.getByLabel('Description', { exact: true }).fill('Typed by hand.');
      const notes = page.getByLabel('llms.txt notes', { exact: true });
      await notes.fill(`${await notes.inputValue()}\nA second paragraph, typed by hand.`);
      await save();
      assert.match(page.url(), /\/settings\?saved=1$/);
      assert.match(await page.getByRole('status').innerText(), /Settings saved/);
      assert.ok(await page.locator('input[name="description_source"][value="site"]').isChecked());
      const published = await llms();
      assert.equal(published.llmsSummary, 'Typed by hand.');
      assert.deepEqual(
        published.llmsInfo!.split('\n\n').map((p) => renderMarkdown(p).text).slice(-1),
        ['A second paragraph, typed by hand.'],
        'the line break is a paragraph break',
      );
    });

    it('a line break in the description is refused with a message naming the field once, keeping what was typed', async () => {
      await page.getByLabel('Description', { exact: true }).fill('One line\nand another');
      await save();
      const alert = await page.getByRole('alert').innerText();
      assert.match(alert, /The settings were not saved/);
      assert.match(alert, /Description must be one line/);
      assert.doesNotMatch(alert, /Description: description/i);
      assert.equal(await page.getByRole('status').count(), 0, 'no "Settings saved."');
      assert.equal(await page.getByLabel('Description', { exact: true }).inputValue(), 'One line\nand another');
      assert.equal((await llms()).llmsSummary, 'Typed by hand.');
    });

    it('an empty description with "Use this value" shows and publishes the built-in line', async () => {
      await page.goto(settingsUrl());
      await page.locator('input[name="description_source"][value="site"]').check();
      await page.getByLabel('Description', { exact: true }).fill('');
      await save();
      assert.match(await page.getByRole('status').innerText(), /Settings saved/);
      const { defaults } = await host.agent.settings();
      assert.ok((await row('Description').innerText()).startsWith(defaults.description));
      assert.equal(await page.getByLabel('Description', { exact: true }).inputValue(), defaults.description);
      assert.equal(renderMarkdown((await llms()).llmsSummary!).text, defaults.description);
    });

    it('a <script> description and notes are saved and reach every document as text', async () => {
      await page.getByLabel('Description', { exact: true }).fill(HOSTILE_DESCRIPTION);
      await page.getByLabel('llms.txt notes', { exact: true }).fill(HOSTILE_NOTES);
      await save();
      assert.match(await page.getByRole('status').innerText(), /Settings saved/);
      assert.ok((await row('Description').innerText()).startsWith(HOSTILE_DESCRIPTION), 'the page shows the text as typed');
      const published = await llms();
      for (const [markdown, text] of [[published.llmsSummary, HOSTILE_DESCRIPTION], [published.homeInfo, HOSTILE_NOTES], [published.openapi.split('\n\n')[0], HOSTILE_DESCRIPTION]] as const) {
        assert.deepEqual(renderMarkdown(markdown!), { elements: ['p'], text });
      }
      assert.ok(published.ard.startsWith(HOSTILE_DESCRIPTION));
      assert.ok(published.apiRoot.startsWith(HOSTILE_DESCRIPTION));
      const help = await page.context().newPage();
      await help.goto(`${host.base}/api-help`);
      assert.equal(await help.locator('script').count(), 0);
      assert.equal(await help.locator('p', { hasText: 'alert("d")' }).innerText(), HOSTILE_DESCRIPTION);
      await help.close();
    });
  });
}
