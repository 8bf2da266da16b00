import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { chooseLanguage, localize } from '../content/language.js';
import { SEARCH_SHAPE, searchResources, searchStatement, type SearchQuery, type SearchRow } from '../content/search.js';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { reusableQuery } from '../db/reusable-query.js';
import { besideStoredSettings, hasSettingsTable, snapshotOf } from '../settings/settings-store.js';
import { effectiveOptions, mergeSettings } from '../settings/effective-settings.js';
import { idOrName } from '../http/parameters.js';
import { publicTopCategories } from '../content/top-categories.js';

/** A top-level category worth a search link: public, indexable, with searchable content. */
export interface PublicCategory {
  id: number;
  /** What `cat=` takes: the unique name, else the id. */
  ref: number | string;
  title: string;
  summary: string;
}

/** Stored names are not trusted: one that `cat=` would refuse is not advertised (the id is). */
const categoryName = idOrName('category');

/** The top-level categories llms.txt links a search to, each by the reference `cat=` accepts. */
export async function advertisedCategories(db: Kysely<Database>, siteNoindex: boolean, language: string, siteDefault: string): Promise<PublicCategory[]> {
  const rows = await publicTopCategories(db, siteNoindex, language, siteDefault);
  return rows.map((row) => {
    const named = row.name === null ? undefined : categoryName.safeParse(row.name).data;
    const ref = typeof named === 'string' ? named : row.id;
    return { id: row.id, ref, title: row.title || String(ref), summary: row.summary };
  });
}

/** The longest word an example search uses: long enough to be specific, short enough to read. */
const MAX_EXAMPLE_WORD_CHARS = 40;

/**
 * A word for the API help's full-text example, taken from the title of the newest searchable
 * resource (`newest`), so that the example finds at least that resource: its longest word of 4 to 40
 * letters or digits that the `text` parameter accepts (`accepts`, the parameter's own schema).
 * `undefined` when nothing public has such a word.
 */
export function exampleSearchWord(newest: SearchRow | undefined, siteDefault: string, accepts: (text: string) => boolean): string | undefined {
  if (!newest) return undefined;
  const words = localize(newest.title, siteDefault, siteDefault).match(/[\p{L}\p{N}]{4,}/gu) ?? [];
  return words
    .filter((w) => [...w].length <= MAX_EXAMPLE_WORD_CHARS && accepts(w))
    .sort((a, b) => b.length - a.length)[0];
}

/** The search of the newest resources beside the stored settings, in one statement (built once per shape). */
const newestBesideSettings = reusableQuery((db: Kysely<Database>, q: SearchQuery) => besideStoredSettings(db, searchStatement(db, q)), [...SEARCH_SHAPE]);

/**
 * The options in force (the run-time settings in place) and the `limit` newest resources a search
 * would list under them (`sort=newest`: anonymous-visible, indexable, not vocabulary), for the
 * documents that need both. Once the settings table is known, one statement reads both (the search
 * reads the site noindex setting itself); before that, or without the table, two.
 */
export async function newestWithOptions(ctx: AgentContext, limit: number): Promise<{ options: ResolvedOptions; newest: SearchRow[] }> {
  const count = Math.min(Math.max(0, Math.trunc(limit)), MAX_NEWEST);
  if (!hasSettingsTable(ctx.db)) {
    const options = await effectiveOptions(ctx);
    const newest = count && !options.noindex ? await searchResources(ctx.db, { sort: 'newest', siteNoindex: false, offset: 0, limit: count }) : [];
    return { options, newest };
  }
  const query = { sort: 'newest' as const, siteNoindex: { storedElse: ctx.options.noindex }, offset: 0, limit: count };
  const { rows } = await ctx.db.executeQuery(newestBesideSettings(ctx.db, query));
  const { options } = mergeSettings(ctx.options, snapshotOf(ctx.db, rows[0]!));
  return { options, newest: rows.filter((row) => row.id !== null) as SearchRow[] };
}

/** A resource listed in llms.txt's newest section. */
export interface NewestResource {
  id: number;
  title: string;
  summary: string;
  /** The language of the title and of the linked Markdown: the site default when the resource has it. */
  language: string;
}

/** The most llms.txt lists in its newest section. */
export const MAX_NEWEST = 50;

/**
 * llms.txt's newest section from the newest searchable resources ({@link newestWithOptions}), each in
 * the site default language when it has it, else its own first site language.
 */
export function newestResources(rows: readonly Pick<SearchRow, 'id' | 'title' | 'summary' | 'language'>[], site: { languages: readonly string[]; defaultLanguage: string }): NewestResource[] {
  const siteDefault = site.defaultLanguage;
  return rows.map((row) => {
    // Only a site language: the Markdown route accepts nothing else.
    const { language } = chooseLanguage(row.language.filter((l) => site.languages.includes(l)), siteDefault, siteDefault);
    return {
      id: row.id,
      title: localize(row.title, language, siteDefault) || `#${row.id}`,
      summary: localize(row.summary, language, siteDefault),
      language,
    };
  });
}
