import { sql } from 'kysely';
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends, type TestDatabase } from './support/backends.js';
import { bootstrapVocabulary, insertCategory, insertResource } from '../example-site/content-store.js';
import { anonymousVisible, indexable, resourceExposure } from '../src/content/visibility.js';

const DAY = 86_400_000;
const windows = {
  before: { start: +1 * DAY, end: null },
  inside: { start: -1 * DAY, end: +1 * DAY },
  after: { start: -2 * DAY, end: -1 * DAY },
  open: { start: -1 * DAY, end: null },
} as const;

interface Case {
  id: number;
  published: boolean;
  visibility: string;
  window: keyof typeof windows;
  rscNoindex: boolean;
  catNoindex: boolean;
  ancestorNoindex: boolean;
}

/** The two verdicts of an exposure (it also carries what a page's language versions are built from). */
const verdicts = (e: { visible: boolean; indexable: boolean } | undefined) => e && { visible: e.visible, indexable: e.indexable };

for (const backend of backends) {
  describe(`visibility and indexability [${backend.name}]`, () => {
    let content: TestDatabase;
    const cases: Case[] = [];

    before(async () => {
      content = await backend.open();
      const { db } = content;
      await bootstrapVocabulary(db);
      const categories = new Map<string, number>();
      for (const ancestorNoindex of [false, true]) {
        const parent = await insertCategory(db, { name: `parent_${ancestorNoindex}`, isNoindex: ancestorNoindex });
        for (const catNoindex of [false, true]) {
          categories.set(`${ancestorNoindex}/${catNoindex}`, await insertCategory(db, { name: `child_${ancestorNoindex}_${catNoindex}`, parent, isNoindex: catNoindex }));
        }
      }
      const now = Date.now();
      for (const published of [false, true])
        for (const visibility of ['public', 'members'])
          for (const window of Object.keys(windows) as (keyof typeof windows)[])
            for (const rscNoindex of [false, true])
              for (const catNoindex of [false, true])
                for (const ancestorNoindex of [false, true]) {
                  const w = windows[window];
                  const id = await insertResource(db, {
                    category: categories.get(`${ancestorNoindex}/${catNoindex}`)!,
                    isPublished: published,
                    visibility,
                    publicationStart: new Date(now + w.start),
                    publicationEnd: w.end === null ? null : new Date(now + w.end),
                    seoNoindex: rscNoindex,
                  });
                  cases.push({ id, published, visibility, window, rscNoindex, catNoindex, ancestorNoindex });
                }
    });
    after(() => content.close());

    for (const siteNoindex of [false, true]) {
      it(`matches the definition over the whole matrix (site noindex: ${siteNoindex})`, async () => {
        const rows = await content.db
          .selectFrom('rsc as r')
          .select(['r.id', anonymousVisible('r').as('visible'), indexable(siteNoindex, 'r').as('indexable')])
          .where('r.id', 'in', cases.map((c) => c.id))
          .execute();
        assert.equal(rows.length, 128);
        const byId = new Map(rows.map((r) => [r.id, r]));
        let visibleCount = 0;
        let indexableCount = 0;
        for (const c of cases) {
          const row = byId.get(c.id)!;
          const expectVisible = c.published && c.visibility === 'public' && (c.window === 'inside' || c.window === 'open');
          const expectIndexable = !siteNoindex && !c.rscNoindex && !c.catNoindex && !c.ancestorNoindex;
          assert.equal(Boolean(row.visible), expectVisible, `visible ${JSON.stringify(c)}`);
          assert.equal(Boolean(row.indexable), expectIndexable, `indexable ${JSON.stringify(c)}`);
          if (expectVisible) visibleCount++;
          if (expectIndexable) indexableCount++;
        }
        assert.equal(visibleCount, 16);
        assert.equal(indexableCount, siteNoindex ? 0 : 16);
      });
    }

    it('reads the site noindex setting inside the statement: the stored value, else the option', async () => {
      const indexableCount = async (siteNoindex: { storedElse: boolean }) => {
        const rows = await content.db
          .selectFrom('rsc as r')
          .select(['r.id', indexable(siteNoindex, 'r').as('indexable')])
          .where('r.id', 'in', cases.map((c) => c.id))
          .execute();
        return rows.filter((r) => Boolean(r.indexable)).length;
      };
      const store = async (noindex: boolean | null) =>
        content.db
          .insertInto('agent_discovery_settings')
          .values({ id: true, settings: sql`${JSON.stringify(noindex === null ? {} : { noindex })}::jsonb`, modified: new Date() })
          .onConflict((oc) => oc.column('id').doUpdateSet({ settings: sql`${JSON.stringify(noindex === null ? {} : { noindex })}::jsonb` }))
          .execute();
      try {
        await content.db.deleteFrom('agent_discovery_settings').execute();
        assert.equal(await indexableCount({ storedElse: false }), 16, 'no row: the option (off)');
        assert.equal(await indexableCount({ storedElse: true }), 0, 'no row: the option (on)');
        await store(null);
        assert.equal(await indexableCount({ storedElse: false }), 16, 'nothing stored: the option (off)');
        assert.equal(await indexableCount({ storedElse: true }), 0, 'nothing stored: the option (on)');
        await store(true);
        assert.equal(await indexableCount({ storedElse: false }), 0, 'stored on beats the option');
        await store(false);
        assert.equal(await indexableCount({ storedElse: true }), 16, 'stored off beats the option');
        const visible = cases.find((c) => c.published && c.visibility === 'public' && c.window === 'open' && !c.rscNoindex && !c.catNoindex && !c.ancestorNoindex)!;
        assert.deepEqual(verdicts(await resourceExposure(content.db, visible.id, { storedElse: true })), { visible: true, indexable: true });
      } finally {
        await content.db.deleteFrom('agent_discovery_settings').execute();
      }
    });

    it('resourceExposure answers by id and by name, undefined for a missing resource', async () => {
      const visible = cases.find((c) => c.published && c.visibility === 'public' && c.window === 'open' && !c.rscNoindex && !c.catNoindex && !c.ancestorNoindex)!;
      assert.deepEqual(verdicts(await resourceExposure(content.db, visible.id, false)), { visible: true, indexable: true });
      assert.deepEqual(verdicts(await resourceExposure(content.db, visible.id, true)), { visible: true, indexable: false });
      const hidden = cases.find((c) => !c.published && c.ancestorNoindex)!;
      assert.deepEqual(verdicts(await resourceExposure(content.db, hidden.id, false)), { visible: false, indexable: false });
      assert.equal(await resourceExposure(content.db, 999_999_999, false), undefined);
      assert.deepEqual(verdicts(await resourceExposure(content.db, 'category', false)), { visible: true, indexable: true });
    });

    it('compiles to one SQL predicate with now() and a non-correlated noindex subtree', () => {
      const compiled = content.db
        .selectFrom('rsc as r')
        .select('r.id')
        .where(anonymousVisible('r'))
        .where(indexable(false, 'r'))
        .compile();
      assert.match(compiled.sql, /"r"\."is_published" AND "r"\."visibility" = 'public' AND "r"\."publication_start" <= now\(\)/);
      assert.match(compiled.sql, /"r"\."publication_end" IS NULL OR "r"\."publication_end" > now\(\)/);
      assert.match(compiled.sql, /NOT "r"\."seo_noindex" AND "r"\."category_id" NOT IN \(WITH RECURSIVE noindex_tree/);
      assert.equal(compiled.parameters.length, 0);
    });
  });
}
