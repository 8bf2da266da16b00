import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from './support/backends.js';
import { openDemoDatabase, type DemoDatabase } from './support/demo.js';
import { denseHtml } from './support/dense-html.js';
import { DEFAULT_PAGE_URL } from '../src/options.js';
import { createTemplateEnvironment } from '../src/markdown/template-environment.js';
import { renderAgentMarkdown } from '../src/markdown/compose.js';
import { ConversionTimeoutError, createMarkdownConverter } from '../src/markdown/converter.js';
import { resolveMarkdownLimits } from '../src/markdown/limits.js';
import { markerHtml } from '../src/markdown/markers.js';
import { CORPUS } from './fixtures/markdown-corpus/index.js';

const BASE = 'https://site.example';
const options = { defaultLanguage: 'en', pageUrl: DEFAULT_PAGE_URL };
const limits = resolveMarkdownLimits();

/** Articles that exercise every rule of the converter, beside the demo content composed by the templates. */
const SYNTHETIC: Record<string, string> = {
  'dense 100 KiB': denseHtml(100 * 1024),
  'dense 1 MiB (cut to the HTML bound)': denseHtml(1024 * 1024),
  'nested past the depth bound': `${'<div>'.repeat(200)}deep text${'</div>'.repeat(200)}`,
  'markers, look-alikes, unsafe links, relative images': `${markerHtml('Omitted: unsupported block type "x"')}<p data-agent-marker="guess">[Omitted: x]</p><p><a href="javascript:alert(1)">js</a> <a href="rel/page.html">rel</a> <img src="pic.png" alt="a [b]"></p>${'<p>padding paragraph</p>'.repeat(400)}`,
  'non-ASCII text': `<h1>Überschrift — 日本語 🚢</h1>${'<p>Ça va, naïve café — ½ &amp; &lt;tag&gt;</p>'.repeat(300)}`,
  'every fragment of the Markdown corpus, editors’ output included': Object.values(CORPUS).flat().map((f) => f.html).join('\n'),
};

describe('Markdown conversion in worker threads', () => {
  const pool = createMarkdownConverter({ workers: 1, inProcessMaxChars: 0, timeoutMs: 120_000 });
  const inProcess = createMarkdownConverter({ workers: 0 });
  after(() => pool.close());

  for (const [name, html] of Object.entries(SYNTHETIC)) {
    it(`produces the in-process Markdown byte for byte: ${name}`, async () => {
      const convertOptions = { baseUrl: BASE, documentUrl: `${BASE}/en/page/7` };
      const expected = await inProcess.convert(html, convertOptions, limits);
      const actual = await pool.convert(html, convertOptions, limits);
      assert.ok(expected.markdown.length > 0);
      assert.deepEqual(actual, expected);
    });
  }

  it('keeps the composing thread\'s markers: a marker paragraph prints verbatim, a look-alike escaped', async () => {
    const html = SYNTHETIC['markers, look-alikes, unsafe links, relative images']!;
    const { markdown } = await pool.convert(html, { baseUrl: BASE }, limits);
    assert.match(markdown, /^\[Omitted: unsupported block type "x"\]\n\n\\\[Omitted: x\\\]/);
  });

  it('abandons a worker conversion past its budget: it rejects, and the replaced worker converts again', async () => {
    const budgeted = createMarkdownConverter({ workers: 1, inProcessMaxChars: 0, timeoutMs: 8000 });
    try {
      // 16 MiB of dense markup with the bounds raised converts for 16 s or more (1 to 2.5 ms per KiB); the budget is 8 s,
      // time enough for the replacement worker to start and convert a small article on a loaded machine.
      const huge = denseHtml(16 * 1024 * 1024);
      const generous = resolveMarkdownLimits({ maxHtmlBytes: 32 * 1024 * 1024, maxElements: 10_000_000, maxMarkdownBytes: 32 * 1024 * 1024 });
      await assert.rejects(budgeted.convert(huge, { baseUrl: BASE }, generous), (error) => {
        assert.ok(error instanceof ConversionTimeoutError);
        assert.match(error.message, /the Markdown conversion exceeded its 8000 ms budget/);
        return true;
      });
      // The stuck worker was terminated and replaced: the next conversion is whole.
      const html = SYNTHETIC['markers, look-alikes, unsafe links, relative images']!;
      assert.deepEqual(await budgeted.convert(html, { baseUrl: BASE }, limits), await inProcess.convert(html, { baseUrl: BASE }, limits));
    } finally {
      await budgeted.close();
    }
  });

  it('after close, converts in process', async () => {
    const closing = createMarkdownConverter({ workers: 1, inProcessMaxChars: 0 });
    await closing.close();
    const html = SYNTHETIC['dense 100 KiB']!;
    assert.deepEqual(await closing.convert(html, { baseUrl: BASE }, limits), await inProcess.convert(html, { baseUrl: BASE }, limits));
  });
});

// One backend is enough: the conversion under test does not touch the database (PostgreSQL when set, it opens faster).
const backend = backends[backends.length - 1]!;
describe(`worker conversion of the demo articles composed by the templates (${backend.name})`, () => {
  let content: DemoDatabase;
  const env = createTemplateEnvironment([]);
  const pool = createMarkdownConverter({ workers: 1, inProcessMaxChars: 0, timeoutMs: 120_000 });
  before(async () => {
    content = await openDemoDatabase(backend);
  });
  after(async () => {
    await pool.close();
    await content?.close();
  });

  it('renders every visible demo resource to the same Markdown through the pool as in process', async () => {
    const rows = await content.db.selectFrom('rsc').select('id').orderBy('id').execute();
    let compared = 0;
    for (const { id } of rows) {
      for (const language of ['en', 'nl']) {
        const input = { db: content.db, env, options, id, language, baseUrl: BASE };
        const expected = await renderAgentMarkdown(input);
        const actual = await renderAgentMarkdown({ ...input, converter: pool });
        assert.deepEqual(actual, expected, `resource ${id} (${language})`);
        if (expected) compared++;
      }
    }
    assert.ok(compared >= 10, `compared ${compared} renderings`);
  });
});
