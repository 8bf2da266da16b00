import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends, type TestDatabase } from './support/backends.js';
import { HOSTILE_DESCRIPTION, HOSTILE_NOTES, parseHtml, publishedTexts, renderMarkdown, startAdminHost, type AdminHost } from './support/published-text.js';

const SITE_TITLE = 'Harbour <Archive>';
const SETTINGS = '/admin/agent/settings';

/** The Settings page as a browser holds it: its CSRF cookie, the parsed page, and the fields its form would submit. */
interface SettingsPage {
  cookie: string;
  doc: ReturnType<typeof parseHtml>;
  fields: Record<string, string>;
}

async function openSettings(base: string, cookie = ''): Promise<SettingsPage> {
  const res = await fetch(`${base}${SETTINGS}`, { headers: { cookie } });
  assert.equal(res.status, 200);
  const set = res.headers.getSetCookie().find((c) => c.startsWith('ead_admin_csrf='));
  const doc = parseHtml(await res.text());
  const form = doc.querySelector('form[method="post"]');
  assert.ok(form, 'the settings form');
  const fields: Record<string, string> = {};
  for (const input of Array.from(form.querySelectorAll('input'))) {
    const type = input.getAttribute('type');
    if (type === 'radio' && input.getAttribute('checked') === null) continue;
    fields[input.getAttribute('name')!] = input.getAttribute('value') ?? '';
  }
  for (const area of Array.from(form.querySelectorAll('textarea'))) fields[area.getAttribute('name')!] = area.textContent ?? '';
  for (const select of Array.from(form.querySelectorAll('select'))) {
    fields[select.getAttribute('name')!] = select.querySelector('option[selected]')?.getAttribute('value') ?? select.querySelector('option')!.getAttribute('value')!;
  }
  return { cookie: set ? set.split(';')[0]! : cookie, doc, fields };
}

