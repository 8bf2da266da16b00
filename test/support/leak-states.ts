import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/index.js';
import { bootstrapVocabulary, insertCategory, insertResource } from '../../example-site/content-store.js';
import type { Backend, TestDatabase } from './backends.js';
import { pluginApp } from './demo.js';
import { listen } from './mcp-client.js';

/**
 * The generated states of the never-leak property, shared by every face of the facade (REST, MCP):
 * publication, visibility, window, resource noindex and the category (plain, noindex, below a
 * noindex one, or a category whose own resource is private).
 */
const DAY = 86_400_000;
const WINDOWS = {
  before: [1, null],
  inside: [-1, 1],
  after: [-2, -1],
  open: [-1, null],
} as const;

export const leakState = fc.record({
  published: fc.boolean(),
  visibility: fc.constantFrom('public', 'members', 'private'),
  window: fc.constantFrom(...(Object.keys(WINDOWS) as (keyof typeof WINDOWS)[])),
  noindex: fc.boolean(),
  category: fc.constantFrom('plain', 'noindex', 'below_noindex', 'hidden'),
});

export type LeakState = typeof leakState extends fc.Arbitrary<infer T> ? T : never;
export type LeakCategories = Record<LeakState['category'], number>;

/** One inserted resource and what an anonymous visitor may see of it. */
export interface LeakRow {
  id: number;
  visible: boolean;
  listed: boolean;
}

/** The vocabulary and the four categories the states refer to. */
export async function leakCategories(db: Kysely<Database>): Promise<LeakCategories> {
  await bootstrapVocabulary(db);
  const plain = await insertCategory(db, { name: 'plain' });
  const noindex = await insertCategory(db, { name: 'noindex_cat', isNoindex: true });
  const belowNoindex = await insertCategory(db, { name: 'below_noindex', parent: noindex });
  // A category whose own resource is private: its members may be public, the category is not vocabulary.
  const hidden = await insertCategory(db, { name: 'hidden_cat', visibility: 'members' });
  return { plain, noindex, below_noindex: belowNoindex, hidden };
}

/** Replaces the resources of the leak categories with one per state; returns what each should expose. */
export async function insertLeakStates(db: Kysely<Database>, cats: LeakCategories, states: readonly LeakState[]): Promise<LeakRow[]> {
  await sql`DELETE FROM rsc WHERE category_id IN (${sql.join(Object.values(cats))})`.execute(db);
  const now = Date.now();
  const rows: LeakRow[] = [];
  for (const s of states) {
    const [start, end] = WINDOWS[s.window];
    const id = await insertResource(db, {
      category: cats[s.category],
      isPublished: s.published,
      visibility: s.visibility,
      publicationStart: new Date(now + start * DAY),
      publicationEnd: end === null ? null : new Date(now + end * DAY),
      seoNoindex: s.noindex,
      title: { en: 'harbour item' },
      summary: { en: 'harbour' },
    });
    const visible = s.published && s.visibility === 'public' && (s.window === 'inside' || s.window === 'open');
    const indexable = !s.noindex && s.category !== 'noindex' && s.category !== 'below_noindex';
    rows.push({ id, visible, listed: visible && indexable });
  }
  return rows;
}

/** A plugin with MCP on over a fresh database holding the leak categories, listening on loopback. */
export interface LeakSite {
  readonly content: TestDatabase;
  readonly cats: LeakCategories;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Stops listening, then closes the database. */
  close(): Promise<void>;
}

/** The one harness of the MCP never-leak properties (every protocol revision and client). */
export async function startLeakSite(backend: Backend): Promise<LeakSite> {
  const content = await backend.open();
  try {
    const cats = await leakCategories(content.db);
    const { app } = await pluginApp(content.db, { mcp: true });
    const web = await listen(app);
    return {
      content,
      cats,
      origin: web.origin,
      async close() {
        await web.close();
        await content.close();
      },
    };
  } catch (error) {
    await content.close();
    throw error;
  }
}
