import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import type { Express } from 'express';
import { sql } from 'kysely';
import { backends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { insertCategory, insertEdges, insertResource } from '../example-site/content-store.js';
import { DEMO } from '../example-site/seed.js';
import { boundText, plainLine } from '../src/content/display-text.js';
import { chooseLanguage, isLanguageTag, storedLanguages } from '../src/content/language.js';
import { formatAgentLink } from '../src/links/link-format.js';
import { renderHeadLinks } from '../src/links/head-links.js';
import { MAX_LLMS_TXT_BYTES } from '../src/discovery/llms-txt.js';

const codePoints = (s: string): number => [...s].length;
/** Bidi embeddings, overrides and isolates, zero-width characters, the BOM, a soft hyphen. */
const FORMAT_CHARS = /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF\u00AD]/u;
/** The path and query of an absolute URL the plugin advertised, to ask the app under test. */
const local = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('display text', () => {
  it('bounds text at a character boundary with an ellipsis', () => {
    assert.equal(boundText('Harbour cranes of the 1920s', 12), 'Harbour cra…');
    assert.equal(boundText('short', 12), 'short');
    assert.equal(boundText('😀'.repeat(10), 10), '😀'.repeat(10), 'ten astral characters fit in ten');
    assert.equal(boundText('😀'.repeat(11), 10), `${'😀'.repeat(9)}…`, 'never half a surrogate pair');
    assert.equal(boundText('abcdefgh👨‍👩‍👧xyz', 12), 'abcdefgh…', 'a joined emoji is kept whole or dropped whole');
    assert.equal(boundText('abcdefgh🇳🇱🇳🇱xyz', 12), 'abcdefgh🇳🇱…', 'a flag is never split');
    assert.equal(boundText('e\u0301'.repeat(600), 512).slice(-3), 'e\u0301…', 'a combining mark stays with its letter');
    assert.equal(codePoints(boundText('a' + '\u0301'.repeat(100), 10)), 10, 'one oversized cluster is cut inside');
    assert.equal(codePoints(boundText('x'.repeat(2 ** 20), 512)), 512);
  });

  it('one line without control or format characters', () => {
    assert.equal(plainLine('Evil\u202Etxt.exe\r\n title\u200B\uFEFF\u2066x\u2069'), 'Eviltxt.exe titlex');
    assert.equal(plainLine('\u0000a\u0007b\tc'), 'a b c');
  });

  it('head links and Link values drop control and format characters from titles', () => {
    const link = { href: 'https://example.org/llms.txt', rel: 'describedby', title: 'Harbour\u202E\u200B\r\nGuide' };
    assert.match(renderHeadLinks([link]), /title="Harbour Guide"/);
    assert.match(formatAgentLink(link), /; title="Harbour Guide"$/);
  });
});

describe('stored language codes', () => {
  it('are well-formed language tags or skipped', () => {
    for (const ok of ['en', 'nl', 'pt-BR', 'zh-Hant-TW', 'de-CH-1996']) assert.ok(isLanguageTag(ok), ok);
    for (const bad of ['{中文}', '中文', 'en\r\nX-Evil: 1', 'e', 'english', `en-${'a'.repeat(40)}`, 'en-', '', null, 7]) assert.ok(!isLanguageTag(bad), String(bad));
    assert.deepEqual(storedLanguages(['nl', '{中文}', null, 'nl', 'en']), ['nl', 'en']);
    assert.deepEqual(storedLanguages('en'), []);
    assert.deepEqual(chooseLanguage(['{中文}', 'en\r\n'], 'nl', 'en').language, 'nl');
  });
});

