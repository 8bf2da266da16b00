import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { sql } from 'kysely';
import type { Express } from 'express';
import { backends, type TestDatabase } from './support/backends.js';
import { pluginApp } from './support/demo.js';
import { ContentPushError, type AgentDiscovery, type ContentWriter, type ResourceInput } from '../src/index.js';

/**
 * Every hostile input the issue lists (NUL bytes, lone surrogates, dates out of range, non-JSON and
 * oversized props and blocks, a window that ends before it starts, an edge the predicate's categories
 * do not allow) is a `ContentPushError` naming the field, and nothing is written; every id pushed can
 * be read back.
 */

async function refused(promise: Promise<unknown>, code: string, field: string | undefined, message?: RegExp): Promise<ContentPushError> {
  const error = await promise.then(
    () => assert.fail('expected a ContentPushError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ContentPushError, `not a ContentPushError: ${String(error)}`);
  assert.equal(error.code, code, error.message);
  assert.equal(error.field, field, error.message);
  assert.equal(error.retryable, false);
  if (message) assert.match(error.message, message);
  return error;
}

const circular = () => {
  const a: Record<string, unknown> = { b: 1 };
  a.self = a;
  return a;
};
const deep = (levels: number) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < levels; i++) v = { v };
  return v as Record<string, unknown>;
};

