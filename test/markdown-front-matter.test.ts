import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import request from 'supertest';
import fc from 'fast-check';
import { parse as parseYaml, parseDocument } from 'yaml';
import type { Express } from 'express';
import { renderFrontMatter, yamlString } from '../src/markdown/front-matter.js';
import { formatSize } from '../src/markdown/medium.js';
import { insertMedium, insertResource } from '../example-site/content-store.js';
import { DEMO } from '../example-site/seed.js';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';

const FIXTURES = path.resolve('test/fixtures/markdown-templates');

/** Titles that break naive YAML: indicators, quotes, escapes, line breaks, hidden characters. */
const HOSTILE_TITLES = [
  'Harbour: a history',
  '# not a comment',
  '- not a list',
  '"quoted" and \'single\'',
  'back\\slash \\n not a newline',
  'two\nlines\r\nand\ttab',
  '---',
  '...',
  'yes',
  'null',
  '~',
  '0x1F',
  '2024-01-01',
  '@at `tick` | pipe > gt { brace } [bracket] & amp * star ! bang % pct',
  'ends with colon:',
  ' leading and trailing spaces ',
  '',
  'Zürich – 港口 – гавань – 🚢 ship',
  'bidi \u202Eevil\u202C zero\u200Bwidth \uFEFF bom \u00AD soft',
  'controls \u0000 \u0007 \u001B \u007F \u0085 \u009F',
  'separators \u2028 line \u2029 paragraph',
  'nonchar \uFFFE \uFFFF',
  'tag char \u{E0041} astral',
  'lone \uD800 surrogate',
];

/** The front matter block of a Markdown document, parsed by a real YAML parser. */
function frontMatterOf(markdown: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---\n\n/.exec(markdown);
  assert.ok(m, 'the document opens with a front matter block');
  const doc = parseDocument(m[1]!);
  assert.deepEqual(doc.errors, [], 'valid YAML');
  return doc.toJS() as Record<string, unknown>;
}

describe('YAML front matter strings', () => {
  it('every hostile title reads back exactly, in YAML 1.2 and 1.1, on one line', () => {
    for (const title of HOSTILE_TITLES) {
      const scalar = yamlString(title);
      assert.doesNotMatch(scalar, /[\n\r\u2028\u2029\u0085]/, JSON.stringify(title));
      const expected = title.replace(/\uD800/, '\uFFFD');
      for (const version of ['1.2', '1.1'] as const) {
        assert.equal(parseYaml(`title: ${scalar}\n`, { version }).title, expected, `${version}: ${JSON.stringify(title)}`);
      }
    }
  });

  it('any string reads back exactly (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const parsed = parseYaml(`title: ${yamlString(text)}\n`).title as string;
        return parsed === text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
      }),
      { numRuns: 2000 },
    );
  });

  it('hidden characters are visible escapes', () => {
    assert.equal(yamlString('a\u202Eb\u200Bc'), '"a\\u202Eb\\u200Bc"');
    assert.equal(yamlString('\u{E0041}'), '"\\U000E0041"');
    assert.equal(yamlString('say "hi"\\'), '"say \\"hi\\"\\\\"');
  });

  it('renders the fields in order, strings quoted, optional ones only when set', () => {
    const block = renderFrontMatter({ title: 'T: x', url: 'https://e.org/en/page/1', language: 'en', modified: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)), content_complete: false });
    assert.equal(block, '---\ntitle: "T: x"\nurl: "https://e.org/en/page/1"\nlanguage: "en"\nmodified: "2024-01-02T03:04:05.000Z"\ncontent_complete: false\n---\n\n');
    const full = frontMatterOf(renderFrontMatter({ title: 'T', url: 'u', language: 'nl', modified: new Date(0), license: 'CC0', attribution: 'A "B"', content_complete: true }));
    assert.deepEqual(Object.keys(full), ['title', 'url', 'language', 'modified', 'license', 'attribution', 'content_complete']);
    assert.equal(full.attribution, 'A "B"');
    assert.equal(full.content_complete, true);
  });

  it('sizes in binary units', () => {
    assert.equal(formatSize(null), '');
    assert.equal(formatSize(1), '1 byte');
    assert.equal(formatSize(1023), '1023 bytes');
    assert.equal(formatSize(12105), '11.8 KiB');
    assert.equal(formatSize(5 * 1024 * 1024), '5.0 MiB');
  });
});

