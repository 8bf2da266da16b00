import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import { localize } from './language.js';
import { anonymousVisible } from './visibility.js';

/** The columns a summary item needs, from `rsc as r` joined to its category resource `rsc as cat`. */
export const SUMMARY_COLUMNS = [
  'r.id',
  'r.name',
  'r.uri',
  'r.title',
  'r.summary',
  'r.language',
  'r.publication_start',
  'r.modified',
  'r.category_id',
  'r.page_url',
  'cat.id as category_public_id',
  'cat.name as category_name',
  'cat.title as category_title',
] as const;

/**
 * A summary row as Kysely infers it from SUMMARY_COLUMNS. The `category_*` columns are set only when
 * the category itself is anonymous-visible; a private category stays unnamed.
 */
export type SummaryRow = Awaited<ReturnType<ReturnType<typeof summaryRows>['executeTakeFirstOrThrow']>>;

/** The summary columns selected from {@link fromResourcesWithCategory} (the query behind `SummaryRow`). */
export const summaryRows = (db: Kysely<Database>) => fromResourcesWithCategory(db).select(SUMMARY_COLUMNS);

/**
 * `rsc as r` joined to its category's resource `cat` when that category is anonymous-visible (a
 * public resource in a private category must not reveal the category), ready for SUMMARY_COLUMNS.
 */
export function fromResourcesWithCategory(db: Kysely<Database>) {
  return db.selectFrom('rsc as r').leftJoin('rsc as cat', categoryOfResource);
}

/**
 * The join condition of `cat`, the category of the resource row `r` (a table or a subquery of its
 * columns), for a left join: the category only when it is anonymous-visible.
 *
 * ```sql
 * left join "rsc" as "cat" on "cat"."id" = "r"."category_id" and (<anonymous-visible cat>)
 * ```
 */
export function categoryOfResource<J extends { on(condition: Expression<SqlBool>): J }>(join: J): J {
  return join.on(sql<SqlBool>`${sql.ref('cat.id')} = ${sql.ref('r.category_id')}`).on(anonymousVisible('cat'));
}

/** The category reference of an item: null when the category is not public. */
export function categoryReference(row: Pick<SummaryRow, 'category_public_id' | 'category_name' | 'category_title'>, language: string, siteDefault: string) {
  return row.category_public_id === null
    ? null
    : { id: row.category_public_id, name: row.category_name, title: localize(row.category_title, language, siteDefault) };
}

export const toIso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();
