import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { sql } from 'kysely';
import type { Express } from 'express';
import { backends, type TestDatabase } from './support/backends.js';
import { pluginApp } from './support/demo.js';
import { ContentPushError, type AgentDiscovery, type ContentWriter } from '../src/index.js';

const GHOST_ID = '5f2b9c1e8a4d3b0017a1c2d3';
const DAY = 86_400_000;

/** Asserts that `promise` rejects with a push error of this code naming this field. */
async function refused(promise: Promise<unknown>, code: string, field: string | undefined, message?: RegExp): Promise<ContentPushError> {
  const error = await promise.then(
    () => assert.fail('expected a ContentPushError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ContentPushError, `not a ContentPushError: ${String(error)}`);
  assert.equal(error.code, code, error.message);
  assert.equal(error.field, field, error.message);
  assert.match(error.message, /^express-agent-discovery: content\./);
  if (message) assert.match(error.message, message);
  return error;
}

for (const backend of backends) {
  describe(`push API: agent.content [${backend.name}]`, () => {
    let content: TestDatabase;
    let agent: AgentDiscovery;
    let app: Express;
    let push: ContentWriter;

    const mappings = async () => Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM agent_discovery_external_id`.execute(content.db)).rows[0]!.n);
    const read = (id: number | string) => request(app).get(`/api/agent/resource/${id}`);
    const searchIds = async (query = '') => {
      const res = await request(app).get(`/api/agent/search?pagelen=100${query}`).expect(200);
      return (res.body.result.items as { id: number }[]).map((i) => i.id).sort((a, b) => a - b);
    };

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
      await push.putCategory({ name: 'post', title: { en: 'Posts' } });
    });

    describe('vocabulary', () => {
      it('putCategory creates the roots on an empty database and upserts by name', async () => {
        const roots = await content.db.selectFrom('rsc').select('name').where('name', 'in', ['meta', 'category', 'predicate']).execute();
        assert.equal(roots.length, 3);
        const first = await push.putCategory({ name: 'news', title: 'News' });
        const again = await push.putCategory({ name: 'news', title: { en: 'All the news' }, is_noindex: true });
        assert.equal(again.id, first.id);
        const row = await content.db.selectFrom('category').innerJoin('rsc', 'rsc.id', 'category.id').selectAll().where('category.id', '=', first.id).executeTakeFirstOrThrow();
        assert.deepEqual(row.title, { en: 'All the news' });
        assert.equal(row.is_noindex, true);
        const child = await push.putCategory({ id: 'tag-cat-1', name: 'world', parent: 'news' });
        const parent = await content.db.selectFrom('category').select('parent_id').where('id', '=', child.id).executeTakeFirstOrThrow();
        assert.equal(parent.parent_id, first.id);
        assert.equal((await push.putCategory({ id: 'tag-cat-1', name: 'world_news' })).id, child.id, 'a string id keeps its category');
      });

      it('the documented top id is the host’s after putCategory; the ids above it are the writer’s own', async () => {
        const tag = await push.putCategory({ name: 'tag_kind' });
        const top = await push.put({ id: 899_999_999_999_999, category: 'post', title: 'At the top' });
        assert.equal(top.id, 899_999_999_999_999);
        const res = await read(899_999_999_999_999).expect(200);
        assert.equal(res.body.result.title, 'At the top');
        const mapped = await push.put({ id: GHOST_ID, category: 'post', title: 'By string id' });
        const chosen = await content.db.selectFrom('rsc').select('id').where('name', 'in', ['meta', 'category', 'predicate', 'post', 'tag_kind']).execute();
        for (const id of [...chosen.map((r) => Number(r.id)), tag.id, mapped.id]) {
          assert.ok(id >= 900_000_000_000_000 && id <= 999_999_999_999_999, `${id} is in the writer's block`);
        }
        const range = /above 899,999,999,999,999: the ids from 900,000,000,000,000 to 999,999,999,999,999 are the ones the writer chooses/;
        const meta = Number((await content.db.selectFrom('rsc').select('id').where('name', '=', 'meta').executeTakeFirstOrThrow()).id);
        for (const id of [meta, 900_000_000_000_000]) {
          const code = id === meta ? 'not_allowed' : 'invalid_input';
          await refused(push.put({ id, category: 'post', title: 'Above' }), code, 'id', range);
          const error = await refused(push.putMany([{ id: 5, category: 'post', title: 'ok' }, { id, category: 'post', title: 'Above' }]), code, 'id', range);
          assert.equal(error.index, 1);
        }
        await refused(push.putCategory({ id: 900_000_000_000_000, name: 'above' }), 'invalid_input', 'id', range);
        await refused(push.putCategory({ id: meta, name: 'above' }), 'not_allowed', 'id', /meta, a root of the vocabulary/);
        await refused(push.put({ id: tag.id, category: 'post', title: 'Over a category' }), 'not_allowed', 'id', /putCategory/);
        assert.equal((await push.putCategory({ id: tag.id, name: 'tag_kind', title: 'Tags' })).id, tag.id, 'a category is written again under the id it was given');
        await read(5).expect(404);
      });

      it('putCategory refuses roots, cycles, unknown parents and a resource id', async () => {
        await refused(push.putCategory({ name: 'meta' }), 'not_allowed', 'name');
        await refused(push.putCategory({ name: 'Bad-Name' }), 'invalid_input', 'name', /\^\[a-z\]/);
        await refused(push.putCategory({ name: 'x', parent: 'nowhere' }), 'not_found', 'parent');
        await refused(push.putCategory({ name: 'x', parent: 'predicate' }), 'not_allowed', 'parent');
        const a = await push.putCategory({ name: 'a' });
        await push.putCategory({ name: 'b', parent: 'a' });
        await refused(push.putCategory({ name: 'a', parent: 'b' }), 'invalid_input', 'parent', /below it/);
        await refused(push.putCategory({ id: a.id, name: 'a', parent: a.id }), 'invalid_input', 'parent');
        const { id } = await push.put({ id: 1000, category: 'post', title: 'A post' });
        await refused(push.putCategory({ id, name: 'c' }), 'not_allowed', 'id', /not vocabulary/);
      });

      it('removeCategory removes an empty category only', async () => {
        await push.put({ id: 'p1', category: 'post', title: 'A post' });
        await refused(push.removeCategory('post'), 'not_allowed', 'category', /1 resources/);
        await refused(push.removeCategory('category'), 'not_allowed', 'category', /root/);
        await push.putCategory({ name: 'empty' });
        assert.deepEqual(await push.removeCategory({ name: 'empty' }), { removed: true });
        assert.deepEqual(await push.removeCategory('empty'), { removed: false });
      });

      it('putPredicate writes the categories it connects; removePredicate removes its edges', async () => {
        await push.putCategory({ name: 'tag', title: 'Tags' });
        const tagged = await push.putPredicate({ name: 'tagged', title: 'Tagged', subjects: ['post'], objects: ['tag'] });
        const rows = await content.db.selectFrom('predicate_category').selectAll().where('predicate_id', '=', tagged.id).orderBy('is_subject').execute();
        assert.equal(rows.length, 2);
        assert.equal((await push.putPredicate({ name: 'tagged', subjects: ['post'] })).id, tagged.id);
        assert.equal((await content.db.selectFrom('predicate_category').selectAll().where('predicate_id', '=', tagged.id).execute()).length, 1);
        await refused(push.putPredicate({ name: 'bad', objects: ['nope'] }), 'not_found', 'objects.0');
        await refused(push.putPredicate({ name: 'post' }), 'not_allowed', 'id', /category, not a predicate/);
        const post = await push.put({ id: 'p1', category: 'post', title: 'P' });
        const tag = await push.put({ id: 't1', category: 'tag', title: 'T' });
        await push.putEdge({ subject: 'p1', predicate: 'tagged', object: 't1' });
        assert.deepEqual(await push.removePredicate('tagged'), { removed: true });
        assert.equal((await content.db.selectFrom('edge').selectAll().where('subject_id', '=', post.id).where('object_id', '=', tag.id).execute()).length, 0);
        assert.deepEqual(await push.removePredicate('tagged'), { removed: false });
      });
    });

    describe('put', () => {
      it('a 24-hex string id maps to a numeric id the facade reads, search finds it, and a second put updates it', async () => {
        const { id } = await push.put({
          id: GHOST_ID,
          category: 'post',
          title: 'Harbour lights',
          summary: 'Lights at the pier.',
          body: '<p>The <em>lighthouse</em> keeper writes.</p>',
          publication_start: new Date(Date.now() - DAY).toISOString(),
          modified: new Date('2025-01-02T03:04:05.678Z'),
          license: 'CC BY 4.0',
        });
        assert.equal(typeof id, 'number');
        const res = await read(id).expect(200);
        assert.equal(res.body.result.id, id);
        assert.equal(res.body.result.title, 'Harbour lights');
        assert.equal(res.body.result.license, 'CC BY 4.0');
        assert.equal(res.body.result.modified, '2025-01-02T03:04:05.678Z');
        assert.deepEqual(await searchIds('&text=lighthouse'), [id]);
        const again = await push.put({ id: GHOST_ID, category: 'post', title: { en: 'Harbour lights, revised' } });
        assert.equal(again.id, id);
        assert.equal((await read(id).expect(200)).body.result.title, 'Harbour lights, revised');
        assert.equal(await mappings(), 1);
      });

      it('a numeric id is the rsc id; ids generated later never collide with it', async () => {
        const { id } = await push.put({ id: 5000, category: 'post', title: 'Five thousand' });
        assert.equal(id, 5000);
        await read(5000).expect(200);
        const next = await push.put({ id: 'after-5000', category: 'post', title: 'Next' });
        assert.ok(next.id > 5000, `generated ${next.id}`);
      });

      it('defaults: published, public, started now, languages from the text; a string is every language', async () => {
        const { id } = await push.put({ id: 'p-lang', category: 'post', language: ['en', 'nl'], title: 'Same title', body: { en: '<p>en</p>', nl: '<p>nl</p>' } });
        const row = await content.db.selectFrom('rsc').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        assert.equal(row.is_published, true);
        assert.equal(row.visibility, 'public');
        assert.deepEqual(row.language, ['en', 'nl']);
        assert.deepEqual(row.title, { en: 'Same title', nl: 'Same title' });
        assert.ok(Math.abs(new Date(row.publication_start).getTime() - Date.now()) < 60_000);
        const derived = await push.put({ id: 'p-nl', category: 'post', title: { nl: 'Haven', en: 'Harbour' } });
        const d = await content.db.selectFrom('rsc').select('language').where('id', '=', derived.id).executeTakeFirstOrThrow();
        assert.deepEqual(d.language, ['nl', 'en']);
      });

      it('publication flags, visibility, window and seo_noindex decide what the facade serves', async () => {
        const hidden = [
          await push.put({ id: 'draft', category: 'post', title: 'Draft', is_published: false }),
          await push.put({ id: 'members', category: 'post', title: 'Members', visibility: 'members' }),
          await push.put({ id: 'later', category: 'post', title: 'Later', publication_start: new Date(Date.now() + DAY) }),
          await push.put({ id: 'ended', category: 'post', title: 'Ended', publication_start: new Date(Date.now() - 2 * DAY), publication_end: new Date(Date.now() - DAY) }),
        ];
        for (const { id } of hidden) await read(id).expect(404);
        const noindex = await push.put({ id: 'noindex', category: 'post', title: 'Noindex', seo_noindex: true });
        await read(noindex.id).expect(200);
        const shown = await push.put({ id: 'shown', category: 'post', title: 'Shown', blocks: [{ type: 'text', body: '<p>block</p>' }] });
        assert.deepEqual(await searchIds(), [shown.id]);
      });

      it('page_url (a path, or per language) is the page the facade cites; a put without it clears it', async () => {
        const { id } = await push.put({ id: 'with-page', category: 'post', title: 'Paged', page_url: { en: '/paged/' } });
        assert.match((await read(id).expect(200)).body.result.page_url, /\/paged\/$/);
        await push.put({ id: 'with-page', category: 'post', title: 'Paged', page_url: 'https://cms.example/p/1' });
        assert.equal((await read(id).expect(200)).body.result.page_url, 'https://cms.example/p/1');
        await push.put({ id: 'with-page', category: 'post', title: 'Paged' });
        const stored = await content.db.selectFrom('rsc').select('page_url').where('id', '=', id).executeTakeFirstOrThrow();
        assert.equal(stored.page_url, null, 'a put replaces: no page_url given, none stored');
      });

      it('refuses bad input, naming the field, and writes nothing', async () => {
        const base = { id: 'bad', category: 'post', title: 'T' };
        await refused(push.put({ ...base, name: 'Not A Name' }), 'invalid_input', 'name', /\^\[a-z\]\[a-z0-9_\]\*\$/);
        await refused(push.put({ ...base, title: { english: 'x' } }), 'invalid_input', 'title');
        await refused(push.put({ ...base, language: ['en'], title: { nl: 'x' } }), 'invalid_input', 'title.nl', /not one of language/);
        await refused(push.put({ ...base, language: ['e n'] }), 'invalid_input', 'language.0');
        await refused(push.put({ ...base, publication_start: 'yesterday' }), 'invalid_input', 'publication_start', /ISO 8601/);
        await refused(push.put({ ...base, blocks: [{ type: 'Text' }] }), 'invalid_input', 'blocks.0.type');
        await refused(push.put({ ...base, uri: 'not a uri' }), 'invalid_input', 'uri');
        await refused(push.put({ ...base, page_url: 'javascript:alert(1)' }), 'invalid_input', 'page_url');
        await refused(push.put({ ...base, id: 0 }), 'invalid_input', 'id');
        await refused(push.put({ ...base, id: ' padded' }), 'invalid_input', 'id');
        await refused(push.put({ ...base, titel: 'typo' } as never), 'invalid_input', undefined, /titel/);
        await refused(push.put({ id: 'x', category: 'post' } as never), 'invalid_input', 'title');
        await refused(push.put({ ...base, category: 'nowhere' }), 'not_found', 'category', /no resource has 'nowhere'/);
        await refused(push.put({ ...base, category: 'category' }), 'not_allowed', 'category', /vocabulary/);
        const post = await push.put({ id: 'a-post', category: 'post', title: 'A post', name: 'taken' });
        await refused(push.put({ ...base, category: post.id }), 'not_found', 'category', /not a category/);
        await refused(push.put({ ...base, name: 'taken' }), 'conflict', 'name', /taken/);
        await refused(push.put({ ...base, id: (await content.db.selectFrom('rsc').select('id').where('name', '=', 'post').executeTakeFirstOrThrow()).id }), 'not_allowed', 'id', /putCategory/);
        assert.equal(await mappings(), 1, 'only a-post was mapped');
      });

      it('a reference that is one resource’s name and another’s string id is ambiguous until said explicitly', async () => {
        await push.putCategory({ name: 'twin' });
        await push.putCategory({ id: 'twin', name: 'other' });
        await refused(push.put({ id: 'x', category: 'twin', title: 'T' }), 'conflict', 'category', /\{ name \}/);
        const a = await push.put({ id: 'x', category: { name: 'twin' }, title: 'T' });
        const b = await push.put({ id: 'y', category: { externalId: 'twin' }, title: 'T' });
        assert.notEqual(a.id, b.id);
      });
    });

    describe('remove', () => {
      it('removes by string or numeric id (edges and medium go with it); absent ids are { removed: false }', async () => {
        const { id } = await push.put({ id: GHOST_ID, category: 'post', title: 'Gone soon' });
        await push.putMedium({ resource: GHOST_ID, mime: 'image/png', filename: 'a.png' });
        await read(id).expect(200);
        assert.deepEqual(await push.remove(GHOST_ID), { removed: true });
        await read(id).expect(404);
        assert.deepEqual(await push.remove(GHOST_ID), { removed: false });
        assert.equal((await content.db.selectFrom('medium').selectAll().execute()).length, 0);
        const n = await push.put({ id: 7001, category: 'post', title: 'Numbered' });
        assert.deepEqual(await push.remove(n.id), { removed: true });
        await refused(push.remove({ id: 1 } as never), 'invalid_input', undefined);
        await refused(push.remove((await content.db.selectFrom('rsc').select('id').where('name', '=', 'post').executeTakeFirstOrThrow()).id), 'not_allowed', 'id');
      });
    });

    describe('edges and media', () => {
      let tagged: number;
      beforeEach(async () => {
        await push.putCategory({ name: 'tag' });
        tagged = (await push.putPredicate({ name: 'tagged', subjects: ['post'], objects: ['tag'] })).id;
      });

      it('putEdge by string id and name, seq upserted; the related read lists it', async () => {
        const post = await push.put({ id: 'post-1', category: 'post', title: 'Post' });
        const tag = await push.put({ id: 'tag-1', category: 'tag', title: 'Harbours', name: 'harbours' });
        const first = await push.putEdge({ subject: 'post-1', predicate: 'tagged', object: 'harbours', seq: 3 });
        const second = await push.putEdge({ subject: { externalId: 'post-1' }, predicate: tagged, object: { id: tag.id } });
        assert.equal(second.id, first.id);
        const row = await content.db.selectFrom('edge').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
        assert.equal(row.seq, 3, 'no seq given: the stored one stays');
        const related = await request(app).get(`/api/agent/related/${post.id}`).expect(200);
        assert.deepEqual(related.body.result.items.map((i: { resource: { id: number } }) => i.resource.id), [tag.id]);
        assert.deepEqual(await push.removeEdge({ subject: 'post-1', predicate: 'tagged', object: 'tag-1' }), { removed: true });
        assert.deepEqual(await push.removeEdge({ subject: 'post-1', predicate: 'tagged', object: 'tag-1' }), { removed: false });
        assert.deepEqual(await push.removeEdge({ subject: 'nobody', predicate: 'tagged', object: 'tag-1' }), { removed: false });
      });

      it('putEdge refuses unknown ends and a predicate that is not one', async () => {
        await push.put({ id: 'post-1', category: 'post', title: 'Post' });
        await refused(push.putEdge({ subject: 'post-1', predicate: 'post', object: 'post-1' }), 'not_found', 'predicate', /not a predicate/);
        await refused(push.putEdge({ subject: 'nope', predicate: 'tagged', object: 'post-1' }), 'not_found', 'subject');
        await refused(push.putEdge({ subject: 'post-1', predicate: 'tagged', object: 999_999 }), 'not_found', 'object');
        await refused(push.putEdge({ subject: 'post-1', predicate: 'tagged', object: 'post-1', seq: 1.5 }), 'invalid_input', 'seq');
      });

      it('setEdges makes the list complete and ordered', async () => {
        await push.put({ id: 'post-1', category: 'post', title: 'Post' });
        const tags = [];
        for (const t of ['a', 'b', 'c']) tags.push((await push.put({ id: `tag-${t}`, category: 'tag', title: t })).id);
        await push.setEdges({ subject: 'post-1', predicate: 'tagged', objects: ['tag-a', 'tag-b'] });
        const { ids } = await push.setEdges({ subject: 'post-1', predicate: 'tagged', objects: ['tag-c', 'tag-a', 'tag-c'] });
        assert.equal(ids.length, 2);
        const rows = await content.db.selectFrom('edge').select(['object_id', 'seq']).where('predicate_id', '=', tagged).orderBy('seq').execute();
        assert.deepEqual(rows.map((r) => [r.object_id, r.seq]), [[tags[2], 1], [tags[0], 2]]);
        await push.setEdges({ subject: 'post-1', predicate: 'tagged', objects: [] });
        assert.equal((await content.db.selectFrom('edge').selectAll().where('predicate_id', '=', tagged).execute()).length, 0);
        await refused(push.setEdges({ subject: 'post-1', predicate: 'tagged', objects: ['tag-a', 'missing'] }), 'not_found', 'objects.1');
      });

      it('putMedium writes the resource’s one file, read by the facade; removeMedium removes it', async () => {
        const { id } = await push.put({ id: 'photo', category: 'post', title: 'Photo' });
        await push.putMedium({ resource: 'photo', mime: 'image/png', filename: 'dawn.png', width: 160, height: 90, size: 12105 });
        await push.putMedium({ resource: id, mime: 'image/jpeg', filename: 'dawn.jpg', size: 100 });
        const r = (await read(id).expect(200)).body.result;
        assert.equal(r.medium.mime, 'image/jpeg');
        assert.match(r.medium.download_url, /dawn\.jpg$/);
        await refused(push.putMedium({ resource: 'photo', mime: 'png', filename: 'x.png' }), 'invalid_input', 'mime');
        await refused(push.putMedium({ resource: 'photo', mime: 'image/png', filename: '../x.png' }), 'invalid_input', 'filename');
        await refused(push.putMedium({ resource: 'nothing', mime: 'image/png', filename: 'x.png' }), 'not_found', 'resource');
        assert.deepEqual(await push.removeMedium('photo'), { removed: true });
        assert.deepEqual(await push.removeMedium('photo'), { removed: false });
      });
    });

    describe('transactions', () => {
      it('a write inside the host’s transaction rolls back with it', async () => {
        const failure = new Error('host rollback');
        await assert.rejects(
          content.db.transaction().execute(async (trx) => {
            await push.put({ id: GHOST_ID, category: 'post', title: 'Never' }, { transaction: trx });
            await push.putCategory({ name: 'never' }, { transaction: trx });
            throw failure;
          }),
          failure,
        );
        assert.equal((await content.db.selectFrom('rsc').select('id').where('name', '=', 'never').execute()).length, 0);
        assert.equal(await mappings(), 0);
        assert.deepEqual(await searchIds(), []);
      });

      it('commits with the host’s transaction; a refused call inside it leaves the host’s writes usable', async () => {
        const ids = await content.db.transaction().execute(async (trx) => {
          const a = await push.put({ id: 'in-trx-a', category: 'post', title: 'A' }, { transaction: trx });
          await refused(push.put({ id: 'in-trx-b', category: 'missing', title: 'B' }, { transaction: trx }), 'not_found', 'category');
          await refused(push.put({ id: 'in-trx-c', category: 'post', title: 'C', name: 'dup' }, { transaction: trx }).then(() =>
            push.put({ id: 'in-trx-d', category: 'post', title: 'D', name: 'dup' }, { transaction: trx })), 'conflict', 'name');
          return [a.id];
        });
        assert.deepEqual(await searchIds(), [...ids, (await content.db.selectFrom('rsc').select('id').where('name', '=', 'dup').executeTakeFirstOrThrow()).id].sort((x, y) => x - y));
        assert.equal(await mappings(), 2, 'b and d left no mapping');
      });

      it('only a transaction is taken as { transaction } (typed and checked)', async () => {
        // @ts-expect-error a Kysely instance that is not a transaction
        await assert.rejects(push.put({ id: 'x', category: 'post', title: 'X' }, { transaction: content.db }), /must be a Kysely transaction/);
        assert.equal(await mappings(), 0);
      });

      it('a read-only transaction is refused with an error naming the fix', async () => {
        await content.db.transaction().execute(async (trx) => {
          await sql`SET TRANSACTION READ ONLY`.execute(trx);
          await refused(push.put({ id: 'ro', category: 'post', title: 'RO' }, { transaction: trx }), 'read_only', undefined, /primary/);
        });
      });
    });

    describe('reconcile', () => {
      it('removes what the list does not name, reports stale and missing, keeps vocabulary', async () => {
        const t = new Date('2025-05-05T05:05:05.555Z');
        const a = await push.put({ id: 'a', category: 'post', title: 'A', modified: t });
        const b = await push.put({ id: 'b', category: 'post', title: 'B', modified: t });
        const c = await push.put({ id: 3003, category: 'post', title: 'C', modified: t });
        await push.put({ id: 'd', category: 'post', title: 'D', modified: t });
        const result = await push.reconcile([
          { id: 'a', modified: t },
          { id: 'b', modified: '2025-05-06T00:00:00Z' },
          { id: 3003, modified: t.toISOString() },
          { id: 'new-one' },
        ], { maxRemove: 1 });
        assert.deepEqual(result, { removed: ['d'], stale: ['b'], missing: ['new-one'], listed: 4, inScope: 4 });
        assert.deepEqual(await searchIds(), [a.id, b.id, c.id].sort((x, y) => x - y));
        assert.ok(await content.db.selectFrom('rsc').select('id').where('name', '=', 'post').executeTakeFirst(), 'vocabulary stays');
        const empty = await push.reconcile([], { maxRemove: '100%' });
        assert.deepEqual(empty.removed.sort(), [3003, 'a', 'b'].sort());
        assert.deepEqual(await searchIds(), []);
      });

      it('dryRun reports without removing; categories bound the scope', async () => {
        await push.putCategory({ name: 'page' });
        await push.put({ id: 'post-x', category: 'post', title: 'X' });
        await push.put({ id: 'page-y', category: 'page', title: 'Y' });
        assert.deepEqual((await push.reconcile([], { dryRun: true })).removed.sort(), ['page-y', 'post-x']);
        assert.equal((await searchIds()).length, 2);
        assert.deepEqual((await push.reconcile([], { categories: ['post'], maxRemove: '100%' })).removed, ['post-x']);
        assert.equal((await searchIds()).length, 1);
        await refused(push.reconcile([], { categories: ['nowhere'] }), 'not_found', 'categories.0');
      });

      it('streams a long list in chunks and names a bad entry by its position', async () => {
        const kept = await push.put({ id: 'kept', category: 'post', title: 'Kept' });
        await push.put({ id: 'dropped', category: 'post', title: 'Dropped' });
        function* list() {
          for (let i = 0; i < 2500; i++) yield { id: `absent-${i}` };
          yield { id: 'kept' };
        }
        const result = await push.reconcile(list(), { maxRemove: '50%' });
        assert.deepEqual(result.removed, ['dropped']);
        assert.equal(result.missing.length, 2500);
        assert.equal(result.listed, 2501);
        assert.deepEqual(await searchIds(), [kept.id]);
        async function* bad() {
          yield { id: 'kept' };
          yield { id: -4 };
        }
        await refused(push.reconcile(bad()), 'invalid_input', 'current.1.id');
        assert.deepEqual(await searchIds(), [kept.id], 'a refused reconcile removes nothing');
      });

      it('removes more than one batch, each id once, in id order', async () => {
        const kept = await push.put({ id: 'kept', category: 'post', title: 'Kept' });
        const { rows } = await sql<{ id: number }>`
          INSERT INTO rsc (category_id, title, language, is_published)
          SELECT (SELECT id FROM rsc WHERE name = 'post'), '{"en":"bulk"}', '{en}', true FROM generate_series(1, 2345) RETURNING id`.execute(content.db);
        const dry = await push.reconcile([{ id: 'kept' }], { dryRun: true });
        const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
        assert.deepEqual(dry.removed, ids);
        const result = await push.reconcile([{ id: 'kept' }], { maxRemove: 2345 });
        assert.deepEqual(result.removed, ids);
        assert.deepEqual(await searchIds(), [kept.id]);
      });

      it('refuses to remove more than maxRemove allows (default 10 %), and anything from an empty list', async () => {
        for (let i = 0; i < 20; i++) await push.put({ id: `p${i}`, category: 'post', title: `P${i}` });
        const all = Array.from({ length: 20 }, (_, i) => ({ id: `p${i}` }));
        const empty = await refused(push.reconcile([]), 'remove_limit', 'maxRemove', /list is empty.*all 20 of the 20 resources in scope.*nothing was removed/);
        assert.equal(empty.retryable, false);
        await refused(push.reconcile([], { maxRemove: 20 }), 'remove_limit', 'maxRemove', /list is empty/);
        await refused(push.reconcile([], { maxRemove: '99%' }), 'remove_limit', 'maxRemove');
        await refused(push.reconcile(all.slice(0, 17)), 'remove_limit', 'maxRemove', /3 of the 20 .* maxRemove 10% allows \(2\)/);
        await refused(push.reconcile(all.slice(0, 17), { maxRemove: 2 }), 'remove_limit', 'maxRemove');
        assert.equal((await searchIds()).length, 20, 'a refused run removes nothing');
        const dry = await push.reconcile([], { dryRun: true });
        assert.equal(dry.removed.length, 20, 'dryRun lists what would go');
        assert.match(dry.refusal ?? '', /list is empty/);
        assert.equal((await push.reconcile(all.slice(0, 18), { dryRun: true })).refusal, undefined, '2 of 20 is within 10 %');
        assert.deepEqual((await push.reconcile(all.slice(0, 18))).removed.sort(), ['p18', 'p19']);
        assert.deepEqual((await push.reconcile(all.slice(0, 15), { maxRemove: 3 })).removed.sort(), ['p15', 'p16', 'p17']);
        assert.deepEqual((await push.reconcile(all.slice(0, 15))).removed, [], 'nothing to remove is never refused');
        await refused(push.reconcile([], { maxRemove: '101%' }), 'invalid_input', 'maxRemove');
        await refused(push.reconcile([], { maxRemove: -1 }), 'invalid_input', 'maxRemove');
        await refused(push.reconcile([], { maxRemove: 'ten' as never }), 'invalid_input', 'maxRemove');
        assert.equal((await push.reconcile([], { maxRemove: '100%' })).removed.length, 15, 'told to, an empty list empties the scope');
        assert.deepEqual(await searchIds(), []);
      });

      it('inside the host’s transaction, rolls back with it', async () => {
        await push.put({ id: 'stay', category: 'post', title: 'Stay' });
        await assert.rejects(
          content.db.transaction().execute(async (trx) => {
            assert.deepEqual((await push.reconcile([], { transaction: trx, maxRemove: '100%' })).removed, ['stay']);
            assert.deepEqual((await push.reconcile([], { transaction: trx })).removed, [], 'a second run in the same transaction');
            throw new Error('undo');
          }),
          /undo/,
        );
        assert.equal((await searchIds()).length, 1);
      });
    });
  });
}
