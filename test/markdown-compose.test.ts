import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { bootstrapVocabulary, insertCategory, insertResource } from '../example-site/content-store.js';
import type { Database } from '../src/db/schema.js';
import { DEFAULT_PAGE_URL } from '../src/options.js';
import { createTemplateEnvironment } from '../src/markdown/template-environment.js';
import { renderAgentHtml, renderAgentMarkdown, type RenderAgentMarkdownInput } from '../src/markdown/compose.js';
import { TemplateRenderError } from '../src/markdown/template-errors.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/markdown-templates');
const BASE = 'https://site.example';
const options = { defaultLanguage: 'en', pageUrl: DEFAULT_PAGE_URL };
const DAY = 86_400_000;

interface Fixture {
  main: number;
  ref: number;
  deep: number;
  privateRef: number;
  article: number;
  event: number;
  empty: number;
  publicDoc: number;
  secretDoc: number;
  cycleA: number;
  cycleB: number;
  hidden: number;
}

async function seed(db: Kysely<Database>): Promise<Fixture> {
  await bootstrapVocabulary(db);
  await insertCategory(db, { name: 'text' });
  await insertCategory(db, { name: 'article', parent: 'text' });
  await insertCategory(db, { name: 'news', parent: 'article' });
  await insertCategory(db, { name: 'event' });
  const deep = await insertResource(db, { category: 'article', title: { en: 'Deep page' }, body: { en: '<p>Deep body</p>' } });
  const ref = await insertResource(db, {
    name: 'referenced_page',
    category: 'article',
    title: { en: 'Referenced page', nl: 'Verwezen pagina' },
    summary: { en: 'Referenced summary' },
    body: { en: '<p>Referenced body with <a href="/other">a link</a>.</p>' },
    license: 'CC BY 4.0',
    attribution: { en: 'Jane Doe' },
    blocks: [
      { type: 'header', header: { en: 'Ref section' } },
      { type: 'text', body: { en: '<p>Ref text</p>' } },
      { type: 'page', rsc_id: deep },
      { type: 'survey_poll', body: { en: 'Ref survey' } },
      { type: 'gallery', name: 'g2' },
    ],
  });
  const privateRef = await insertResource(db, { category: 'article', title: { en: 'Private ref' }, body: { en: '<p>Private body</p>' }, visibility: 'members' });
  const main = await insertResource(db, {
    name: 'main_page',
    category: 'news',
    title: { en: 'Main <page>', nl: 'Hoofdpagina' },
    summary: { en: 'Main summary', nl: 'Samenvatting' },
    body: {
      en: [
        '<p>Intro with <a href="relative/path.html">relative</a>, <a href="/rooted">rooted</a>, <a href="#frag">fragment</a> and <a href="javascript:alert(1)">bad link</a>.</p>',
        '<p><img src="/media/pic.jpg" alt="A picture"> inline</p>',
        '<script>alert("x")</script><style>p { color: red }</style>',
        '<table><tr><td>a | b</td><td>c</td></tr><tr><td>d</td><td>e</td></tr></table>',
        '<pre>bare  pre\n  kept</pre>',
      ].join(''),
      nl: '<p>Nederlandse tekst</p>',
    },
    license: { en: 'CC0', nl: 'CC0' },
    props: { colour: 'blue' },
    blocks: [
      { type: 'header', header: { en: 'Section one', nl: 'Sectie een' } },
      { type: 'text', header: { en: 'Text header' }, body: { en: '<p>Text body <strong>bold</strong></p>', nl: '<p>Tekst</p>' } },
      { type: 'survey_yes_no', header: { en: 'Do you agree?' }, body: { en: 'SURVEY' } },
      { type: 'page', rsc_id: ref },
      { type: 'page', rsc_id: privateRef, header: { en: 'Private block header' } },
      { type: 'gallery', name: 'g1', header: { en: 'Photos' }, props: { count: 3 } },
      { type: 'Bad-Type', body: { en: '<p>never</p>' } },
    ],
  });
  const article = await insertResource(db, { category: 'article', title: { en: 'An article' }, body: { en: '<p>Article body</p>' } });
  const event = await insertResource(db, { category: 'event', title: { en: 'An event' }, body: { en: '<p>Event body</p>' } });
  const empty = await insertResource(db, { category: 'event', title: { en: '' } });
  const secretDoc = await insertResource(db, { name: 'secret_doc', category: 'article', title: { en: 'Secret title' }, props: { secret: 'TOP-SECRET' }, isPublished: false });
  const publicDoc = await insertResource(db, { name: 'public_doc', category: 'article', title: { en: 'Public doc' }, props: { colour: 'green', next: deep, html: '<b>x</b>' } });
  const cycleA = await insertResource(db, { category: 'article', title: { en: 'Cycle A' } });
  const cycleB = await insertResource(db, { category: 'article', title: { en: 'Cycle B' }, blocks: [{ type: 'page', rsc_id: cycleA }] });
  await db.updateTable('rsc').set({ blocks: JSON.stringify([{ type: 'page', rsc_id: cycleB }, { type: 'page', rsc_id: cycleA }]) }).where('id', '=', cycleA).execute();
  const hidden = await insertResource(db, { category: 'article', title: { en: 'Expired' }, publicationEnd: new Date(Date.now() - DAY), publicationStart: new Date(Date.now() - 2 * DAY) });
  return { main, ref, deep, privateRef, article, event, empty, publicDoc, secretDoc, cycleA, cycleB, hidden };
}

