import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import express, { type Express } from 'express';
import { sql } from 'kysely';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';
import { insertCategory, insertPredicate } from '../example-site/content-store.js';

const SUMMARY_KEYS = [
  'available_languages', 'category', 'id', 'is_fallback', 'json_url', 'language', 'markdown_url', 'modified',
  'page_url', 'publication_start', 'requested_language', 'summary', 'title', 'uri',
].sort();

for (const backend of surfaceBackends) {
  describe(`facade reads [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let app: Express;
    before(async () => {
      demo = await openDemoDatabase(backend);
      ({ app } = await pluginApp(demo.db, { baseUrl: 'https://harbour.example' }));
    });
    after(() => demo.close());

    it('search items carry exactly the documented fields, absolute URLs and UTC timestamps', async () => {
      const res = await request(app).get('/api/agent/search?text=welcome');
      assert.equal(res.status, 200);
      const item = res.body.result.items.find((i: { id: number }) => i.id === undefined || true);
      assert.deepEqual(Object.keys(item).sort(), SUMMARY_KEYS);
      const welcome = await demo.id(DEMO.welcome);
      assert.equal(res.body.result.items[0].id, welcome);
      assert.equal(item.uri, `https://harbour.example/id/${welcome}`);
      assert.equal(item.page_url, `https://harbour.example/en/page/${welcome}`);
      assert.equal(item.json_url, `https://harbour.example/api/agent/resource/${welcome}?language=en`);
      assert.equal(item.markdown_url, `https://harbour.example/agent/resource/${welcome}/markdown?language=en`);
      assert.match(item.publication_start, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.match(item.modified, /Z$/);
      assert.deepEqual(item.category, { id: await demo.id('article'), name: 'article', title: 'Articles' });
      assert.deepEqual(Object.keys(res.body.result).sort(), ['items', 'limit_reached', 'next', 'next_url', 'page', 'pagelen']);
    });

    it('search filters: category subtree, dates inclusive in UTC, noindex and meta excluded', async () => {
      const guides = await request(app).get('/api/agent/search?cat=article&pagelen=100&sort=newest');
      const ids = guides.body.result.items.map((i: { id: number }) => i.id);
      assert.ok(ids.includes(await demo.id(DEMO.pageOuter)), 'subcategory "guide" included under "article"');
      assert.ok(!ids.includes(await demo.id(DEMO.noindex)), 'noindex resource not listed');
      const all = await request(app).get('/api/agent/search?pagelen=100&text=press');
      assert.equal(all.body.result.items.length, 0, 'members of a noindex category not listed');
      const meta = await request(app).get('/api/agent/search?text=author');
      assert.ok(!meta.body.result.items.some((i: { category: { name: string } }) => i.category.name === 'predicate'));

      const id = await demo.id(DEMO.englishOnly);
      await sql`UPDATE rsc SET publication_start = '2021-06-15T23:59:59.999999Z' WHERE id = ${id}`.execute(demo.db);
      const q = (a: string, b: string) => request(app).get(`/api/agent/search?publication_after=${a}&publication_before=${b}&pagelen=100`);
      assert.deepEqual((await q('2021-06-15', '2021-06-15')).body.result.items.map((i: { id: number }) => i.id), [id], 'the before date includes its whole day');
      assert.deepEqual((await q('2021-06-16', '2021-06-30')).body.result.items, []);
      assert.deepEqual((await q('2021-06-01', '2021-06-14')).body.result.items, []);
    });

    it('resource read: fields, per-language page URLs, license, attribution, medium, links', async () => {
      const photo = await demo.id(DEMO.image);
      const res = await request(app).get(`/api/agent/resource/${DEMO.image}?language=nl`);
      assert.equal(res.status, 200);
      const r = res.body.result;
      assert.equal(r.id, photo);
      assert.equal(r.title, 'De haven bij dageraad');
      assert.equal(r.language, 'nl');
      assert.equal(r.is_fallback, false);
      assert.deepEqual(r.page_urls, { en: `https://harbour.example/en/page/${photo}`, nl: `https://harbour.example/nl/page/${photo}` });
      assert.equal(r.page_url, `https://harbour.example/nl/page/${photo}`);
      assert.equal(r.license, 'CC BY-SA 4.0');
      assert.equal(r.attribution, 'Foto: Voorbeeld Havenarchief');
      assert.deepEqual(r.medium, { mime: 'image/png', width: 160, height: 90, size: 12105, download_url: 'https://harbour.example/media/attachment/harbour-dawn.png' });
      assert.equal(r.links.markdown, `https://harbour.example/agent/resource/${photo}/markdown?language=nl`);
      assert.equal(r.links.related_in, `https://harbour.example/api/agent/related/${photo}?direction=in&language=nl`);
      assert.equal(typeof r.content, 'string');
      assert.equal(typeof r.content_complete, 'boolean');
      const documented = ['attribution', 'authors', 'available_languages', 'category', 'content', 'content_complete', 'created', 'id', 'is_fallback', 'language', 'license', 'links', 'medium', 'modified', 'page_url', 'page_urls', 'publication_end', 'publication_start', 'requested_language', 'summary', 'tags', 'title', 'uri', 'word_count'];
      assert.deepEqual(Object.keys(r).sort(), documented);
      // No licence supplied: the fields are absent, not invented.
      const plain = await request(app).get(`/api/agent/resource/${DEMO.englishOnly}`);
      assert.equal('license' in plain.body.result, false);
      assert.equal('medium' in plain.body.result, false);
    });

    it('language fallback: requested, then the site default, then the resource\'s first language', async () => {
      const en = await request(app).get(`/api/agent/resource/${DEMO.englishOnly}?language=nl`);
      assert.deepEqual(
        [en.body.result.requested_language, en.body.result.language, en.body.result.available_languages, en.body.result.is_fallback],
        ['nl', 'en', ['en'], true],
      );
      const nl = await request(app).get(`/api/agent/resource/${DEMO.dutchOnly}`);
      assert.deepEqual([nl.body.result.requested_language, nl.body.result.language, nl.body.result.is_fallback], ['en', 'nl', true]);
      assert.equal(nl.body.result.title, 'Alleen in het Nederlands');
      const search = await request(app).get(`/api/agent/search?language=nl&text=${encodeURIComponent('Only in English')}`);
      const item = search.body.result.items.find((i: { id: number }) => i.id === en.body.result.id);
      assert.equal(item.language, 'en');
      assert.equal(item.is_fallback, true);
      assert.equal(item.json_url.endsWith('language=en'), true);
    });

    it('noindex content is readable directly; private, unpublished, scheduled, expired are the same 404', async () => {
      assert.equal((await request(app).get(`/api/agent/resource/${DEMO.noindex}`)).status, 200);
      assert.equal((await request(app).get(`/api/agent/resource/${DEMO.pressRelease}`)).status, 200);
      const missing = await request(app).get('/api/agent/resource/no_such_resource');
      assert.equal(missing.status, 404);
      for (const name of [DEMO.private, DEMO.unpublished, DEMO.scheduled, DEMO.expired]) {
        const res = await request(app).get(`/api/agent/resource/${name}`);
        assert.equal(res.status, 404, name);
        assert.equal(res.text, missing.text);
        assert.equal(res.headers['cache-control'], 'no-store');
        const byId = await request(app).get(`/api/agent/resource/${await demo.id(name)}`);
        assert.equal(byId.text, missing.text);
      }
    });

    it('ETag: stable when unchanged, new after an edit, 304 on match; HEAD has the same headers and no body', async () => {
      const url = `/api/agent/resource/${DEMO.welcome}`;
      const a = await request(app).get(url);
      const b = await request(app).get(url);
      const etag = String(a.headers.etag);
      assert.match(etag, /^"[^"]+"$/, 'strong ETag');
      assert.equal(a.headers.etag, b.headers.etag);
      assert.equal(a.headers['cache-control'], 'public, max-age=0, must-revalidate');
      assert.equal(a.headers['x-robots-tag'], 'noindex, nofollow');
      const cond = await request(app).get(url).set('If-None-Match', etag);
      assert.equal(cond.status, 304);
      assert.equal(cond.text, '');
      const head = await request(app).head(url);
      assert.equal(head.status, 200);
      assert.equal(head.text, undefined);
      for (const h of ['etag', 'content-type', 'content-length', 'cache-control', 'x-robots-tag']) assert.equal(head.headers[h], a.headers[h], h);
      const headCond = await request(app).head(url).set('If-None-Match', etag);
      assert.equal(headCond.status, 304);
      await sql`UPDATE rsc SET title = '{"en":"Welcome, edited","nl":"Welkom, bewerkt"}'::jsonb WHERE name = ${DEMO.welcome}`.execute(demo.db);
      const c = await request(app).get(url).set('If-None-Match', etag);
      assert.equal(c.status, 200);
      assert.notEqual(c.headers.etag, a.headers.etag);
      // A conditional request after the resource turns private is a 404, not a 304.
      await sql`UPDATE rsc SET visibility = 'members' WHERE name = ${DEMO.welcome}`.execute(demo.db);
      const gone = await request(app).get(url).set('If-None-Match', String(c.headers.etag));
      assert.equal(gone.status, 404);
      await sql`UPDATE rsc SET visibility = 'public' WHERE name = ${DEMO.welcome}`.execute(demo.db);
    });

    it('schema: categories with their visible parent, predicates with public constraints only', async () => {
      const cats = await request(app).get('/api/agent/schema?kind=category&pagelen=100&language=nl');
      const article = cats.body.result.items.find((i: { name: string }) => i.name === 'article');
      assert.deepEqual(Object.keys(article).sort(), ['available_languages', 'description', 'id', 'is_fallback', 'language', 'name', 'parent', 'requested_language', 'title', 'uri']);
      assert.equal(article.title, 'Artikelen');
      assert.equal(article.description, 'Artikelen en gidsen.');
      assert.deepEqual(article.parent, { id: await demo.id('text'), name: 'text', title: 'Teksten' });
      assert.ok(!cats.body.result.items.some((i: { name: string }) => i.name === 'internal_notes' || i.name === DEMO.noindexCategory));
      const preds = await request(app).get('/api/agent/schema?kind=predicate&pagelen=100');
      const names = preds.body.result.items.map((i: { name: string }) => i.name);
      assert.ok(names.includes('author') && names.includes('subject'));
      assert.ok(!names.includes('internal_link'), 'a private predicate is not listed');
      const author = preds.body.result.items.find((i: { name: string }) => i.name === 'author');
      assert.deepEqual(author.constraints, [
        { side: 'subject', category: { id: await demo.id('text'), name: 'text', title: 'Texts' } },
        { side: 'object', category: { id: await demo.id('person'), name: 'person', title: 'People' } },
      ]);
      assert.equal(author.constraints_truncated, false);
      assert.equal(author.uri, `https://harbour.example/id/${author.id}`);
    });

    it('schema: at most 100 constraints per predicate, with constraints_truncated', async () => {
      const categories: number[] = [];
      for (let i = 0; i < 103; i++) categories.push(await insertCategory(demo.db, { name: `bulk_category_${i}` }));
      const hidden = await insertCategory(demo.db, { name: 'bulk_hidden', visibility: 'members' });
      await insertPredicate(demo.db, { name: 'mentions_many', subjects: categories.slice(0, 60), objects: [hidden, ...categories.slice(60)] });
      const res = await request(app).get('/api/agent/schema?kind=predicate&pagelen=100');
      const p = res.body.result.items.find((i: { name: string }) => i.name === 'mentions_many');
      assert.equal(p.constraints.length, 100);
      assert.equal(p.constraints_truncated, true);
      assert.ok(!res.text.includes('bulk_hidden'), 'a private category is never a constraint');
      const few = await insertPredicate(demo.db, { name: 'mentions_few', subjects: [hidden, categories[0]!] });
      const res2 = await request(app).get('/api/agent/schema?kind=predicate&pagelen=100');
      const f = res2.body.result.items.find((i: { id: number }) => i.id === few);
      assert.deepEqual(f.constraints.map((c: { category: { name: string } }) => c.category.name), ['bulk_category_0']);
      assert.equal(f.constraints_truncated, false);
    });

    it('sets no cookies and no CORS headers, even when host middleware tried', async () => {
      const host = express();
      host.use((_req, res, next) => {
        res.setHeader('Set-Cookie', 'sid=abc; Path=/');
        next();
      });
      const { agent } = await pluginApp(demo.db);
      host.use(agent.router);
      for (const url of ['/api/agent/search', `/api/agent/resource/${DEMO.welcome}`, '/api/agent/schema', '/api/agent/resource/no_such', '/api/agent/search?x=1']) {
        const res = await request(host).get(url).set('Origin', 'https://elsewhere.example');
        assert.equal(res.headers['set-cookie'], undefined, url);
        assert.equal(res.headers['access-control-allow-origin'], undefined, url);
        assert.equal(res.headers['access-control-allow-credentials'], undefined, url);
      }
    });
  });
}
