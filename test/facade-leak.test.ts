import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import fc from 'fast-check';
import type { Express } from 'express';
import { backends, type TestDatabase } from './support/backends.js';
import { pluginApp } from './support/demo.js';
import { insertLeakStates, leakCategories, leakState, type LeakCategories } from './support/leak-states.js';
import { insertCategory, insertResource } from '../example-site/content-store.js';


async function walkIds(app: Express, url: string): Promise<number[]> {
  const ids: number[] = [];
  let next: string | null = url;
  while (next) {
    const res = await request(app).get(next.replace(/^https?:\/\/[^/]+/, ''));
    assert.equal(res.status, 200, res.text);
    ids.push(...res.body.result.items.map((i: { id: number }) => i.id));
    next = res.body.result.next_url;
  }
  return ids;
}

for (const backend of backends) {
  describe(`facade never leaks [${backend.name}]`, () => {
    let content: TestDatabase;
    let app: Express;
    let cats: LeakCategories;
    before(async () => {
      content = await backend.open();
      cats = await leakCategories(content.db);
      ({ app } = await pluginApp(content.db));
    });
    after(() => content.close());

    it('no private, unpublished, out-of-window or (for search and schema) noindex resource appears', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(leakState, { minLength: 1, maxLength: 16 }), async (states) => {
          const rows = await insertLeakStates(content.db, cats, states);
          const expected = rows.filter((r) => r.listed).map((r) => r.id).sort((a, b) => a - b);
          for (const q of ['pagelen=3', 'text=harbour&pagelen=4&sort=newest', 'sort=modified&pagelen=100']) {
            const got = (await walkIds(app, `/api/agent/search?${q}`)).filter((id) => rows.some((r) => r.id === id));
            assert.deepEqual([...got].sort((a, b) => a - b), expected, q);
          }
          const notFound = await request(app).get('/api/agent/resource/999999999');
          for (const r of rows) {
            const res = await request(app).get(`/api/agent/resource/${r.id}`);
            if (r.visible) {
              assert.equal(res.status, 200);
              assert.equal(res.body.result.id, r.id);
            } else {
              // Missing, private, unpublished and out-of-window: the same 404, byte for byte.
              assert.equal(res.status, 404);
              assert.equal(res.text, notFound.text);
            }
          }
        }),
        { numRuns: backend.name === 'pglite' ? 8 : 15 },
      );
    });

    it('a public resource in a private category (or below one) never names it: JSON, Markdown, search and related', async () => {
      // The resource read also selects the category chain for template selection: its names must stay inside.
      const below = await insertCategory(content.db, { name: 'below_hidden_cat', parent: cats.hidden, visibility: 'members' });
      for (const category of [cats.hidden!, below]) {
        const id = await insertResource(content.db, { category, title: { en: 'Harbour in a private category' }, body: { en: '<p>Public text.</p>' } });
        const paths = [`/api/agent/resource/${id}`, `/agent/resource/${id}/markdown`, '/api/agent/search?text=private%20category&pagelen=100', `/api/agent/related/${id}`];
        const reads = [];
        for (const path of paths) {
          const res = await request(app).get(path);
          assert.equal(res.status, 200, res.text);
          assert.ok(!/hidden_cat/.test(res.text), `${path} names a private category`);
          reads.push(res);
        }
        assert.equal(reads[0]!.body.result.category, null);
        assert.ok(reads[2]!.body.result.items.some((i: { id: number }) => i.id === id), 'the public resource is listed');
      }
    });

    it('schema lists only public, indexable vocabulary and hides non-public parents', async () => {
      const ids = await walkIds(app, '/api/agent/schema?kind=category&pagelen=2');
      assert.ok(ids.includes(cats.plain!));
      assert.ok(!ids.includes(cats.noindex!), 'noindex category listed');
      assert.ok(!ids.includes(cats.below_noindex!), 'category below a noindex category listed');
      assert.ok(!ids.includes(cats.hidden!), 'private category listed');
      const child = await insertCategory(content.db, { name: 'child_of_hidden', parent: cats.hidden });
      const res = await request(app).get('/api/agent/schema?kind=category&pagelen=100');
      const item = res.body.result.items.find((i: { id: number }) => i.id === child);
      assert.ok(item, 'the public child is listed');
      assert.equal(item.parent, null, 'the private parent is not exposed');
      assert.ok(!res.text.includes('hidden_cat'));
    });
  });
}