/** Submits the form as shown, with `changes` typed over it (nothing else touched). */
async function submit(base: string, page: SettingsPage, changes: Record<string, string>) {
  const res = await fetch(`${base}${SETTINGS}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: page.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...page.fields, ...changes }).toString(),
  });
  return { status: res.status, doc: parseHtml(await res.text()) };
}

/** The "In force now" cell of a setting in the page's table. */
function inForce(doc: SettingsPage['doc'], label: string): string {
  const row = Array.from(doc.querySelectorAll('table tbody tr')).find((tr) => tr.querySelector('td')?.textContent === label);
  assert.ok(row, label);
  return row.querySelectorAll('td')[1]!.textContent ?? '';
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const checkedSource = (doc: SettingsPage['doc'], name: string) => doc.querySelector(`input[name="${name}_source"][checked]`)?.getAttribute('value');
const problems = (doc: SettingsPage['doc']) => Array.from(doc.querySelectorAll('[role="alert"] li'), (li) => li.textContent ?? '');

for (const backend of backends) {
  describe(`the Settings page saves or says why, and admin text is plain text everywhere (${backend.name})`, () => {
    let content: TestDatabase;
    let host: AdminHost;
    let base: string;
    let cookie = '';
    const open = async () => {
      const page = await openSettings(base, cookie);
      cookie = page.cookie;
      return page;
    };
    before(async () => {
      content = await backend.open();
      host = await startAdminHost(content, SITE_TITLE);
      base = host.base;
    });
    after(async () => {
      await host?.close();
      await content?.close();
    });

    it('with nothing set, the page shows the built-in description and notes that llms.txt publishes, in the table and the boxes', async () => {
      const page = await open();
      const { defaults } = await host.agent.settings();
      const published = await publishedTexts(base);
      assert.equal(page.fields.description, defaults.description);
      assert.equal(page.fields.llmsNotes, defaults.llmsNotes);
      assert.match(inForce(page.doc, 'Description'), new RegExp(`^${escapeRegExp(defaults.description)} \\(built-in`));
      assert.match(inForce(page.doc, 'llms.txt notes'), new RegExp(`^${escapeRegExp(defaults.llmsNotes)} \\(built-in\\)$`));
      assert.ok(!/\(none\)/.test(inForce(page.doc, 'Description') + inForce(page.doc, 'llms.txt notes')));
      assert.equal(renderMarkdown(published.llmsSummary!).text, defaults.description);
      assert.equal(renderMarkdown(published.llmsInfo!).text, defaults.llmsNotes);
    });

    it('a description typed without ticking "Use this value" is saved and published', async () => {
      const page = await open();
      assert.equal(checkedSource(page.doc, 'description'), 'options');
      const res = await submit(base, page, { description: 'Typed over the default.' });
      assert.equal(res.status, 303);
      const after = await open();
      assert.equal(checkedSource(after.doc, 'description'), 'site');
      assert.equal(after.fields.description, 'Typed over the default.');
      assert.equal((await publishedTexts(base)).llmsSummary, 'Typed over the default.');
    });

    it('notes edited from the built-in text are saved; each line break is a paragraph break', async () => {
      const page = await open();
      const notes = `${page.fields.llmsNotes}\nA second paragraph.`;
      assert.equal((await submit(base, page, { llmsNotes: notes })).status, 303);
      const published = await publishedTexts(base);
      const paragraphs = published.llmsInfo!.split('\n\n').map((p) => renderMarkdown(p).text);
      assert.deepEqual(paragraphs, notes.split('\n'));
      assert.equal((await open()).fields.llmsNotes, notes);
    });

    it('a line break in the description is refused with a message naming the field once; nothing is stored', async () => {
      const page = await open();
      const res = await submit(base, page, { description_source: 'site', description: 'First line\r\nsecond line' });
      assert.equal(res.status, 400);
      assert.deepEqual(problems(res.doc), ['Description must be one line (it is the summary line of llms.txt); put further paragraphs in the llms.txt notes']);
      assert.equal((await publishedTexts(base)).llmsSummary, 'Typed over the default.');
    });

    it('messages name the field once', async () => {
      const page = await open();
      const res = await submit(base, page, { description: 'x'.repeat(1001), sitemapUrl_source: 'site', sitemapUrl: 'javascript:alert(1)' });
      assert.equal(res.status, 400);
      assert.deepEqual(problems(res.doc), [
        'Description must be at most 1000 characters (got 1001)',
        'Sitemap URL must be a path on this site (/sitemap.xml) or an http(s) URL',
      ]);
    });

    it('a text changed while switching back to the option is refused, not dropped; switching back alone applies the option', async () => {
      const page = await open();
      const refused = await submit(base, page, { description_source: 'options', description: 'Changed and switched.' });
      assert.equal(refused.status, 400);
      assert.match(problems(refused.doc)[0]!, /^Description was changed, but "Use the option from the code" is chosen/);
      assert.equal((await publishedTexts(base)).llmsSummary, 'Typed over the default.');
      assert.equal((await submit(base, page, { description_source: 'options' })).status, 303);
      const { defaults, source } = await host.agent.settings();
      assert.equal(source.description, 'default');
      assert.equal(renderMarkdown((await publishedTexts(base)).llmsSummary!).text, defaults.description);
    });

    it('an empty description with "Use this value" shows and publishes the built-in line, and an unrelated save keeps it empty', async () => {
      const page = await open();
      assert.equal((await submit(base, page, { description_source: 'site', description: '' })).status, 303);
      const { defaults } = await host.agent.settings();
      const after = await open();
      assert.equal(after.fields.description, defaults.description);
      assert.match(inForce(after.doc, 'Description'), new RegExp(`^${escapeRegExp(defaults.description)}`));
      assert.equal(renderMarkdown((await publishedTexts(base)).llmsSummary!).text, defaults.description);
      assert.equal((await submit(base, after, { noindex: 'no' })).status, 303);
      const stored = (await host.agent.settings()).stored;
      assert.equal(stored.description, '', 'the built-in text is not stored as a description of the site\'s own');
      assert.equal(stored.noindex, false);
      assert.ok(!(await publishedTexts(base)).ard.includes(defaults.description), 'the ARD carries no description');
    });

    it('a <script> description and notes reach llms.txt, the Markdown home page and OpenAPI as escaped text, and JSON as plain text', async () => {
      const page = await open();
      assert.equal((await submit(base, page, { description: HOSTILE_DESCRIPTION, llmsNotes: HOSTILE_NOTES })).status, 303);
      const published = await publishedTexts(base);
      for (const [where, markdown, text] of [
        ['llms.txt summary', published.llmsSummary, HOSTILE_DESCRIPTION],
        ['llms.txt notes', published.llmsInfo, HOSTILE_NOTES],
        ['Markdown home summary', published.homeSummary, HOSTILE_DESCRIPTION],
        ['Markdown home notes', published.homeInfo, HOSTILE_NOTES],
        ['OpenAPI info.description', published.openapi.split('\n\n')[0]!, HOSTILE_DESCRIPTION],
      ] as const) {
        const rendered = renderMarkdown(markdown!);
        assert.deepEqual(rendered.elements, ['p'], `${where}: one paragraph, no HTML, link or image (${markdown})`);
        assert.equal(rendered.text, text, where);
      }
      assert.ok(published.ard.startsWith(`${HOSTILE_DESCRIPTION} Read-only`), published.ard);
      assert.ok(published.apiRoot.startsWith(`${HOSTILE_DESCRIPTION}\n\nRead-only`), published.apiRoot);
      const help = published.apiHelp;
      assert.equal(help.querySelectorAll('script').length, 0);
      assert.equal(help.querySelectorAll('b').length, 0);
      assert.ok(Array.from(help.querySelectorAll('p'), (p) => p.textContent).includes(HOSTILE_DESCRIPTION), 'API help shows the text as typed');
      const settings = await open();
      assert.equal(settings.fields.description, HOSTILE_DESCRIPTION);
      assert.equal(settings.doc.querySelectorAll('script').length, 0);
    });
  });
}
