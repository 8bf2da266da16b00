import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import request from 'supertest';
import type { Kysely } from 'kysely';
import type { Database } from '../src/db/schema.js';
import { createContext, type AgentContext } from '../src/context.js';
import type { ResolvedOptions } from '../src/options.js';
import { PATHS } from '../src/paths.js';
import { absoluteUrl } from '../src/http/urls.js';
import { searchResources } from '../src/content/search.js';
import { markdownRepresentation } from '../src/representations/resource-markdown.js';
import { newestResources } from '../src/discovery/site-content.js';
import { assembleLlmsFull, closingNote, type LlmsFullEntry, type LlmsFullFrame } from '../src/discovery/llms-full.js';
import { bootstrapVocabulary, insertCategory, insertMedium, insertResource } from '../example-site/content-store.js';
import { backends, type TestDatabase } from './support/backends.js';
import { pluginApp } from './support/demo.js';

const BASE = 'https://harbour.example';
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * llms-full.txt as it was built before the batched read: a search page of 50 at a time, then each
 * resource read again by `markdownRepresentation`. The route must answer exactly this.
 */
async function* oneByOne(ctx: AgentContext, options: ResolvedOptions, base: string): AsyncGenerator<LlmsFullEntry> {
  for (let offset = 0; ; offset += 50) {
    const rows = await searchResources(ctx.db, { sort: 'newest', siteNoindex: false, offset, limit: 50 });
    for (const r of newestResources(rows, options)) {
      const markdown = await markdownRepresentation(ctx, r.id, r.language, base);
      if (!markdown) continue;
      yield { title: r.title, url: absoluteUrl(base, PATHS.markdown.url({ id: r.id }), { language: markdown.language }), markdown: markdown.body };
    }
    if (rows.length < 50) return;
  }
}

type Kind = 'public' | 'private' | 'unpublished' | 'noindex' | 'noindexCategory' | 'privateCategory' | 'scheduled' | 'ended';
const KINDS: Kind[] = ['public', 'public', 'public', 'public', 'public', 'public', 'public', 'public', 'private', 'unpublished', 'noindex', 'noindexCategory', 'privateCategory', 'scheduled', 'ended'];

/** A random resource: its kind, languages, title, body, medium, and one of a few instants (ties across the chunks of a build). */
const resource = fc.record({
  kind: fc.constantFrom(...KINDS),
  languages: fc.subarray(['en', 'nl', 'de'], { minLength: 1 }),
  title: fc.string({ unit: 'grapheme', maxLength: 120 }),
  // Mostly short (many fit: the build reads several chunks), now and then a long one (cut at a resource, or inside the first).
  body: fc.oneof(
    { arbitrary: fc.string({ maxLength: 300 }), weight: 8 },
    { arbitrary: fc.nat(7000).map((n) => `<p>${'港'.repeat(n)}</p>`), weight: 1 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 2500 }), weight: 1 },
  ),
  medium: fc.boolean(),
  instant: fc.nat(3),
});

type RandomResource = typeof resource extends fc.Arbitrary<infer T> ? T : never;

const MINUTE = 60_000;

for (const backend of backends) {
  describe(`llms-full.txt over random content [${backend.name}]`, () => {
    let content: TestDatabase;
    let categories: Record<'article' | 'noindexCategory' | 'privateCategory', number>;
    before(async () => {
      content = await backend.open();
      await bootstrapVocabulary(content.db);
      categories = {
        article: await insertCategory(content.db, { name: 'article', title: { en: 'Articles' } }),
        noindexCategory: await insertCategory(content.db, { name: 'press', isNoindex: true, title: { en: 'Press' } }),
        privateCategory: await insertCategory(content.db, { name: 'internal', visibility: 'members', title: { en: 'Internal' } }),
      };
    });
    after(() => content.close());

    /** Inserts the resources, newest at `now`, and answers their ids. */
    async function insertAll(db: Kysely<Database>, resources: RandomResource[]): Promise<number[]> {
      const now = Date.now();
      const ids: number[] = [];
      for (const r of resources) {
        const text = Object.fromEntries(r.languages.map((l) => [l, r.title]));
        const body = Object.fromEntries(r.languages.map((l) => [l, r.body]));
        const id = await insertResource(db, {
          category: r.kind === 'noindexCategory' || r.kind === 'privateCategory' ? categories[r.kind] : categories.article,
          title: text,
          body,
          language: r.languages,
          isPublished: r.kind !== 'unpublished',
          visibility: r.kind === 'private' ? 'members' : 'public',
          seoNoindex: r.kind === 'noindex',
          publicationStart: new Date(r.kind === 'scheduled' ? now + 60 * MINUTE : now - (r.instant + 1) * MINUTE),
          ...(r.kind === 'ended' ? { publicationEnd: new Date(now - MINUTE / 2) } : {}),
          modified: new Date(Date.UTC(2026, 10, 30, 12, r.instant)),
        });
        if (r.medium) await insertMedium(db, { rscId: id, mime: 'image/png', filename: `f${id}.png`, width: 4, height: 3, size: 99 });
        ids.push(id);
      }
      return ids;
    }

    it('never exceeds the budget, ends with the closing note, and is byte for byte the one-by-one build', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(resource, { maxLength: 80, size: 'max' }), fc.integer({ min: 16 * 1024, max: 64 * 1024 }), async (resources, maxBytes) => {
          const ids = await insertAll(content.db, resources);
          let rowsRead = 0;
          const counted = content.db.withPlugin({
            transformQuery: (args) => args.node,
            transformResult: async (args) => {
              const first = args.result.rows[0] as Record<string, unknown> | undefined;
              // The rows of the batched read: whole resources with their keyset position.
              if (first && 'category_chain' in first && 'sort_s' in first) rowsRead += args.result.rows.length;
              return args.result;
            },
          });
          const { app, agent } = await pluginApp(counted, { baseUrl: BASE, llmsFull: { maxBytes }, budgetMs: 60_000, markdownWorkers: 0 });
          const ctx = createContext(agent.options, { db: content.db, kind: content.kind, pool: undefined, close: async () => {} });
          try {
            const body = (await request(app).get('/llms-full.txt').expect(200)).text;
            const frame: LlmsFullFrame = {
              siteTitle: agent.options.siteTitle,
              summary: agent.options.description ?? '',
              maxBytes,
              searchUrl: absoluteUrl(BASE, PATHS.search.url(), { sort: 'newest' }),
              llmsTxtUrl: absoluteUrl(BASE, PATHS.llmsTxt.url()),
            };
            assert.equal(body, await assembleLlmsFull(frame, () => oneByOne(ctx, agent.options, BASE)));
            assert.ok(bytes(body) <= maxBytes, `${bytes(body)} > ${maxBytes}`);
            // A resource of a private category is listed (the category is only left unnamed).
            const listed = resources.filter((r) => r.kind === 'public' || r.kind === 'privateCategory').length;
            const included = [...body.matchAll(/^URL: \S+$/gm)].length;
            const partial = /\[… cut here: the whole resource is at \S+\]\n/.test(body);
            assert.ok(body.endsWith(closingNote(frame, included, included < listed || partial, partial)), body.slice(-300));
            // Never the whole site: at most one chunk of 50 past what was included.
            assert.ok(rowsRead <= Math.min(listed, included + 50), `${rowsRead} rows read, ${included} included`);
          } finally {
            await agent.close();
            await ctx.markdown.close();
            await content.db.deleteFrom('rsc').where('id', 'in', ids.length ? ids : [0]).execute();
          }
        }),
        { numRuns: backend.name === 'pglite' ? 6 : 12 },
      );
    });
  });
}