for (const backend of surfaceBackends) {
  describe(`markdown composition [${backend.name}]`, () => {
    let content: TestDatabase;
    let f: Fixture;
    const plain = createTemplateEnvironment([]);
    const input = (id: number, extra: Partial<RenderAgentMarkdownInput> = {}): RenderAgentMarkdownInput => ({
      db: content.db,
      env: plain,
      options,
      id,
      language: 'en',
      baseUrl: BASE,
      ...extra,
    });

    before(async () => {
      content = await backend.open();
      f = await seed(content.db);
    });
    after(() => content.close());

    const md = async (id: number, extra: Partial<RenderAgentMarkdownInput> = {}) => {
      const result = await renderAgentMarkdown(input(id, extra));
      assert.ok(result, `resource ${id} renders`);
      return result;
    };
    const withDirs = (...dirs: string[]) => ({ env: createTemplateEnvironment(dirs.map((d) => path.join(FIXTURES, d))) });

    describe('default templates (golden)', () => {
      it('renders every block type of a resource, in order', async () => {
        const result = await md(f.main);
        assert.equal(
          result.markdown,
          [
            '# Main \\<page>',
            'Main summary',
            `Intro with [relative](${BASE}/en/page/relative/path.html), [rooted](${BASE}/rooted), [fragment](${BASE}/en/page/${f.main}#frag) and bad link.`,
            `![A picture](${BASE}/media/pic.jpg) inline`,
            '|     |     |\n| --- | --- |\n| a \\| b | c   |\n| d   | e   |',
            '```\nbare  pre\n  kept\n```',
            '## Section one',
            '### Text header',
            'Text body **bold**',
            '## Referenced page',
            '_Referenced summary_',
            `Referenced body with [a link](${BASE}/other).`,
            '## Ref section',
            'Ref text',
            `[Omitted: page reference to resource ${f.deep} inside a referenced page is not expanded]`,
            '[Omitted: "gallery" block of a referenced page]',
            `Source: [Referenced page](${BASE}/en/page/${f.ref}) (language: en). License: CC BY 4.0. Attribution: Jane Doe`,
            '[Omitted: unsupported block type "gallery"]',
            '[Omitted: block with an invalid type name]',
            'License: CC0',
          ].join('\n\n'),
        );
        assert.equal(result.contentComplete, false);
      });

      it('header block', async () => {
        const id = await insertResource(content.db, { category: 'event', title: { en: 'H' }, blocks: [{ type: 'header', header: { en: 'A <b>header</b>' } }] });
        assert.deepEqual(await md(id), { markdown: '# H\n\n## A \\<b>header\\</b>', contentComplete: true });
      });

      it('text block', async () => {
        const id = await insertResource(content.db, {
          category: 'event',
          title: { en: 'T' },
          blocks: [{ type: 'text', body: { en: '<ul><li>one</li><li>two</li></ul><pre><code class="language-js">let x = 1;</code></pre>' } }],
        });
        assert.deepEqual(await md(id), { markdown: '# T\n\n-   one\n-   two\n\n```js\nlet x = 1;\n```', contentComplete: true });
      });

      it('page block: the reference expanded once, with its source link, language and licensing', async () => {
        const id = await insertResource(content.db, { category: 'event', title: { en: 'P' }, blocks: [{ type: 'page', rsc_id: f.deep, header: { en: 'See also' } }] });
        assert.deepEqual(await md(id), {
          markdown: `# P\n\n## See also\n\n### Deep page\n\nDeep body\n\nSource: [Deep page](${BASE}/en/page/${f.deep}) (language: en)`,
          contentComplete: true,
        });
      });

      it('survey blocks are absent and do not mark the content incomplete', async () => {
        const id = await insertResource(content.db, {
          category: 'event',
          title: { en: 'S' },
          blocks: [{ type: 'survey_yes_no', header: { en: 'Agree?' }, body: { en: 'SURVEY' } }, { type: 'survey', body: { en: 'SURVEY' } }, { type: 'text', body: { en: '<p>after</p>' } }],
        });
        assert.deepEqual(await md(id), { markdown: '# S\n\nafter', contentComplete: true });
        const main = await md(f.main, withDirs('custom-block'));
        assert.doesNotMatch(main.markdown, /SURVEY|Do you agree/);
      });

      it('an unknown block type leaves a visible marker and marks the content incomplete', async () => {
        const id = await insertResource(content.db, { category: 'event', title: { en: 'U' }, blocks: [{ type: 'carousel' }, { type: '../etc/passwd' }] });
        assert.deepEqual(await md(id), {
          markdown: '# U\n\n[Omitted: unsupported block type "carousel"]\n\n[Omitted: block with an invalid type name]',
          contentComplete: false,
        });
      });

      it('page blocks two deep are expanded once; the nested one is marked', async () => {
        const { markdown, contentComplete } = await md(f.main);
        assert.match(markdown, /## Referenced page/);
        assert.doesNotMatch(markdown, /Deep body|Deep page/);
        assert.match(markdown, new RegExp(`\\[Omitted: page reference to resource ${f.deep} inside a referenced page is not expanded\\]`));
        assert.equal(contentComplete, false);
      });

      it('a private reference is left out silently', async () => {
        const { markdown } = await md(f.main);
        assert.doesNotMatch(markdown, /Private/);
        const id = await insertResource(content.db, { category: 'event', title: { en: 'R' }, blocks: [{ type: 'page', rsc_id: f.privateRef }, { type: 'page', rsc_id: f.hidden }, { type: 'page', rsc_id: 987654 }] });
        assert.deepEqual(await md(id), { markdown: '# R', contentComplete: true });
      });

      it('page cycles do not recurse', async () => {
        assert.deepEqual(await md(f.cycleA), {
          markdown: `# Cycle A\n\n## Cycle B\n\n[Omitted: page reference to resource ${f.cycleA} inside a referenced page is not expanded]\n\nSource: [Cycle B](${BASE}/en/page/${f.cycleB}) (language: en)`,
          contentComplete: false,
        });
      });

      it('renders in the chosen language; a reference falls back on its own', async () => {
        const { markdown } = await md(f.main, { language: 'nl' });
        assert.match(markdown, /^# Hoofdpagina\n\nSamenvatting\n\nNederlandse tekst\n\n## Sectie een\n\n### Text header\n\nTekst\n\n## Verwezen pagina/);
        assert.match(markdown, new RegExp(`Source: \\[Verwezen pagina\\]\\(${BASE}/nl/page/${f.ref}\\) \\(language: nl\\)`));
        // Deep page has only English: its page URL is in the language used.
        const id = await insertResource(content.db, { category: 'event', title: { en: 'x', nl: 'NL' }, blocks: [{ type: 'page', rsc_id: f.deep }] });
        assert.match((await md(id, { language: 'nl' })).markdown, new RegExp(`\\(${BASE}/en/page/${f.deep}\\) \\(language: en\\)`));
      });

      it('is undefined for a missing, private, unpublished or expired resource', async () => {
        for (const id of [f.privateRef, f.secretDoc, f.hidden, 987654]) assert.equal(await renderAgentMarkdown(input(id)), undefined);
      });

      it('legitimately empty content is an empty string', async () => {
        assert.deepEqual(await md(f.empty), { markdown: '', contentComplete: true });
      });

      it('exports the HTML step: composed HTML with the resource page URL as document URL', async () => {
        const html = await renderAgentHtml(input(f.article));
        assert.deepEqual(html, { html: '<h1>An article</h1><p>Article body</p>', contentComplete: true, documentUrl: `${BASE}/en/page/${f.article}`, timedOut: false });
      });
    });

    describe('site overrides', () => {
      it('a site directory overrides _agent_content', async () => {
        const { markdown } = await md(f.article, withDirs('content-override'));
        assert.equal(markdown, `Override of resource ${f.article}: An article\n\nArticle body`);
      });

      it('the first directory holding a template wins', async () => {
        const { markdown } = await md(f.article, withDirs('content-override', 'extends-default'));
        assert.match(markdown, /^Override of resource/);
        const reversed = await md(f.article, withDirs('extends-default', 'content-override'));
        assert.match(reversed.markdown, /^# An article/);
      });

      it('picks the category variant over the generic one, then an ancestor variant, then the generic one', async () => {
        const dirs = withDirs('category-variants');
        assert.equal((await md(f.main, dirs)).markdown.split('\n')[0], `News variant for ${f.main}`);
        assert.equal((await md(f.article, dirs)).markdown, `Text (ancestor) variant for ${f.article}\n\nArticle body`);
        assert.equal((await md(f.event, dirs)).markdown, '# An event\n\nEvent body');
      });

      it('a custom block renderer and a block category variant; a survey renderer is never used', async () => {
        const { markdown, contentComplete } = await md(f.main, withDirs('custom-block'));
        assert.match(markdown, new RegExp(`Gallery g1 of ${f.main} with 3 images: Photos`));
        assert.doesNotMatch(markdown, /unsupported block type "gallery"/);
        assert.match(markdown, /News text block: Text header\n\nText body \*\*bold\*\*/);
        // The referenced page is an article: its text block keeps the default renderer.
        assert.match(markdown, /## Ref section\n\nRef text/);
        assert.doesNotMatch(markdown, /SURVEY MUST NEVER RENDER/);
        assert.equal(contentComplete, false);
        const id = await insertResource(content.db, { category: 'event', title: { en: 'G' }, blocks: [{ type: 'gallery', name: 'g', props: { count: 1 } }, { type: 'survey_yes_no' }] });
        assert.deepEqual(await md(id, withDirs('custom-block')), { markdown: `# G\n\nGallery g of ${id} with 1 images:`, contentComplete: true });
      });

      it('an override extends the shipped default of the same name', async () => {
        const { markdown } = await md(f.main, withDirs('extends-default'));
        assert.match(markdown, /^# Main \\<page>\n\n\*\*In short:\*\* Main summary\n\nIntro with/);
        assert.match(markdown, /License: CC0\n\nExtended footer$/);
      });

      it('a throwing override is a TemplateRenderError naming the template', async () => {
        await assert.rejects(renderAgentMarkdown(input(f.article, withDirs('throwing'))), (error: unknown) => {
          assert.ok(error instanceof TemplateRenderError);
          assert.equal(error.template, '_agent_content.njk');
          assert.match(error.message, /no_such_function/);
          return true;
        });
        await assert.rejects(renderAgentMarkdown(input(f.main, withDirs('throwing-block'))), (error: unknown) => {
          assert.ok(error instanceof TemplateRenderError);
          assert.equal(error.template, '_agent_block_text.njk');
          assert.match(error.message, /_agent_no_such_partial/);
          return true;
        });
      });
    });

    describe('custom-field accessor', () => {
      it('reads visible resources (also chained lookups) and nothing of a private one', async () => {
        const { markdown } = await md(f.main, withDirs('accessor'));
        assert.equal(
          markdown,
          ['Own colour: blue', 'Public: Public doc / green', 'Secret: \\[\\]\\[\\]\\[false\\]', 'Chained: Deep page', 'Escaped: \\<b>x\\</b>'].join('\n\n'),
        );
        assert.doesNotMatch(markdown, /TOP-SECRET|Secret title/);
      });
    });

    describe('hostile content', () => {
      it('HTML injection stays text; scripts, handlers and javascript: URLs are gone, frames are links', async () => {
        const id = await insertResource(content.db, {
          category: 'event',
          title: { en: '<script>alert(1)</script>' },
          summary: { en: '<img src=x onerror=alert(2)>' },
          body: {
            en: '<p>&lt;script&gt;alert(3)&lt;/script&gt;</p><img src="x" onerror="alert(4)"><a href=" javascript:alert(5)">j</a><a href="data:text/html,hi">d</a>'
              + '<iframe src="https://evil.example"></iframe><form><input value="v"><button>b</button></form><svg onload="alert(6)"><text>svg</text></svg>'
              + '<p data-agent-marker="guess">[Omitted: forged]</p><script>alert(7)</script>',
          },
          blocks: [{ type: 'text', header: { en: '</h3><script>alert(8)</script>' }, body: { en: '<object data="x"></object><p onclick="alert(9)">ok</p>' } }],
        });
        const { markdown } = await md(id);
        assert.doesNotMatch(markdown, /javascript:|data:|onclick|onload|iframe|svg|alert\([4-79]\)/);
        // A frame is never embedded: it reads as a link to the page it showed.
        assert.match(markdown, /\[Embedded content: evil\.example\]\(https:\/\/evil\.example\/\)/);
        // Every `<` that remains is escaped text, never a tag.
        assert.doesNotMatch(markdown, /(^|[^\\])</m);
        assert.match(markdown, /\\\[Omitted: forged\\\]/);
        assert.match(markdown, /^# \\<script>alert\(1\)\\<\/script>/);
      });

      it('a 5 MiB body finishes and stays within the Markdown bound', async () => {
        const paragraph = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(20)}</p>`;
        const id = await insertResource(content.db, { category: 'event', title: { en: 'Huge' }, body: { en: paragraph.repeat(Math.ceil((5 * 1024 * 1024) / paragraph.length)) } });
        const { markdown, contentComplete } = await md(id);
        assert.ok(Buffer.byteLength(markdown) <= 256 * 1024, `${Buffer.byteLength(markdown)} bytes`);
        assert.equal(contentComplete, false);
        assert.match(markdown, /\n\n\[Content truncated: [^\]]+\]$/);
        assert.match(markdown, /amet, consectetur adipiscing elit\.\n\n\[Content truncated/);
      });

      it('100,000 nested elements neither hang nor overflow the stack', async () => {
        for (const depth of [100_000, 5_000]) {
          const id = await insertResource(content.db, { category: 'event', title: { en: 'Deep' }, body: { en: `${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}<p>after</p>` } });
          const { markdown, contentComplete } = await md(id);
          assert.equal(contentComplete, false);
          assert.match(markdown, depth === 5_000 ? /deep text\n\nafter\n\n\[Content simplified: / : /\[Content truncated: /);
        }
      });

      it('the bounds apply to an override that writes too much', async () => {
        const { markdown, contentComplete } = await md(f.article, withDirs('oversized'));
        assert.equal(contentComplete, false);
        assert.ok(Buffer.byteLength(markdown) <= 256 * 1024);
        assert.match(markdown, /\[Content truncated: [^\]]+\]/);
      });

      it('limits are configurable: a small Markdown bound and a rendering budget', async () => {
        const blocks = Array.from({ length: 20_000 }, (_, i) => ({ type: 'text', body: { en: `<p>block ${i}</p>` } }));
        const id = await insertResource(content.db, { category: 'event', title: { en: 'Many' }, blocks });
        const small = await md(id, { limits: { maxMarkdownBytes: 4096 } });
        assert.ok(Buffer.byteLength(small.markdown) <= 4096);
        assert.equal(small.contentComplete, false);
        assert.match(small.markdown, /\nblock \d+\n\n\[Content truncated: the Markdown exceeds the 4 KiB bound\]$/);
        const budgeted = await md(id, { limits: { budgetMs: 20 } });
        assert.equal(budgeted.contentComplete, false);
        assert.match(budgeted.markdown, /\[Content truncated: rendering exceeded the 20 ms budget\]$/);
        await assert.rejects(renderAgentMarkdown(input(id, { limits: { maxDepth: 0 } })), /markdown limit "maxDepth"/);
      });
    });
  });
}
