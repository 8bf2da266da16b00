import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS, absoluteUrl, resolveOnBase } from '../http/paths.js';
import { boundText, MAX_ITEM_SUMMARY_CHARS, MAX_ITEM_TITLE_CHARS } from './display-text.js';
import { advertisedLanguage, chooseLanguage, localize, type LanguageFields } from './language.js';
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

/** What every URL in an item is built from. */
export interface ItemContext {
  base: string;
  options: ResolvedOptions;
  requestedLanguage: string;
}

/**
 * `rsc as r` joined to its category's resource `cat` when that category is anonymous-visible (a
 * public resource in a private category must not reveal the category), ready for SUMMARY_COLUMNS.
 */
export function fromResourcesWithCategory(db: Kysely<Database>) {
  return db
    .selectFrom('rsc as r')
    .leftJoin('rsc as cat', (join) => join.onRef('cat.id', '=', 'r.category_id').on(anonymousVisible('cat')));
}

/** The category reference of an item: null when the category is not public. */
export function categoryReference(row: Pick<SummaryRow, 'category_public_id' | 'category_name' | 'category_title'>, language: string, siteDefault: string) {
  return row.category_public_id === null
    ? null
    : { id: row.category_public_id, name: row.category_name, title: localize(row.category_title, language, siteDefault) };
}

export const toIso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();

/** The entity identifier: the stored `uri`, else `<base>/id/<id>`. */
export function entityUri(base: string, id: number, uri: string | null): string {
  return uri ?? absoluteUrl(base, PATHS.entity(id));
}

/** The human page URL of a resource in a language, from the host's builder, made absolute. */
export function pageUrl(ic: ItemContext, r: { id: number; name: string | null; category_name: string | null }, language: string): string {
  return resolveOnBase(ic.base, ic.options.pageUrl({ id: r.id, name: r.name, language, category: r.category_name }));
}

/**
 * A search/related item: localized summary with language fields and its JSON and Markdown URLs. Its
 * title (and its category's) is bounded to 512 characters and its summary to 2,048, so one oversized
 * resource cannot push every page that lists it over the body size bound; the read has the full text.
 */
export function summaryItem(ic: ItemContext, row: SummaryRow) {
  const lang: LanguageFields = chooseLanguage(row.language, ic.requestedLanguage, ic.options.defaultLanguage);
  const l = lang.language;
  const category = categoryReference(row, l, ic.options.defaultLanguage);
  const langQuery = { language: advertisedLanguage(lang, ic.options.languages) };
  return {
    id: row.id,
    uri: entityUri(ic.base, row.id, row.uri),
    title: boundText(localize(row.title, l, ic.options.defaultLanguage), MAX_ITEM_TITLE_CHARS),
    summary: boundText(localize(row.summary, l, ic.options.defaultLanguage), MAX_ITEM_SUMMARY_CHARS),
    category: category && { ...category, title: boundText(category.title, MAX_ITEM_TITLE_CHARS) },
    page_url: pageUrl(ic, row, l),
    json_url: absoluteUrl(ic.base, PATHS.resource(row.id), langQuery),
    markdown_url: absoluteUrl(ic.base, PATHS.markdown(row.id), langQuery),
    publication_start: toIso(row.publication_start),
    modified: toIso(row.modified),
    ...lang,
  };
}