for (const backend of backends) {
  describe(`stored data is not trusted [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let app: Express;
    before(async () => {
      demo = await openDemoDatabase(backend);
      ({ app } = await pluginApp(demo.db));
    });
    after(() => demo.close());

    it('malformed stored language codes never reach Content-Language, URLs or the language fields', async () => {
      const mixed = await insertResource(demo.db, {
        name: 'mixed_languages',
        category: 'article',
        language: ['{中文}', 'en\r\nX-Evil: 1', 'xx-'.repeat(20), 'nl'],
        title: { nl: 'Kadeplan', '{中文}': 'evil' },
        body: { nl: '<p>Een plan voor de kade.</p>' },
      });
      const none = await insertResource(demo.db, { name: 'no_good_languages', category: 'article', title: { en: 'Quay plan' }, body: { en: '<p>Plan.</p>' } });
      await sql`UPDATE rsc SET language = ARRAY['{中文}', NULL, ${'en\r\nX-Evil: 1'}, ${'a'.repeat(5000)}]::text[] WHERE id = ${none}`.execute(demo.db);

      for (const path of ['/agent/resource/mixed_languages/markdown', '/agent/resource/mixed_languages/markdown?language=nl']) {
        const md = await request(app).get(path);
        assert.equal(md.status, 200, path);
        assert.equal(md.headers['content-language'], 'nl');
      }
      const md = await request(app).get('/agent/resource/no_good_languages/markdown');
      assert.equal(md.status, 200);
      assert.equal(md.headers['content-language'], 'en');
      assert.equal(md.headers['x-evil'], undefined);

      const read = await request(app).get(`/api/agent/resource/${mixed}`);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.result.available_languages, ['nl']);
      assert.deepEqual(Object.keys(read.body.result.page_urls), ['nl']);
      const search = await request(app).get('/api/agent/search?text=Kadeplan');
      assert.deepEqual(search.body.result.items.map((i: { available_languages: string[] }) => i.available_languages), [['nl']]);
      const plain = await request(app).get(`/api/agent/resource/${none}`);
      assert.equal(plain.status, 200);
      assert.deepEqual(plain.body.result.available_languages, []);
      assert.ok(!/中文|X-Evil/.test(read.text + plain.text + search.text));
    });

    it('a resource in languages the site does not offer gets advertised URLs the facade accepts', async () => {
      const id = await insertResource(demo.db, {
        name: 'nur_deutsch',
        category: 'article',
        language: ['de', 'fr'],
        title: { de: 'Hafenkran', fr: 'Grue portuaire' },
        summary: { de: 'Ein Kran am Hafen.' },
        body: { de: '<p>Der Kran.</p>' },
      });
      for (const language of ['en', 'nl']) {
        const search = await request(app).get(`/api/agent/search?text=Hafenkran&language=${language}`);
        const [item] = search.body.result.items;
        assert.equal(item.id, id);
        assert.equal(item.language, 'de');
        for (const url of [item.json_url, item.markdown_url]) {
          const res = await request(app).get(local(url));
          assert.equal(res.status, 200, url);
          if (url === item.json_url) assert.equal(res.body.result.language, 'de', 'the advertised URL reads the same language');
        }
        const read = await request(app).get(local(item.json_url));
        for (const url of Object.values(read.body.result.links as Record<string, string>)) {
          assert.equal((await request(app).get(local(url))).status, 200, url);
        }
        const md = await request(app).get(local(item.markdown_url));
        assert.equal(md.headers['content-language'], 'de');
        const jsonLink = /\[This resource as JSON\]\(([^)]+)\)/.exec(md.text)![1]!;
        assert.equal((await request(app).get(local(jsonLink))).status, 200, jsonLink);
      }
    });

    it('list items bound titles to 512 and summaries to 2,048 characters; the read keeps the full text', async () => {
      const huge = await insertResource(demo.db, {
        name: 'huge_texts',
        category: 'keyword',
        title: { en: 'Harbour '.repeat(131072) },
        summary: { en: 'Quay '.repeat(209716) },
        body: { en: '<p>Short.</p>' },
        publicationStart: new Date(Date.now() - 2000),
      });
      await insertEdges(demo.db, [{ subject: await demo.id(DEMO.welcome), predicate: await demo.id('subject'), object: huge, seq: 99 }]);
      const long = await insertResource(demo.db, { name: 'long_title', category: 'article', title: { en: `Long ${'title '.repeat(600)}` } });

      const search = await request(app).get('/api/agent/search?sort=newest&pagelen=100');
      assert.equal(search.status, 200, 'one oversized resource does not make the list a 413');
      const items = search.body.result.items as { id: number; title: string; summary: string }[];
      for (const item of items) {
        assert.ok(codePoints(item.title) <= 512);
        assert.ok(codePoints(item.summary) <= 2048);
      }
      const item = items.find((i) => i.id === huge)!;
      assert.equal(codePoints(item.title), 512);
      assert.ok(item.title.endsWith('…'));
      assert.ok(item.summary.endsWith('…') && codePoints(item.summary) <= 2048);

      const related = await request(app).get(`/api/agent/related/${DEMO.welcome}?predicate=subject&pagelen=100`);
      assert.equal(related.status, 200);
      const edge = related.body.result.items.find((i: { resource: { id: number } }) => i.resource.id === huge);
      assert.ok(edge && codePoints(edge.resource.title) <= 512);

      const read = await request(app).get(`/api/agent/resource/${long}`);
      assert.equal(read.body.result.title, `Long ${'title '.repeat(600)}`);
      const listed = (await request(app).get('/api/agent/search?text=Long&pagelen=100')).body.result.items.find((i: { id: number }) => i.id === long);
      assert.equal(codePoints(listed.title), 512);
    });

    it('llms.txt stays under 64 KiB and 50 categories, without control or format characters', async () => {
      const title = `Kaai\u202E\u200B\r\n${'港'.repeat(3000)}`;
      for (let i = 0; i < 55; i++) {
        await insertCategory(demo.db, { name: `wide_${i}`, title: { en: title }, summary: { en: `\u2066${'岸'.repeat(3000)}\u2069` } });
        await insertResource(demo.db, { category: `wide_${i}`, title: { en: `Entry ${i}` } });
      }
      const res = await request(app).get('/llms.txt');
      assert.equal(res.status, 200);
      assert.ok(Buffer.byteLength(res.text) <= MAX_LLMS_TXT_BYTES, `${Buffer.byteLength(res.text)} bytes`);
      assert.ok(!FORMAT_CHARS.test(res.text));
      assert.ok(!/\r/.test(res.text));
      const section = res.text.split('## Browse by category\n\n')[1]!.split('\n\n')[0]!.trimEnd().split('\n');
      assert.ok(section.length >= 1 && section.length <= 50, `${section.length} categories`);
      for (const line of section) {
        const m = /^- \[([^\]]*)\]\((https?:\/\/[^)\s]+)\): (.*)$/.exec(line);
        assert.ok(m, line.slice(0, 80));
        assert.ok(codePoints(m[1]!) <= 512 && codePoints(m[3]!) <= 2048);
        assert.equal((await request(app).get(local(m[2]!))).status, 200);
      }
    });

    it('the API help search example stays within the text limit and finds something', async () => {
      await insertResource(demo.db, {
        name: 'one_long_word',
        category: 'article',
        title: { en: `${'w'.repeat(2000)} Lighthouse` },
        publicationStart: new Date(Date.now() - 1000),
      });
      const help = await request(app).get('/api-help');
      assert.equal(help.status, 200);
      const examples = [...help.text.matchAll(/href="([^"]*\/api\/agent\/search\?text=[^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
      assert.ok(examples.length >= 1, 'a search example is shown');
      for (const url of examples) {
        const text = new URL(url).searchParams.get('text')!;
        assert.ok(Buffer.byteLength(text) <= 512);
        assert.equal(text, 'Lighthouse');
        const res = await request(app).get(local(url));
        assert.equal(res.status, 200);
        assert.ok(res.body.result.items.length >= 1);
      }
    });

    it('X-Content-Type-Options: nosniff on every plugin response', async () => {
      const welcome = await demo.id(DEMO.welcome);
      // One Host for all, so that the representation (its absolute URLs) and its ETag stay the same.
      const get = (path: string) => request(app).get(path).set('Host', 'example.org');
      const first = await get('/api/agent/search');
      const cases = [
        first,
        await get('/api/agent/search').set('If-None-Match', first.headers.etag!),
        await request(app).head('/llms.txt'),
        await request(app).get('/.well-known/api-catalog'),
        await request(app).get('/api/agent/resource/999999'),
        await request(app).get('/api/agent/search?bogus=1'),
        await request(app).post('/llms.txt'),
        await request(app).delete('/api/agent/search'),
        await request(app).get(`/id/${welcome}`).set('Accept', 'text/markdown'),
        await request(app).get(`/agent/resource/${welcome}/markdown`),
        await request(app).get(`/api/model/edge/get/o/${welcome}/subject`),
        await request(app).get('/api/agent/resource/%zz'),
      ];
      assert.deepEqual(cases.map((r) => r.status), [200, 304, 200, 200, 404, 400, 405, 405, 303, 200, 200, 400]);
      for (const res of cases) assert.equal(res.headers['x-content-type-options'], 'nosniff', String(res.status));
    });
  });
}
