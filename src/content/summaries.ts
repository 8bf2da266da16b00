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

const MS_PER_DAY = 86_400_000;
/** 0001-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: between them `toISOString` writes four year digits. */
const FOUR_DIGIT_YEARS_FROM = -62_135_596_800_000;
const FOUR_DIGIT_YEARS_UNTIL = 253_402_300_800_000;
const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * A date as `toISOString` writes it (`2026-11-30T08:15:00.000Z`). A list item carries two, so the
 * common case (a year from 1 to 9999) is worked out with integer arithmetic (the civil-from-days
 * algorithm), about a tenth of the cost of the built-in; any other date, and an invalid one (which
 * throws), goes through `toISOString`.
 */
export function toIso(d: Date | string): string {
  const date = d instanceof Date ? d : new Date(d);
  const t = date.getTime();
  if (!(t >= FOUR_DIGIT_YEARS_FROM && t < FOUR_DIGIT_YEARS_UNTIL)) return date.toISOString();
  const days = Math.floor(t / MS_PER_DAY);
  let ms = t - days * MS_PER_DAY;
  const hours = Math.floor(ms / 3_600_000);
  ms -= hours * 3_600_000;
  const minutes = Math.floor(ms / 60_000);
  ms -= minutes * 60_000;
  const seconds = Math.floor(ms / 1000);
  ms -= seconds * 1000;
  // Days since 1970-01-01 to a proleptic Gregorian year, month and day (H. Hinnant's civil_from_days).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const y = year < 1000 ? `000${year}`.slice(-4) : `${year}`;
  return `${y}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${three(ms)}Z`;
}