for (const backend of backends) {
  describe(`push API: hostile input is a typed error naming the field [${backend.name}]`, () => {
    let content: TestDatabase;
    let agent: AgentDiscovery;
    let app: Express;
    let push: ContentWriter;
    const base: ResourceInput = { id: 'hostile', category: 'post', title: 'T' };
    const stored = async () => Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM rsc WHERE category_id = (SELECT id FROM rsc WHERE name = 'post')`.execute(content.db)).rows[0]!.n);

    before(async () => {
      content = await backend.open();
      ({ app, agent } = await pluginApp(content.db));
      push = agent.content;
    });
    after(async () => {
      await agent.close();
      await content.close();
    });
    beforeEach(async () => {
      await sql`TRUNCATE rsc, category, edge, medium, predicate_category, agent_discovery_external_id`.execute(content.db);
      await push.putCategory({ name: 'post', title: 'Posts' });
    });

    it('NUL bytes and lone surrogates in every text field, props and blocks', async () => {
      const cases: [Partial<ResourceInput>, string][] = [
        [{ title: 'a\u0000b' }, 'title'],
        [{ title: { en: 'x\uD800' } }, 'title.en'],
        [{ body: '<p>\u0000</p>' }, 'body'],
        [{ summary: 'lone \uDC00 low' }, 'summary'],
        [{ visibility: 'pub\u0000lic' }, 'visibility'],
        [{ license: 'CC\u0000' }, 'license'],
        [{ props: { note: 'a\u0000' } }, 'props.note'],
        [{ props: { list: ['ok', 'x\uD83D'] } }, 'props.list.1'],
        [{ props: { 'k\u0000': 1 } }, 'props.k\u0000'],
        [{ blocks: [{ type: 'text', body: 'a\u0000' }] }, 'blocks.0.body'],
        [{ blocks: [{ type: 'text', props: { x: '\uDFFF' } }] }, 'blocks.0.props.x'],
        [{ id: 'id\uD800' }, 'id'],
        [{ page_url: '/a\uD800' }, 'page_url'],
      ];
      for (const [patch, field] of cases) {
        const error = await refused(push.put({ ...base, ...patch } as ResourceInput), 'invalid_input', field);
        assert.match(error.message, /NUL|surrogate|printable/);
      }
      await refused(push.putCategory({ name: 'tag', title: 'T\u0000' }), 'invalid_input', 'title');
      await refused(push.putMedium({ resource: 'x', mime: 'image/png', filename: 'a\uD800.png' }), 'invalid_input', 'filename');
      assert.equal(await stored(), 0);
      // A valid pair (an emoji) is fine.
      const { id } = await push.put({ ...base, title: 'Quay 🚢', props: { icon: '🚢' } });
      assert.equal((await request(app).get(`/api/agent/resource/${id}`).expect(200)).body.result.title, 'Quay 🚢');
    });

    it('dates outside the years 1 to 9999, and invalid dates', async () => {
      await refused(push.put({ ...base, publication_start: new Date(Date.UTC(20000, 0, 1)) }), 'invalid_input', 'publication_start', /years 1 to 9999/);
      await refused(push.put({ ...base, modified: new Date(-62198755200000) }), 'invalid_input', 'modified', /years 1 to 9999/);
      await refused(push.put({ ...base, created: new Date(Number.NaN) }), 'invalid_input', 'created');
      await refused(push.put({ ...base, publication_end: '+275760-09-13T00:00:00Z' }), 'invalid_input', 'publication_end');
      await refused(push.reconcile([{ id: 'x', modified: new Date(Date.UTC(10000, 0, 1)) }]), 'invalid_input', 'current.0.modified');
      const { id } = await push.put({ ...base, publication_start: '0001-01-01T00:00:00Z', publication_end: '9999-12-31T23:59:59Z' });
      await request(app).get(`/api/agent/resource/${id}`).expect(200);
    });

    it('props that are not JSON: BigInt, a cycle, functions, NaN, class instances, undefined in a list', async () => {
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ n: 10n }, 'props.n', /BigInt/],
        // zod copies the object it checks, so the cycle closes one level below the copy.
        [circular(), 'props.self.self', /cycle/],
        [{ f: () => 1 }, 'props.f', /function/],
        [{ x: Number.NaN }, 'props.x', /JSON number/],
        [{ x: Infinity }, 'props.x', /JSON number/],
        [{ m: new Map() }, 'props.m', /Map instance/],
        [{ l: [1, undefined] }, 'props.l.1', /undefined/],
        [{ d: new Date(Number.NaN) }, 'props.d', /invalid Date/],
      ];
      for (const [props, field, message] of cases) await refused(push.put({ ...base, props }), 'invalid_input', field, message);
      await refused(push.put({ ...base, blocks: [{ type: 'text', props: { n: 1n } }] }), 'invalid_input', 'blocks.0.props.n', /BigInt/);
      assert.equal(await stored(), 0);
      // What JSON.stringify keeps: a member set to undefined is left out, a valid Date is its ISO string.
      const { id } = await push.put({ ...base, props: { gone: undefined, at: new Date('2025-01-01T00:00:00Z') } });
      const row = await content.db.selectFrom('rsc').select('props').where('id', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual(row.props, { at: '2025-01-01T00:00:00.000Z' });
    });

    it('props nested 20,000 deep or over the size limit, blocks over their count', async () => {
      await refused(push.put({ ...base, props: deep(20_000) }), 'invalid_input', `props.${Array(32).fill('v').join('.')}`, /deeper than 32/);
      await refused(push.put({ ...base, props: { big: 'x'.repeat(10 * 1024 * 1024) } }), 'invalid_input', 'props', /262,144 characters/);
      await refused(push.put({ ...base, props: { a: 'x'.repeat(200_000), b: 'y'.repeat(200_000) } }), 'invalid_input', 'props', /262,144 characters/);
      await refused(push.put({ ...base, blocks: Array.from({ length: 100_000 }, () => ({ type: 'text' })) }), 'invalid_input', 'blocks', /1,000 blocks/);
      await refused(push.put({ ...base, blocks: Array.from({ length: 3 }, () => ({ type: 'text', body: 'b'.repeat(900_000) })) }), 'invalid_input', 'blocks', /2,000,000 characters/);
      await push.put({ ...base, props: deep(31), blocks: Array.from({ length: 1000 }, (_, i) => ({ type: 'text', body: `b${i}` })) });
      assert.equal(await stored(), 1);
    });

    it('publication_end before publication_start, given or stored', async () => {
      await refused(
        push.put({ ...base, publication_start: '2025-02-01T00:00:00Z', publication_end: '2025-01-01T00:00:00Z' }),
        'invalid_input',
        'publication_end',
        /before publication_start/,
      );
      await push.put({ ...base, publication_start: '2025-02-01T00:00:00Z' });
      // publication_start left out keeps the stored one, and the end is checked against it.
      await refused(push.put({ ...base, publication_end: '2025-01-15T00:00:00Z' }), 'invalid_input', 'publication_end', /2025-02-01T00:00:00.000Z/);
      await refused(push.putMany([{ ...base, id: 'other' }, { ...base, publication_end: '2025-01-15T00:00:00Z' }]), 'invalid_input', 'publication_end');
      assert.equal(await stored(), 1, 'the refused batch wrote nothing, not even its valid first item');
      await push.put({ ...base, publication_end: '2025-03-01T00:00:00Z' });
    });

    it('an edge whose end is in a category the predicate does not allow on its side', async () => {
      await push.putCategory({ name: 'tag', title: 'Tags', vocabulary: true });
      await push.putCategory({ name: 'section' });
      await push.putCategory({ name: 'subtag', parent: 'section' });
      await push.putPredicate({ name: 'tagged', subjects: ['post'], objects: ['tag', 'section'] });
      await push.put({ id: 'p', category: 'post', title: 'P' });
      await push.put({ id: 'q', category: 'post', title: 'Q' });
      await push.put({ id: 't', category: 'tag', title: 'T' });
      await push.put({ id: 's', category: 'subtag', title: 'S' });
      await refused(push.putEdge({ subject: 'p', predicate: 'tagged', object: 'q' }), 'not_allowed', 'object', /does not allow/);
      await refused(push.putEdge({ subject: 't', predicate: 'tagged', object: 't' }), 'not_allowed', 'subject', /subjects/);
      await refused(push.setEdges({ subject: 'p', predicate: 'tagged', objects: ['t', 'q'] }), 'not_allowed', 'objects.1');
      const error = await refused(push.setEdgesMany([{ subject: 'p', predicate: 'tagged', objects: ['t'] }, { subject: 'q', predicate: 'tagged', objects: ['p'] }]), 'not_allowed', 'objects.0');
      assert.equal(error.index, 1);
      assert.equal((await content.db.selectFrom('edge').select('id').execute()).length, 0, 'nothing of the refused batch');
      // A subcategory of an allowed category is allowed; a predicate without constraints allows anything.
      await push.setEdges({ subject: 'p', predicate: 'tagged', objects: ['t', 's'] });
      await push.putPredicate({ name: 'links' });
      await push.putEdge({ subject: 't', predicate: 'links', object: 'q' });
      assert.equal((await content.db.selectFrom('edge').select('id').execute()).length, 3);
    });

    it('a string id pushed after the largest numeric id is still readable (its surrogate stays in range)', async () => {
      const top = await push.put({ ...base, id: 899_999_999_999_999, title: 'Top' });
      assert.equal(top.id, 899_999_999_999_999);
      const next = await push.put({ ...base, id: '12345', title: 'After the top' });
      assert.ok(next.id <= 999_999_999_999_999, `surrogate ${next.id}`);
      const many = await push.putMany(Array.from({ length: 30 }, (_, i) => ({ ...base, id: `later-${i}`, title: `Later ${i}` })));
      assert.equal(many.written, 30);
      const category = await push.putCategory({ name: 'late_category' });
      for (const id of [top.id, next.id, category.id]) await request(app).get(`/api/agent/resource/${id}`).expect(200);
      const ids = (await content.db.selectFrom('rsc').select('id').execute()).map((r) => Number(r.id));
      assert.ok(ids.every((id) => id <= 999_999_999_999_999), 'every id in the read API\'s range');
      for (const id of [next.id, category.id]) assert.ok(id >= 900_000_000_000_000, `${id}: the writer's ids are above the host's`);
      assert.equal(new Set(ids).size, ids.length);
      await refused(push.put({ ...base, id: 1_000_000_000_000_000 }), 'invalid_input', 'id');
      // A numeric id that stands for a string id is refused rather than overwriting it.
      await refused(push.put({ ...base, id: next.id, title: 'Overwrite' }), 'conflict', 'id', /string id '12345'/);
    });

    it('bulk calls: a bad item names its position; a non-iterable or a bad batch size is refused', async () => {
      const error = await refused(push.putMany([base, { ...base, id: 'two', title: 'x\u0000' }]), 'invalid_input', 'title');
      assert.equal(error.index, 1);
      assert.match(error.message, /content\.putMany: \[1\] title:/);
      await refused(push.putMany(42 as never), 'invalid_input', undefined, /iterable/);
      await refused(push.putMany([base], { batchSize: 0 }), 'invalid_input', 'batchSize');
      await refused(push.reconcile(null as never), 'invalid_input', 'current');
      await refused(push.put(base, { transaction: {} as never }), 'invalid_input', 'transaction');
      assert.equal(await stored(), 0);
      // The host's own iterable failing is the host's error, passed on as it is; nothing was written or removed.
      await push.put(base);
      const boom = new Error('the CMS list failed');
      const failing = async function* () {
        yield { ...base, id: 'first' };
        throw boom;
      };
      await assert.rejects(push.putMany(failing(), { batchSize: 10 }), (e) => e === boom);
      await assert.rejects(
        push.reconcile(
          (async function* () {
            yield { id: 'first' };
            throw boom;
          })(),
        ),
        (e) => e === boom,
      );
      assert.equal(await stored(), 1);
    });
  });
}
