import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { chooseLanguage, localize } from '../content/language.js';
import { searchResources } from '../content/search.js';
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
 * resource, so that the example finds at least that resource: its longest word of 4 to 40 letters or
 * digits that the `text` parameter accepts (`accepts`, the parameter's own schema). `undefined` when
 * nothing public has such a word.
 */
export async function exampleSearchWord(
  db: Kysely<Database>,
  siteNoindex: boolean,
  siteDefault: string,
  accepts: (text: string) => boolean,
): Promise<string | undefined> {
  const [newest] = await searchResources(db, { sort: 'newest', siteNoindex, offset: 0, limit: 1 });
  if (!newest) return undefined;
  const words = localize(newest.title, siteDefault, siteDefault).match(/[\p{L}\p{N}]{4,}/gu) ?? [];
  return words
    .filter((w) => [...w].length <= MAX_EXAMPLE_WORD_CHARS && accepts(w))
    .sort((a, b) => b.length - a.length)[0];
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
 * The newest resources a search would list (anonymous-visible, indexable, not vocabulary; the same
 * rules and index as `searchResources` with `sort=newest`), each in the site default language when
 * it has it, else its own first site language.
 *
 * ```sql
 * SELECT r.id, … FROM rsc r LEFT JOIN rsc cat ON … WHERE <anonymous-visible> AND <indexable> AND <not meta>
 * ORDER BY r.publication_start DESC, r.id ASC LIMIT $1
 * ```
 */
export async function newestResources(
  db: Kysely<Database>,
  site: { noindex: boolean; languages: readonly string[]; defaultLanguage: string },
  limit: number,
): Promise<NewestResource[]> {
  const siteDefault = site.defaultLanguage;
  const siteNoindex = site.noindex;
  const count = Math.min(Math.max(0, Math.trunc(limit)), MAX_NEWEST);
  if (!count || siteNoindex) return [];
  const rows = await searchResources(db, { sort: 'newest', siteNoindex, offset: 0, limit: count });
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
