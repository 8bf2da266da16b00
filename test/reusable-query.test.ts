import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { backends, type TestDatabase } from './support/backends.js';
import { reusableQuery, typeOfValue } from '../src/db/reusable-query.js';
import { byRef, type ResourceRef } from '../src/content/resource-ref.js';
import { compiledSearch, searchSelect, searchResources, searchStatement, type SearchQuery } from '../src/content/search.js';
import { compiledEdgePage, edgePageQuery } from '../src/content/edges.js';
import { bootstrapVocabulary, insertCategory, insertResource } from '../example-site/content-store.js';

// The helper itself needs no database: Kysely compiles without one. One backend opens a Kysely instance.
const backend = backends[0]!;
/** `npm test` also checks every reuse against an ordinary build: one more build per call. */
const verifying = process.env.EXPRESS_AGENT_DISCOVERY_VERIFY_QUERIES === '1';

describe('reusable queries', () => {
  let content: TestDatabase;
  before(async () => {
    content = await backend.open();
  });
  after(() => content.close());

  it('reuses the SQL text of a shape and puts each call\'s values in its parameters', () => {
    let builds = 0;
    const byName = reusableQuery((db: TestDatabase['db'], p: { name: string; limit: number }) => {
      builds++;
      return db.selectFrom('rsc').select('id').where('name', '=', p.name).limit(p.limit);
    });
    const a = byName(content.db, { name: 'a', limit: 3 });
    const buildsAfterFirst = builds;
    const b = byName(content.db, { name: 'b', limit: 9 });
    assert.equal(builds, buildsAfterFirst + (verifying ? 1 : 0), 'the second call of the shape does not build (beyond the check)');
    assert.equal(b.sql, a.sql);
    assert.strictEqual(b.sql, a.sql, 'the very same SQL string (its prepared-statement name is found without rehashing)');
    assert.deepEqual(a.parameters, ['a', 3]);
    assert.deepEqual(b.parameters, ['b', 9]);
  });

  it('a builder that branches on typeOfValue or presence gets one template per shape, built once', () => {
    let builds = 0;
    const byKind = reusableQuery((db: TestDatabase['db'], p: { ref: number | string; after?: number | undefined }) => {
      builds++;
      let q = db.selectFrom('rsc').select('id').where(typeOfValue(p.ref) === 'number' ? 'id' : 'name', '=', p.ref);
      if (p.after !== undefined) q = q.where('id', '>', p.after);
      return q;
    });
    assert.match(byKind(content.db, { ref: 7 }).sql, /"id" = \$1$/);
    assert.match(byKind(content.db, { ref: 'welcome' }).sql, /"name" = \$1$/);
    const firstBuilds = builds;
    assert.deepEqual(byKind(content.db, { ref: 8 }).parameters, [8]);
    assert.deepEqual(byKind(content.db, { ref: 'other' }).parameters, ['other']);
    assert.equal(builds, firstBuilds + (verifying ? 2 : 0), 'numbers and names each reuse their template');
    const later = byKind(content.db, { ref: 'x', after: 5 });
    assert.match(later.sql, /"name" = \$1 and "id" > \$2$/);
    assert.deepEqual(later.parameters, ['x', 5]);
  });

  it('every read of one resource (byRef) reuses its template, by id and by name', () => {
    let builds = 0;
    const read = reusableQuery((db: TestDatabase['db'], p: { ref: ResourceRef }) => (builds++, db.selectFrom('rsc as r').select('r.id').where(byRef('r', p.ref))));
    read(content.db, { ref: 21 });
    read(content.db, { ref: 'welcome' });
    const firstBuilds = builds;
    const byId = read(content.db, { ref: 22 });
    const byName = read(content.db, { ref: 'about' });
    assert.equal(builds, firstBuilds + (verifying ? 2 : 0), 'no build beyond the first of each shape');
    assert.match(byId.sql, /"r"\."id" = \$1::bigint$/);
    assert.deepEqual(byId.parameters, [22]);
    assert.match(byName.sql, /"r"\."name" = \$1$/);
    assert.deepEqual(byName.parameters, ['about']);
  });

  it('a builder that computes with a value falls back to an ordinary build, still correct', () => {
    let builds = 0;
    const doubled = reusableQuery((db: TestDatabase['db'], p: { n: number }) => {
      builds++;
      return db.selectFrom('rsc').select('id').where('id', '=', p.n * 2);
    });
    assert.deepEqual(doubled(content.db, { n: 2 }).parameters, [4]);
    const before = builds;
    assert.deepEqual(doubled(content.db, { n: 5 }).parameters, [10]);
    assert.equal(builds, before + 1, 'built again for the new value');
  });

  it('the hot reads (search pages, edge pages) build once per shape, first pages and keyset pages alike', () => {
    let builds = 0;
    const search = reusableQuery((db: TestDatabase['db'], q: SearchQuery) => (builds++, searchStatement(db, q)), ['sort']);
    const edges = reusableQuery((db: TestDatabase['db'], q: Parameters<typeof edgePageQuery>[1]) => (builds++, edgePageQuery(db, q)), ['direction']);
    const stored = { storedElse: false };
    for (let page = 0; page < 5; page++) {
      search(content.db, { sort: 'newest', siteNoindex: stored, offset: 0, limit: 21 });
      search(content.db, { sort: 'newest', siteNoindex: stored, after: [1_700_000_000 + page, 5, 40 + page], offset: 0, limit: 21 });
      search(content.db, { text: `harbour ${page}`, sort: 'id', siteNoindex: stored, offset: 0, limit: 21 });
      edges(content.db, { resourceId: 10 + page, direction: 'out', siteNoindex: stored, offset: 0, limit: 21 });
      edges(content.db, { resourceId: 10 + page, direction: 'in', predicateId: 3, after: [3, 100 + page], siteNoindex: stored, offset: 0, limit: 21 });
    }
    // Five shapes, each built twice on its first call (with placeholders, and once to check them);
    // under verification, every later call (20) is checked against an ordinary build too.
    assert.equal(builds, 10 + (verifying ? 20 : 0));
  });

  it('the compiled search and edge statements equal their ordinary builds for any parameters (blank texts included)', () => {
    const sort = fc.constantFrom('id', 'newest', 'oldest', 'modified') as fc.Arbitrary<SearchQuery['sort']>;
    const siteNoindex = fc.oneof(fc.boolean(), fc.record({ storedElse: fc.boolean() }));
    const date = fc.date({ min: new Date('2000-01-01'), max: new Date('2030-01-01'), noInvalidDate: true });
    const search = fc.record(
      {
        text: fc.option(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '  ', '\t')), { nil: undefined }),
        categoryIds: fc.option(fc.array(fc.nat(1000), { minLength: 1, maxLength: 3 }), { nil: undefined }),
        sort,
        publishedFrom: fc.option(date, { nil: undefined }),
        publishedUntil: fc.option(date, { nil: undefined }),
        siteNoindex,
        after: fc.option(fc.tuple(fc.nat(2e9), fc.nat(999_999), fc.nat(1e6)), { nil: undefined }),
        offset: fc.nat(10_000),
        limit: fc.integer({ min: 1, max: 101 }),
      },
      { requiredKeys: ['sort', 'siteNoindex', 'offset', 'limit'] },
    );
    fc.assert(
      fc.property(search, (q) => {
        const fresh = searchSelect(content.db, q).compile();
        const got = compiledSearch(content.db, q);
        assert.equal(got.sql, fresh.sql);
        assert.deepEqual(got.parameters, fresh.parameters);
      }),
      { numRuns: 400 },
    );
    const edges = fc.record(
      {
        resourceId: fc.nat(1e6),
        direction: fc.constantFrom('out', 'in') as fc.Arbitrary<'out' | 'in'>,
        predicateId: fc.option(fc.nat(1e6), { nil: undefined }),
        after: fc.option(fc.tuple(fc.nat(1e6), fc.nat(1e6)), { nil: undefined }),
        offset: fc.nat(10_000),
        limit: fc.integer({ min: 1, max: 101 }),
        siteNoindex,
      },
      { requiredKeys: ['resourceId', 'direction', 'offset', 'limit', 'siteNoindex'] },
    );
    fc.assert(
      fc.property(edges, (q) => {
        const fresh = edgePageQuery(content.db, q).compile();
        const got = compiledEdgePage(content.db, q);
        assert.equal(got.sql, fresh.sql);
        assert.deepEqual(got.parameters, fresh.parameters);
      }),
      { numRuns: 400 },
    );
  });

  it('a blank text searches everything, like no text (it never reuses a text statement)', async () => {
    await bootstrapVocabulary(content.db);
    const category = await insertCategory(content.db, { name: 'reusable_articles' });
    await insertResource(content.db, { category, title: { en: 'Harbour cranes' } });
    await insertResource(content.db, { category, title: { en: 'Tide tables' } });
    const all = await searchResources(content.db, { sort: 'id', siteNoindex: false, offset: 0, limit: 50 });
    assert.ok(all.length >= 2);
    const harbour = await searchResources(content.db, { text: 'harbour', sort: 'id', siteNoindex: false, offset: 0, limit: 50 });
    assert.ok(harbour.length < all.length);
    const blank = await searchResources(content.db, { text: '   ', sort: 'id', siteNoindex: false, offset: 0, limit: 50 });
    assert.deepEqual(blank.map((r) => r.id), all.map((r) => r.id));
  });
});
