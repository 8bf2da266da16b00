/**
 * Real CMS markup stored as resources and read over HTTP through `/agent/resource/{id}/markdown`: a
 * Ghost bookmark card, a WordPress embed, a Wiki.js tabset and a CKEditor 5 table, each meeting its
 * corpus expectations, with the front matter's new fields (published, description, categories, the
 * authors and tags of the predicates the options name, word_count) and never a private author or tag.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { parseDocument } from 'yaml';
import type { Express } from 'express';
import { insertCategory, insertEdges, insertPredicate, insertResource } from '../example-site/content-store.js';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { CORPUS, checkFragment, type Fragment } from './fixtures/markdown-corpus/index.js';

const fragment = (id: string): Fragment => Object.values(CORPUS).flat().find((f) => f.id === id)!;
const READS = ['ghost/bookmark-card', 'wordpress/embed-rendered', 'wikijs/tabset', 'ckeditor/table-spans-caption'];

function split(markdown: string): { fm: Record<string, unknown>; body: string } {
  const m = /^---\n([\s\S]*?)\n---\n\n/.exec(markdown);
  assert.ok(m, 'a front matter block opens the document');
  const doc = parseDocument(m[1]!);
  assert.deepEqual(doc.errors, []);
  return { fm: doc.toJS() as Record<string, unknown>, body: markdown.slice(m[0].length) };
}

for (const backend of surfaceBackends) {
  describe(`CMS markup read as Markdown over HTTP [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let app: Express;
    const ids = new Map<string, number>();
    before(async () => {
      demo = await openDemoDatabase(backend);
      const { db } = demo;
      const topics = await insertCategory(db, { name: 'read_topic', title: { en: 'Topics' } });
      const person = await demo.id('person');
      const text = await demo.id('text');
      const writtenBy = await insertPredicate(db, { name: 'read_written_by', title: { en: 'Written by' }, subjects: [text], objects: [person] });
      const about = await insertPredicate(db, { name: 'read_about', title: { en: 'About' }, subjects: [text], objects: [topics] });
      const ada = await demo.id('ada_lovelace');
      const ghostwriter = await insertResource(db, { category: person, title: { en: 'Secret Ghostwriter' }, visibility: 'members' });
      const harbours = await insertResource(db, { category: topics, title: { en: 'Harbours' } });
      const draftTopic = await insertResource(db, { category: topics, title: { en: 'Unannounced topic' }, isPublished: false });
      for (const id of READS) {
        const rsc = await insertResource(db, {
          category: 'article',
          title: { en: `Read of ${id}` },
          summary: { en: `How ${id} reads.` },
          body: { en: fragment(id).html },
          publicationStart: new Date('2026-03-04T05:06:07.000Z'),
        });
        ids.set(id, rsc);
        await insertEdges(db, [
          { subject: rsc, predicate: writtenBy, object: ada, seq: 1 },
          { subject: rsc, predicate: writtenBy, object: ghostwriter, seq: 2 },
          { subject: rsc, predicate: about, object: harbours, seq: 1 },
          { subject: rsc, predicate: about, object: draftTopic, seq: 2 },
        ]);
      }
      ({ app } = await pluginApp(db, { baseUrl: 'https://site.example', authorPredicates: ['read_written_by'], tagPredicates: ['read_about'] }));
    });
    after(() => demo.close());

    for (const id of READS) {
      it(`${id}: its expectations hold in the Markdown read, front matter included`, async () => {
        const rscId = ids.get(id)!;
        const res = await request(app).get(`/agent/resource/${rscId}/markdown`);
        assert.equal(res.status, 200);
        assert.match(res.headers['content-type']!, /^text\/markdown/);
        const { fm, body } = split(res.text);
        const result = checkFragment(fragment(id), body);
        assert.deepEqual(result.failures, [], body);
        assert.equal(fm.title, `Read of ${id}`);
        assert.equal(fm.url, `https://site.example/en/page/${rscId}`);
        assert.equal(fm.published, '2026-03-04T05:06:07.000Z');
        assert.equal(fm.description, `How ${id} reads.`);
        assert.deepEqual(fm.categories, ['Articles']);
        // The operator's predicates: public endpoints only, never the private author or the unpublished topic.
        assert.deepEqual(fm.authors, ['Ada Lovelace']);
        assert.deepEqual(fm.tags, ['Harbours']);
        assert.doesNotMatch(res.text, /Secret Ghostwriter|Unannounced topic/);
        assert.equal(typeof fm.word_count, 'number');
        assert.equal(fm.content_complete, true);
        const json = (await request(app).get(`/api/agent/resource/${rscId}`)).body.result;
        assert.equal(json.word_count, fm.word_count);
        assert.deepEqual(json.authors.map((a: { title: string }) => a.title), ['Ada Lovelace']);
        assert.deepEqual(json.tags.map((t: { title: string }) => t.title), ['Harbours']);
        assert.doesNotMatch(JSON.stringify(json), /Secret Ghostwriter|Unannounced topic/);
      });
    }

    it('the default predicates name the demo author; an empty list leaves authors out', async () => {
      const welcome = await demo.id('welcome');
      const { app: defaults } = await pluginApp(demo.db, { baseUrl: 'https://site.example' });
      assert.deepEqual(split((await request(defaults).get(`/agent/resource/${welcome}/markdown`)).text).fm.authors, ['Ada Lovelace']);
      const { app: none } = await pluginApp(demo.db, { baseUrl: 'https://site.example', authorPredicates: [], tagPredicates: [] });
      const { fm } = split((await request(none).get(`/agent/resource/${welcome}/markdown`)).text);
      assert.equal(fm.authors, undefined);
      assert.equal(fm.tags, undefined);
    });

    it('a bad predicate name is a start-up error naming the option', async () => {
      await assert.rejects(pluginApp(demo.db, { authorPredicates: ['Not A Name'] }), /authorPredicates/);
    });
  });
}
