import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { anonymousVisible, indexable, inIdSet, namedCategoryTree, publicCategory, type SiteNoindex } from './visibility.js';

/**
 * The public vocabulary (the schema read): categories and predicates that are anonymous-visible
 * and indexable. A category is public vocabulary when its resource is visible and indexable and the
 * category is not noindex itself or below a noindex category.
 */

const VOCAB_COLUMNS = ['r.id', 'r.name', 'r.uri', 'r.title', 'r.summary', 'r.language'] as const;

/** Public categories ordered by id, after `afterId`, with their parent when that is public too. */
export async function categoryPage(
  db: Kysely<Database>,
  q: { siteNoindex: SiteNoindex; afterId?: number; offset: number; limit: number },
) {
  return db
    .selectFrom('category as c')
    .innerJoin('rsc as r', 'r.id', 'c.id')
    .leftJoin('category as pc', 'pc.id', 'c.parent_id')
    .leftJoin('rsc as p', (join) => join.onRef('p.id', '=', 'pc.id').on(publicCategory(q.siteNoindex, 'p', 'pc')))
    .select(VOCAB_COLUMNS)
    .select(['p.id as parent_id', 'p.name as parent_name', 'p.title as parent_title'])
    .where(publicCategory(q.siteNoindex, 'r', 'c'))
    .$if(q.afterId !== undefined, (qb) => qb.where('c.id', '>', q.afterId!))
    .orderBy('c.id', 'asc')
    .offset(q.offset)
    .limit(q.limit)
    .execute();
}

/** A row of {@link categoryPage}, as Kysely infers it. */
export type CategoryRow = Awaited<ReturnType<typeof categoryPage>>[number];

/** Public predicates (resources in the `predicate` category tree) ordered by id, after `afterId`. */
export async function predicatePage(
  db: Kysely<Database>,
  q: { siteNoindex: SiteNoindex; afterId?: number; offset: number; limit: number },
) {
  return db
    .selectFrom('rsc as r')
    .select(VOCAB_COLUMNS)
    .where(inIdSet('r.category_id', namedCategoryTree('predicate')))
    .where(anonymousVisible('r'))
    .where(indexable(q.siteNoindex, 'r'))
    .$if(q.afterId !== undefined, (qb) => qb.where('r.id', '>', q.afterId!))
    .orderBy('r.id', 'asc')
    .offset(q.offset)
    .limit(q.limit)
    .execute();
}

/** What categories and predicates share: a row of {@link predicatePage}, as Kysely infers it. */
export type VocabularyRow = Awaited<ReturnType<typeof predicatePage>>[number];

export interface ConstraintRow {
  predicate_id: number;
  is_subject: boolean;
  category_id: number;
  category_name: string | null;
  category_title: Record<string, string>;
}

/** Up to `perPredicate` public category constraints of each predicate (subject side first, then by id). */
export async function predicateConstraints(
  db: Kysely<Database>,
  predicateIds: number[],
  q: { siteNoindex: SiteNoindex; perPredicate: number },
): Promise<ConstraintRow[]> {
  if (!predicateIds.length) return [];
  const result = await sql<ConstraintRow>`
    SELECT predicate_id, is_subject, category_id, category_name, category_title FROM (
      SELECT pc.predicate_id, pc.is_subject, pc.category_id, r.name AS category_name, r.title AS category_title,
             row_number() OVER (PARTITION BY pc.predicate_id ORDER BY pc.is_subject DESC, pc.category_id) AS n
      FROM predicate_category pc
      JOIN category c ON c.id = pc.category_id
      JOIN rsc r ON r.id = c.id
      WHERE pc.predicate_id IN (${sql.join(predicateIds)}) AND ${publicCategory(q.siteNoindex, 'r', 'c')}
    ) ranked WHERE n <= ${q.perPredicate}
    ORDER BY predicate_id, is_subject DESC, category_id`.execute(db);
  return result.rows;
}
