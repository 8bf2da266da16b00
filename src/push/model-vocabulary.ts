import { sql, type RawBuilder } from 'kysely';
import { namedCategoryTree } from '../content/visibility.js';

/**
 * The content model's own vocabulary, which `put` and `remove` never touch: the root `meta`, every
 * category (a resource in the tree of `category`) and every predicate (in the tree of `predicate`).
 * A category pushed with `vocabulary: true` (tags, authors) sits under `meta` as well, so the read
 * side keeps its resources out of search and lists; they are still content the push API writes.
 */

/**
 * Ids of the categories whose resources are the model's vocabulary.
 *
 * ```sql
 * (SELECT c.id FROM category c JOIN rsc n ON n.id = c.id WHERE n.name = 'meta'
 *  UNION ALL SELECT t.id FROM (…the tree of category…) t UNION ALL SELECT t.id FROM (…the tree of predicate…) t)
 * ```
 */
export function modelCategoryIds(): RawBuilder<number> {
  return sql<number>`(SELECT c.id FROM category c JOIN rsc n ON n.id = c.id WHERE n.name = 'meta'
    UNION ALL SELECT t.id FROM ${namedCategoryTree('category')} t
    UNION ALL SELECT t.id FROM ${namedCategoryTree('predicate')} t)`;
}

/** The resource `alias` is a category, a predicate or a root of the vocabulary. */
export function isModelVocabulary(alias: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(`${alias}.category_id`)} IN ${modelCategoryIds()}`;
}
