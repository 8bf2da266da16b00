/**
 * The recipe's id scheme: several Directus collections in one `rsc`, whose ids must be unique
 * integers of at most 2^53 − 1 (the contract's range, exact in JavaScript).
 *
 * - An item of the collection numbered `k` (0 for the first collection served, 1 for the second, …;
 *   kept in `agent.collection` so a later run keeps them) has the id `k × 10^12 + <its primary key>`:
 *   the first collection's items keep their Directus ids (article 42 is resource 42), the second's
 *   start at 1 000 000 000 000 (author 3 is resource 1000000000003).
 * - Primary keys must be integers from 1 to 10^12 − 1; an item outside that range is not served.
 * - The vocabulary (the `meta`, `category` and `predicate` roots, a category per collection, a
 *   predicate per relation field) lives above every collection, from 9 000 000 000 000 000.
 *
 * ```ts
 * resourceId(1, 3) // 1000000000003
 * ```
 */
export const ITEM_SPAN = 1_000_000_000_000;

/** At most this many collections (their blocks stay below the vocabulary's). */
export const MAX_COLLECTIONS = 9000;

/** The first id of the vocabulary's block. */
export const VOCABULARY_BASE = 9_000_000_000_000_000;

/** The vocabulary's fixed entries. */
export const VOCABULARY = {
  meta: VOCABULARY_BASE + 1,
  category: VOCABULARY_BASE + 2,
  predicate: VOCABULARY_BASE + 3,
} as const;

/** The resource id of the category of the collection numbered `k`. */
export const categoryId = (k: number): number => VOCABULARY_BASE + 100 + k;

/** The resource id of the predicate numbered `n`. */
export const predicateId = (n: number): number => VOCABULARY_BASE + 100_000 + n;

/** The resource id of item `item` of the collection numbered `k`. */
export const resourceId = (k: number, item: number): number => k * ITEM_SPAN + item;