for (const backend of surfaceBackends) {
  describe(`Markdown front matter and media [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let app: Express;
    before(async () => {
      demo = await openDemoDatabase(backend);
      ({ app } = await pluginApp(demo.db, { baseUrl: 'https://harbour.example' }));
    });
    after(() => demo.close());

    it('cites the resource: title, page URL and language actually used, dates, description, categories, authors, word count, license, attribution, content_complete', async () => {
      const id = await demo.id(DEMO.welcome);
      const row = await demo.db.selectFrom('rsc').select(['modified', 'publication_start']).where('id', '=', id).executeTakeFirstOrThrow();
      const md = await request(app).get(`/agent/resource/${id}/markdown?language=nl`);
      assert.equal(md.status, 200);
      const fm = frontMatterOf(md.text);
      const json = (await request(app).get(`/api/agent/resource/${id}?language=nl`)).body.result;
      assert.deepEqual(fm, {
        title: 'Welkom op de voorbeeldsite',
        url: `https://harbour.example/nl/page/${id}`,
        language: 'nl',
        published: new Date(row.publication_start).toISOString(),
        modified: new Date(row.modified).toISOString(),
        description: 'Wat deze site publiceert en hoe agents het kunnen lezen.',
        categories: ['Artikelen'],
        authors: ['Ada Lovelace'],
        word_count: json.word_count,
        license: 'CC BY 4.0',
        attribution: 'Redactie Voorbeeldsite',
        content_complete: true,
      });
      assert.ok(json.word_count > 20 && json.word_count < 200, String(json.word_count));
      // The same facts as the JSON read.
      assert.equal(fm.url, json.page_url);
      assert.equal(fm.modified, json.modified);
      assert.equal(fm.published, json.publication_start);
      assert.equal(fm.description, json.summary);
      assert.deepEqual(json.authors.map((a: { title: string }) => a.title), fm.authors);
      assert.deepEqual(json.tags, []);
      assert.ok(!json.content.startsWith('---'), 'the JSON content has no front matter (its fields are in the JSON)');
    });

    it('the language is the one used: a fallback cites the fallback page', async () => {
      const id = await demo.id(DEMO.englishOnly);
      const fm = frontMatterOf((await request(app).get(`/agent/resource/${id}/markdown?language=nl`)).text);
      assert.equal(fm.language, 'en');
      assert.equal(fm.url, `https://harbour.example/en/page/${id}`);
      assert.equal(fm.license, undefined);
      assert.equal(fm.attribution, undefined);
    });

    it('content_complete false when a block is omitted', async () => {
      const fm = frontMatterOf((await request(app).get(`/agent/resource/${DEMO.blocks}/markdown`)).text);
      assert.equal(fm.content_complete, false);
    });

    it('hostile titles and attributions stay inside the front matter and read back exactly', async () => {
      // jsonb cannot store U+0000 or a lone surrogate: every other hostile title goes through the database.
      for (const title of HOSTILE_TITLES.filter((t) => !/\u0000|\uD800/.test(t))) {
        const id = await insertResource(demo.db, { category: 'article', title: { en: title || 'x' }, attribution: { en: `${title}\n---\nfake: true` } });
        const md = await request(app).get(`/agent/resource/${id}/markdown`);
        assert.equal(md.status, 200, JSON.stringify(title));
        const fm = frontMatterOf(md.text);
        assert.equal(fm.title, title || 'x');
        assert.equal(fm.attribution, `${title}\n---\nfake: true`);
        assert.equal(fm.fake, undefined);
      }
    });

    it('an override template cannot break or remove it (it is outside the templates)', async () => {
      const { app: overridden } = await pluginApp(demo.db, { baseUrl: 'https://harbour.example', templateDirs: [path.join(FIXTURES, 'content-override')] });
      const md = await request(overridden).get(`/agent/resource/${DEMO.welcome}/markdown`);
      assert.equal(md.status, 200);
      assert.equal(frontMatterOf(md.text).title, 'Welcome to the example site');
    });

    it('an image resource shows its image and its download link (mime, size) from mediaUrl', async () => {
      const id = await demo.id(DEMO.image);
      const md = await request(app).get(`/agent/resource/${id}/markdown`);
      const url = 'https://harbour.example/media/attachment/harbour-dawn.png';
      assert.ok(md.text.includes(`![The harbour at dawn](${url})`), md.text);
      assert.ok(md.text.includes(`[harbour-dawn.png](${url}) (image/png, 11.8 KiB, 160×90 pixels)`), md.text);
      const json = (await request(app).get(`/api/agent/resource/${id}`)).body.result;
      assert.equal(json.medium.download_url, url);
      assert.ok(json.content.includes(`![The harbour at dawn](${url})`), 'the JSON content is the same composition');

      const { app: cdn } = await pluginApp(demo.db, {
        baseUrl: 'https://harbour.example',
        mediaUrl: (m) => `https://cdn.example/files/${m.id}/${encodeURIComponent(m.filename)}?type=${encodeURIComponent(m.mime)}`,
      });
      const viaCdn = await request(cdn).get(`/agent/resource/${id}/markdown?language=nl`);
      assert.ok(viaCdn.text.includes(`![De haven bij dageraad](https://cdn.example/files/${id}/harbour-dawn.png?type=image%2Fpng)`), viaCdn.text);
    });

    it('a non-image medium gets only the download link; other resources show no medium, not even a depicted one', async () => {
      const pdf = await insertResource(demo.db, { category: 'article', title: { en: 'Annual report' } });
      await insertMedium(demo.db, { rscId: pdf, mime: 'application/pdf', filename: 'report 2024.pdf' });
      const md = (await request(app).get(`/agent/resource/${pdf}/markdown`)).text;
      assert.ok(md.includes('[report 2024.pdf](https://harbour.example/media/attachment/report%202024.pdf) (application/pdf)'), md);
      assert.doesNotMatch(md, /!\[/);
      // The welcome page depicts the photo (an edge), but only a resource's own medium is shown.
      const welcome = (await request(app).get(`/agent/resource/${DEMO.welcome}/markdown`)).text;
      assert.doesNotMatch(welcome, /harbour-dawn|Download:/);
    });
  });
}
