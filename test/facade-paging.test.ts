import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import fc from 'fast-check';
import { sql } from 'kysely';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { pluginApp } from './support/demo.js';
import { bootstrapVocabulary, insertCategory, insertResource } from '../example-site/content-store.js';
import type { Express } from 'express';

const BASE_US = Date.UTC(2024, 0, 1) * 1000;
/** An exact ISO timestamp with microseconds (JavaScript dates stop at milliseconds). */
const isoMicros = (us: number) => {
  const ms = Math.floor(us / 1000);
  return new Date(ms).toISOString().replace('Z', `${String(us % 1000).padStart(3, '0')}Z`);
};

interface Item {
  id: number;
  startUs: number;
  modifiedUs: number;
  listed: boolean;
}

async function walk(app: Express, firstUrl: string): Promise<{ ids: number[]; pages: number }> {
  const ids: number[] = [];
  let url: string | null = firstUrl;
  let pages = 0;
  while (url) {
    const res = await request(app).get(url.replace(/^https?:\/\/[^/]+/, ''));
    assert.equal(res.status, 200, `${url}: ${res.text}`);
    const result = res.body.result;
    assert.ok(result.items.length <= result.pagelen);
    ids.push(...result.items.map((i: { id: number }) => i.id));
    assert.equal(result.next, result.next_url !== null);
    url = result.next_url;
    if (++pages > 200) throw new Error('walk did not end');
  }
  return { ids, pages };
}

function expectedOrder(items: Item[], sort: string): number[] {
  const listed = items.filter((i) => i.listed);
  const byId = (a: Item, b: Item) => a.id - b.id;
  const cmp: Record<string, (a: Item, b: Item) => number> = {
    id: byId,
    newest: (a, b) => b.startUs - a.startUs || byId(a, b),
    oldest: (a, b) => a.startUs - b.startUs || byId(a, b),
    modified: (a, b) => b.modifiedUs - a.modifiedUs || byId(a, b),
  };
  return listed.sort(cmp[sort]).map((i) => i.id);
}

for (const backend of surfaceBackends) {
  describe(`facade paging [${backend.name}]`, () => {
    let content: TestDatabase;
    let app: Express;
    let articleCat: number;
    before(async () => {
      content = await backend.open();
      await bootstrapVocabulary(content.db);
      articleCat = await insertCategory(content.db, { name: 'article' });
      ({ app } = await pluginApp(content.db));
    });
    after(() => content.close());

    async function reset(items: Omit<Item, 'id'>[]): Promise<Item[]> {
      await sql`DELETE FROM rsc WHERE category_id = ${articleCat}`.execute(content.db);
      const out: Item[] = [];
      for (const it of items) {
        const id = await insertResource(content.db, {
          category: articleCat,
          title: { en: 'x' },
          publicationStart: isoMicros(it.startUs),
          modified: isoMicros(it.modifiedUs),
          isPublished: it.listed,
        });
        out.push({ ...it, id });
      }
      return out;
    }

    it('following next_url visits every matching item exactly once, in order, for every sort', async () => {
      const item = fc.record({
        // Few distinct instants, so ties (broken by id) are common; microseconds matter.
        startUs: fc.integer({ min: 0, max: 5 }).map((n) => BASE_US + n * 1_000_001 + (n % 2)),
        modifiedUs: fc.integer({ min: 0, max: 4 }).map((n) => BASE_US + n * 7_000_003),
        listed: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(item, { maxLength: 24 }), fc.integer({ min: 1, max: 7 }), async (spec, pagelen) => {
          const items = await reset(spec);
          for (const sort of ['id', 'newest', 'oldest', 'modified']) {
            const { ids, pages } = await walk(app, `/api/agent/search?sort=${sort}&pagelen=${pagelen}&cat=article`);
            const expected = expectedOrder(items, sort);
            assert.deepEqual(ids, expected, `sort=${sort} pagelen=${pagelen}`);
            assert.equal(pages, Math.max(1, Math.ceil(expected.length / pagelen)));
          }
        }),
        { numRuns: backend.name === 'pglite' ? 12 : 25 },
      );
    });

    it('page N without a continuation equals the walk; next_url carries the continuation', async () => {
      const items = await reset(Array.from({ length: 9 }, (_, i) => ({ startUs: BASE_US + (i % 3) * 1000, modifiedUs: BASE_US, listed: true })));
      const expected = expectedOrder(items, 'newest');
      const page2 = await request(app).get('/api/agent/search?sort=newest&pagelen=4&page=2&cat=article');
      assert.deepEqual(page2.body.result.items.map((i: { id: number }) => i.id), expected.slice(4, 8));
      assert.match(page2.body.result.next_url, /[?&]page=3&cursor=/);
      assert.match(page2.body.result.next_url, /^http:\/\/127\.0\.0\.1:\d+\/api\/agent\/search\?/);
      const page3 = await request(app).get(new URL(page2.body.result.next_url).pathname + new URL(page2.body.result.next_url).search);
      assert.deepEqual(page3.body.result.items.map((i: { id: number }) => i.id), expected.slice(8));
      assert.equal(page3.body.result.next, false);
      assert.equal(page3.body.result.next_url, null);
      assert.equal(page3.body.result.limit_reached, false);
    });

    it('stops at the 10,000-candidate bound with limit_reached', async () => {
      await sql`DELETE FROM rsc WHERE category_id = ${articleCat}`.execute(content.db);
      await sql`INSERT INTO rsc (category_id, is_published, publication_start, language, title)
        SELECT ${articleCat}, true, now() - interval '1 day', '{en}', '{"en":"bulk"}'::jsonb FROM generate_series(1, 10050)`.execute(content.db);
      const last = await request(app).get('/api/agent/search?cat=article&page=100&pagelen=100');
      assert.equal(last.status, 200);
      assert.equal(last.body.result.items.length, 100);
      assert.equal(last.body.result.next, false);
      assert.equal(last.body.result.next_url, null);
      assert.equal(last.body.result.limit_reached, true);
      const before = await request(app).get('/api/agent/search?cat=article&page=99&pagelen=100');
      assert.equal(before.body.result.next, true);
      assert.equal(before.body.result.limit_reached, false);
      // The continuation reaches the bound the same way.
      const viaCursor = await request(app).get(new URL(before.body.result.next_url).pathname + new URL(before.body.result.next_url).search);
      assert.deepEqual(viaCursor.body.result.items.map((i: { id: number }) => i.id), last.body.result.items.map((i: { id: number }) => i.id));
      assert.equal(viaCursor.body.result.limit_reached, true);
      // Fewer than the bound: the walk simply ends.
      await sql`DELETE FROM rsc WHERE category_id = ${articleCat} AND id IN (SELECT id FROM rsc WHERE category_id = ${articleCat} ORDER BY id DESC LIMIT 100)`.execute(content.db);
      const exact = await request(app).get('/api/agent/search?cat=article&page=100&pagelen=100');
      assert.equal(exact.body.result.items.length, 50);
      assert.equal(exact.body.result.limit_reached, false);
    });
  });
}
