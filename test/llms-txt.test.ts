import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { sql } from 'kysely';
import type { Express } from 'express';
import { buildLlmsTxt, markdownLine, MAX_LLMS_TXT_BYTES } from '../src/discovery/llms-txt.js';
import { defaultLlmsNotes } from '../src/settings/default-texts.js';
import { buildCategoryLlmsTxt } from '../src/discovery/category-llms-txt.js';
import { resolveOptions } from '../src/options.js';
import { insertCategory, insertResource } from '../example-site/content-store.js';
import { DEMO } from '../example-site/seed.js';
import { surfaceBackends } from './support/backends.js';
import { DEMO_PLUGIN_OPTIONS, openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { ReferenceParseError, parseLlmsFile } from './support/llms-txt-reference.js';

const BASE = 'https://harbour.example';

describe('the llmstxt.org reference grammar (ported parse_llms_file)', () => {
  it('loses the summary when nothing follows the ">" line before the first section (what it did to us)', () => {
    const doc = parseLlmsFile('# Site\n\n> The summary.\n\n## API\n\n- [Help](https://e.org/help): how\n');
    assert.equal(doc.title, 'Site');
    assert.equal(doc.summary, null);
    assert.equal(doc.info, '> The summary.');
  });
  it('keeps title, summary, info and sections when a paragraph follows', () => {
    const doc = parseLlmsFile('# Site\n\n> The summary.\n\nNotes here.\n\nMore notes.\n\n## API\n\n- [Help](https://e.org/help): how: really\n- [Bare](https://e.org/b)\n\n## Optional\n- [X](https://e.org/x)\n');
    assert.deepEqual(doc, {
      title: 'Site',
      summary: 'The summary.',
      info: 'Notes here.\n\nMore notes.',
      sections: {
        API: [
          { title: 'Help', url: 'https://e.org/help', desc: 'how: really' },
          { title: 'Bare', url: 'https://e.org/b', desc: null },
        ],
        Optional: [{ title: 'X', url: 'https://e.org/x', desc: null }],
      },
    });
  });
  it('throws where the Python parser raises: a section line that is not a link item, no title', () => {
    assert.throws(() => parseLlmsFile('# S\n\n> s\n\ni\n\n## A\n\nplain text\n'), ReferenceParseError);
    assert.throws(() => parseLlmsFile('no title\n'), ReferenceParseError);
  });
});

describe('buildLlmsTxt', () => {
  const site = { title: 'Harbour', description: 'About harbours.', base: BASE, categories: [] };
  it('the default notes say what the site offers, that no key is needed, and how to cite', () => {
    const doc = parseLlmsFile(buildLlmsTxt(site));
    assert.equal(doc.summary, 'About harbours.');
    assert.equal(doc.info, markdownLine(defaultLlmsNotes('Harbour')));
    assert.match(doc.info, /Markdown/);
    assert.match(doc.info, /No API key/);
    assert.match(doc.info, /cite/);
    assert.match(doc.info, /the url in the Markdown front matter/);
    assert.match(doc.info, /page\\_url/);
  });
  it("operator notes: each line a paragraph, escaped so it opens no heading, summary, section or link; blank or empty ones fall back", () => {
    const notes = 'First line\nsame paragraph.\n\n## Not a section\n\n# Not a title\n\n> not a summary\n\n- [not](https://x.example/): an item';
    const text = buildLlmsTxt({ ...site, notes });
    const doc = parseLlmsFile(text);
    assert.equal(doc.title, 'Harbour');
    assert.equal(doc.summary, 'About harbours.');
    assert.deepEqual(Object.keys(doc.sections), ['API']);
    assert.equal(doc.info, 'First line\n\nsame paragraph.\n\n\\## Not a section\n\n\\# Not a title\n\n\\> not a summary\n\n\\- \\[not\\](https://x.example/): an item');
    for (const blank of ['', ' \n\n \u0007 ']) assert.equal(parseLlmsFile(buildLlmsTxt({ ...site, notes: blank })).info, markdownLine(defaultLlmsNotes('Harbour')));
  });
  it('newest items link the Markdown URL in the given language; long summaries are cut', () => {
    const text = buildLlmsTxt({ ...site, newest: [{ id: 7, title: 'A [b] c', summary: 'x'.repeat(1000), language: 'nl' }, { id: 8, title: 'D', summary: '', language: 'en' }] });
    const newest = parseLlmsFile(text).sections.Newest!;
    assert.deepEqual(newest.map((i) => [i.title, i.url]), [['A (b) c', `${BASE}/agent/resource/7/markdown?language=nl`], ['D', `${BASE}/agent/resource/8/markdown?language=en`]]);
    assert.equal([...newest[0]!.desc!].length, 300);
    assert.ok(newest[0]!.desc!.endsWith('…'));
  });
});

describe('llmsNotes and llmsNewest options', () => {
  const base = { ...DEMO_PLUGIN_OPTIONS, database: { memory: true as const } };
  it('defaults: 10 newest, default notes', () => {
    const o = resolveOptions(base);
    assert.equal(o.llmsNewest, 10);
    assert.equal(o.llmsNotes, undefined);
  });
  it('rejects bad values, naming the option', () => {
    for (const [bad, name] of [[{ llmsNewest: 51 }, 'llmsNewest'], [{ llmsNewest: -1 }, 'llmsNewest'], [{ llmsNewest: 2.5 }, 'llmsNewest'], [{ llmsNewest: '5' }, 'llmsNewest'], [{ llmsNotes: '  ' }, 'llmsNotes'], [{ llmsNotes: 'x'.repeat(2001) }, 'llmsNotes']] as const) {
      assert.throws(() => resolveOptions({ ...base, ...bad }), new RegExp(`^TypeError: express-agent-discovery: invalid options: option "${name}"`));
    }
  });
});

for (const backend of surfaceBackends) {
  describe(`/llms.txt newest section and notes [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let app: Express;
    before(async () => {
      demo = await openDemoDatabase(backend);
      ({ app } = await pluginApp(demo.db, { baseUrl: BASE }));
    });
    after(() => demo.close());

    it('the reference parser keeps the summary and reads every section as link items', async () => {
      const res = await request(app).get('/llms.txt');
      assert.equal(res.status, 200);
      const doc = parseLlmsFile(res.text);
      assert.equal(doc.title, 'Example Site');
      assert.equal(doc.summary, 'Articles about harbours and open data.');
      assert.equal(doc.info, markdownLine(defaultLlmsNotes('Example Site')));
      assert.deepEqual(Object.keys(doc.sections), ['API', 'Browse by category', 'Category indexes', 'Newest']);
      for (const items of Object.values(doc.sections)) for (const i of items) assert.ok(i.url.startsWith(`${BASE}/`) && i.desc, i.url);
    });

    it('reads the run-time settings and the newest resources in one statement: llms.txt two statements (one once kept in the cache), API help one', async () => {
      let executed = 0;
      const counting = demo.db.withPlugin({ transformQuery: (args) => args.node, transformResult: async (args) => (executed++, args.result) });
      for (const [cache, llmsTxtStatements] of [[false, 2], [undefined, 1]] as const) {
        const { app: counted } = await pluginApp(counting, { baseUrl: BASE, ...(cache === false ? { cache } : {}) });
        const first = await request(counted).get('/llms.txt').expect(200); // the first settings read finds the table
        for (const [path, statements] of [['/llms.txt', llmsTxtStatements], ['/api-help', 1]] as const) {
          executed = 0;
          const res = await request(counted).get(path).expect(200);
          // Kept: the settings and the content version are read, the rest is the build of the first request.
          assert.equal(executed, statements, `${path}, cache ${cache}`);
          if (path === '/llms.txt') assert.equal(res.text, first.text, 'the same document as with the separate settings read');
        }
      }
    });

    it('lists the 10 newest public, indexable, non-vocabulary resources, newest first, as the search does', async () => {
      const newest = parseLlmsFile((await request(app).get('/llms.txt')).text).sections.Newest!;
      const search = (await request(app).get('/api/agent/search?sort=newest&pagelen=10')).body.result.items as { id: number; title: string; language: string }[];
      assert.equal(newest.length, 10);
      assert.deepEqual(
        newest.map((i) => i.url),
        search.map((s) => `${BASE}/agent/resource/${s.id}/markdown?language=${s.language}`),
      );
      assert.deepEqual(newest.map((i) => i.title), search.map((s) => s.title));
      // The Dutch-only article is linked in Dutch, the rest in the site default.
      const dutch = await demo.id(DEMO.dutchOnly);
      assert.ok(newest.some((i) => i.url.endsWith(`/${dutch}/markdown?language=nl`) && i.title === 'Alleen in het Nederlands'));
      for (const i of newest) {
        const md = await request(app).get(new URL(i.url).pathname + new URL(i.url).search);
        assert.equal(md.status, 200, i.url);
        assert.match(md.text, /^---\ntitle: /);
      }
    });

    it('never lists private, unpublished, scheduled, noindex, noindex-category or vocabulary resources', async () => {
      // Make every hidden resource the newest there is: none may appear.
      const hidden = [DEMO.private, DEMO.unpublished, DEMO.scheduled, DEMO.expired, DEMO.noindex, DEMO.pressRelease, 'author', 'article'];
      await sql`UPDATE rsc SET publication_start = now() - interval '1 minute' WHERE name IN (${sql.join(hidden.filter((n) => n !== DEMO.scheduled))})`.execute(demo.db);
      const text = (await request(app).get('/llms.txt')).text;
      const urls = parseLlmsFile(text).sections.Newest!.map((i) => i.url);
      const ids = await Promise.all(hidden.map((n) => demo.id(n)));
      for (const id of ids) assert.ok(!urls.some((u) => u.startsWith(`${BASE}/agent/resource/${id}/`)), String(id));
      assert.equal(urls.length, 10);
      assert.doesNotMatch(text, /SECRET|Not for search engines|Press release/);
    });

    it('llmsNewest sets the count (0 turns the section off); llmsNotes replaces the notes', async () => {
      const { app: three } = await pluginApp(demo.db, { baseUrl: BASE, llmsNewest: 3, llmsNotes: 'Written by the harbour archive.\n\nCite the page URL.' });
      const doc = parseLlmsFile((await request(three).get('/llms.txt')).text);
      assert.equal(doc.sections.Newest!.length, 3);
      assert.equal(doc.info, 'Written by the harbour archive.\n\nCite the page URL.');
      assert.equal(doc.summary, 'Articles about harbours and open data.');
      const { app: none } = await pluginApp(demo.db, { baseUrl: BASE, llmsNewest: 0 });
      assert.equal(parseLlmsFile((await request(none).get('/llms.txt')).text).sections.Newest, undefined);
      const { app: noindex } = await pluginApp(demo.db, { baseUrl: BASE, noindex: true });
      const closed = parseLlmsFile((await request(noindex).get('/llms.txt')).text);
      assert.equal(closed.sections.Newest, undefined, 'a noindex site lists nothing');
      assert.ok(closed.summary);
    });

    it('a new public resource appears at the top and changes the ETag', async () => {
      const before = await request(app).get('/llms.txt');
      const id = await insertResource(demo.db, { category: 'article', title: { en: 'Fresh: just in' }, publicationStart: new Date(Date.now() - 1000) });
      const after = await request(app).get('/llms.txt');
      assert.notEqual(after.headers.etag, before.headers.etag);
      assert.equal(parseLlmsFile(after.text).sections.Newest![0]!.url, `${BASE}/agent/resource/${id}/markdown?language=en`);
    });
  });
}

describe('buildCategoryLlmsTxt', () => {
  const category = { id: 3, ref: 'harbour', title: 'Harbours', summary: 'Quays and cranes.' };
  it('follows the reference grammar: the category as H1, its summary, a paragraph, Newest and Continue', () => {
    const doc = parseLlmsFile(buildCategoryLlmsTxt({ siteTitle: 'Site', base: BASE, category, newest: [{ id: 7, title: 'Crane', summary: 'Tall.', language: 'en' }] }));
    assert.equal(doc.title, 'Harbours');
    assert.equal(doc.summary, 'Quays and cranes.');
    assert.match(doc.info!, /^Part of Site: /);
    assert.deepEqual(Object.keys(doc.sections), ['Newest', 'Continue']);
    assert.deepEqual(doc.sections.Newest!.map((i) => i.url), [`${BASE}/agent/resource/7/markdown?language=en`]);
    assert.deepEqual(doc.sections.Continue!.map((i) => i.url), [`${BASE}/api/agent/search?cat=harbour&sort=newest`, `${BASE}/llms.txt`]);
  });
  it('stays within 64 KiB with huge titles and many resources; titles lose control and format characters', () => {
    const huge = `Kaai\u202E\u200B\r\n${'港'.repeat(3000)}`;
    const newest = Array.from({ length: 50 }, (_, i) => ({ id: i + 1, title: huge, summary: '岸'.repeat(3000), language: 'en' }));
    const text = buildCategoryLlmsTxt({ siteTitle: huge, base: BASE, category: { ...category, title: huge, summary: huge }, newest });
    assert.ok(Buffer.byteLength(text) <= MAX_LLMS_TXT_BYTES);
    assert.doesNotMatch(text, /[\u202E\u200B\r]/);
    const doc = parseLlmsFile(text);
    assert.ok(doc.sections.Newest!.length >= 1 && doc.sections.Newest!.length < 50);
    assert.equal(doc.sections.Continue!.length, 2, 'the continuation is never crowded out');
  });
});

for (const backend of surfaceBackends) {
  describe(`/llms/{category}.txt [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let app: Express;
    before(async () => {
      demo = await openDemoDatabase(backend);
      ({ app } = await pluginApp(demo.db, { baseUrl: BASE }));
      // A noindex and a members-only top-level category, each with a public resource.
      await insertCategory(demo.db, { name: 'hidden_top', isNoindex: true, title: { en: 'Hidden top' } });
      await insertResource(demo.db, { category: 'hidden_top', title: { en: 'In a noindex category' } });
      await insertCategory(demo.db, { name: 'members_top', visibility: 'members', title: { en: 'Members top' } });
      await insertResource(demo.db, { category: 'members_top', title: { en: 'In a members category' } });
    });
    after(() => demo.close());
    const local = (url: string) => url.slice(BASE.length);

    it('the root links one per listed category; each resolves, follows the grammar and lists only its own public, indexable resources', async () => {
      const root = parseLlmsFile((await request(app).get('/llms.txt')).text);
      const indexes = root.sections['Category indexes']!;
      assert.deepEqual(indexes.map((i) => i.url), root.sections['Browse by category']!.map((i) => `${BASE}/llms/${new URL(i.url).searchParams.get('cat')}.txt`));
      assert.deepEqual(indexes.map((i) => local(i.url)), ['/llms/text.txt', '/llms/person.txt', '/llms/keyword.txt', '/llms/image.txt']);
      for (const i of indexes) {
        const res = await request(app).get(local(i.url));
        assert.equal(res.status, 200, i.url);
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
        const doc = parseLlmsFile(res.text);
        assert.equal(doc.title, i.title);
        assert.ok(doc.summary && doc.info);
        const cat = new URL(doc.sections.Continue![0]!.url).searchParams.get('cat')!;
        const search = await request(app).get(`/api/agent/search?cat=${cat}&sort=newest&pagelen=10`).expect(200);
        const items = search.body.result.items as { id: number; language: string }[];
        assert.deepEqual(doc.sections.Newest!.map((n) => n.url), items.map((s) => `${BASE}/agent/resource/${s.id}/markdown?language=${s.language}`));
        for (const link of [...doc.sections.Newest!, ...doc.sections.Continue!]) assert.equal((await request(app).get(local(link.url))).status, 200, link.url);
        assert.doesNotMatch(res.text, /SECRET|Not for search engines|Press release|Internal notes/);
      }
    });

    it('a noindex, members-only, vocabulary, nested or unknown category answers 404; the id of a listed one answers too', async () => {
      for (const name of ['hidden_top', 'members_top', 'meta', 'article', DEMO.noindexCategory, 'internal_notes', 'no_such_category']) {
        const res = await request(app).get(`/llms/${name}.txt`);
        assert.equal(res.status, 404, name);
      }
      assert.equal((await request(app).get(`/llms/${await demo.id('text')}.txt`)).status, 200);
      const { app: closed } = await pluginApp(demo.db, { baseUrl: BASE, noindex: true });
      assert.equal((await request(closed).get('/llms/text.txt')).status, 404, 'a noindex site lists no category');
    });

    it('GET and HEAD with a strong ETag and 304; other methods 405', async () => {
      const res = await request(app).get('/llms/text.txt').expect(200);
      assert.match(res.headers.etag!, /^"/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      await request(app).get('/llms/text.txt').set('If-None-Match', res.headers.etag!).set('Cache-Control', 'no-cache').expect(304);
      const head = await request(app).head('/llms/text.txt').expect(200);
      assert.equal(head.headers.etag, res.headers.etag);
      const post = await request(app).post('/llms/text.txt').expect(405);
      assert.equal(post.headers.allow, 'GET, HEAD');
    });
  });
}
