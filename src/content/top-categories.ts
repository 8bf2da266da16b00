import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import { localize } from './language.js';
import { reusableQuery } from '../db/reusable-query.js';
import { listable, metaCategoryIds, notInIdSet, publicCategory } from './visibility.js';

/** A top-level category worth a search link, localized: its stored name is not checked here. */
export interface TopCategoryRow {
  id: number;
  name: string | null;
  title: string;
  summary: string;
}

/** At most this many categories are listed. */
const MAX_CATEGORIES = 50;

/**
 * The top-level categories to advertise, in one statement: the category resource is anonymous-visible
 * and indexable, the category is neither noindex nor vocabulary (`meta`), and its subtree holds at
 * least one resource that a search would return (the same rules as `searchResources`).
 *
 * ```sql
 * SELECT c.id, r.name, r.title, r.summary FROM category c JOIN rsc r ON r.id = c.id
 * WHERE c.parent_id IS NULL AND <public category c/r> AND c.id NOT IN (<meta tree>)
 *   AND EXISTS (WITH RECURSIVE sub(id) AS (SELECT c.id UNION SELECT k.id FROM category k JOIN sub ON k.parent_id = sub.id)
 *               SELECT 1 FROM sub JOIN rsc x ON x.category_id = sub.id WHERE <listable x>)
 * ORDER BY c.id LIMIT 50
 * ```
 */
export async function publicTopCategories(
  db: Kysely<Database>,
  siteNoindex: boolean,
  language: string,
  siteDefault: string,
): Promise<TopCategoryRow[]> {
  if (siteNoindex) return [];
  const { rows } = await db.executeQuery(reusableTopCategories(db, { siteNoindex }));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    title: localize(row.title, language, siteDefault),
    summary: localize(row.summary, language, siteDefault),
  }));
}

/** The statement of {@link publicTopCategories}, built once (`reusableQuery`). */
const reusableTopCategories = reusableQuery((db: Kysely<Database>, { siteNoindex }: { siteNoindex: boolean }) => {
  // Per top category, the first listable resource of its subtree (through the category index) is
  // enough: the search stops there instead of joining every resource of the site to the tree.
  const hasListable = sql<SqlBool>`EXISTS (WITH RECURSIVE sub(id) AS (
      SELECT c.id
      UNION
      SELECT k.id FROM category k JOIN sub ON k.parent_id = sub.id
    ) SELECT 1 FROM sub JOIN rsc x ON x.category_id = sub.id WHERE ${listable(siteNoindex, 'x')})`;
  return db
    .selectFrom('category as c')
    .innerJoin('rsc as r', 'r.id', 'c.id')
    .select(['c.id', 'r.name', 'r.title', 'r.summary'])
    .where('c.parent_id', 'is', null)
    .where(publicCategory(siteNoindex, 'r', 'c'))
    .where(notInIdSet('c.id', metaCategoryIds()))
    .where(hasListable)
    .orderBy('c.id')
    .limit(MAX_CATEGORIES);
});
