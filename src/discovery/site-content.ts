import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { chooseLanguage, localize } from '../content/language.js';
import { searchResources } from '../content/search.js';
import { idOrName } from '../http/parameters.js';
import { inIdSet, listable, metaCategoryIds, notInIdSet, publicCategory } from '../content/visibility.js';

/** A top-level category worth a search link: public, indexable, with searchable content. */
export interface PublicCategory {
  id: number;
  /** What `cat=` takes: the unique name, else the id. */
  ref: number | string;
  title: string;
  summary: string;
}

/** At most this many categories are listed. */
export const MAX_CATEGORIES = 50;

/** Stored names are not trusted: one that `cat=` would refuse is not advertised (the id is). */
const categoryName = idOrName('category');

/**
 * The top-level categories to advertise, in one statement: the category resource is anonymous-visible
 * and indexable, the category is neither noindex nor vocabulary (`meta`), and its subtree holds at
 * least one resource that a search would return (the same rules as `searchResources`).
 *
 * ```sql
 * WITH RECURSIVE tree(id, top) AS (
 *   SELECT id, id FROM category WHERE parent_id IS NULL
 *   UNION SELECT c.id, t.top FROM category c JOIN tree t ON c.parent_id = t.id)
 * SELECT c.id, r.name, r.title, r.summary FROM category c JOIN rsc r ON r.id = c.id
 * WHERE c.parent_id IS NULL AND <public category c/r> AND c.id NOT IN (<meta tree>)
 *   AND c.id IN (SELECT t.top FROM tree t JOIN rsc x ON x.category_id = t.id
 *                WHERE <listable x>)
 * ORDER BY c.id LIMIT 50
 * ```
 */
export async function publicTopCategories(
  db: Kysely<Database>,
  siteNoindex: boolean,
  language: string,
  siteDefault: string,
): Promise<PublicCategory[]> {
  if (siteNoindex) return [];
  const searchableTops = sql<number>`(WITH RECURSIVE tree(id, top) AS (
      SELECT id, id FROM category WHERE parent_id IS NULL
      UNION
      SELECT c.id, t.top FROM category c JOIN tree t ON c.parent_id = t.id
    ) SELECT t.top FROM tree t JOIN rsc x ON x.category_id = t.id
      WHERE ${listable(siteNoindex, 'x')})`;
  const rows = await db
    .selectFrom('category as c')
    .innerJoin('rsc as r', 'r.id', 'c.id')
    .select(['c.id', 'r.name', 'r.title', 'r.summary'])
    .where('c.parent_id', 'is', null)
    .where(publicCategory(siteNoindex, 'r', 'c'))
    .where(notInIdSet('c.id', metaCategoryIds()))
    .where(inIdSet('c.id', searchableTops))
    .orderBy('c.id')
    .limit(MAX_CATEGORIES)
    .execute();
  return rows.map((row) => {
    const named = row.name === null ? undefined : categoryName.safeParse(row.name).data;
    const ref = typeof named === 'string' ? named : row.id;
    return { id: row.id, ref, title: localize(row.title, language, siteDefault) || String(ref), summary: localize(row.summary, language, siteDefault) };
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
