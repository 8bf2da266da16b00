import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { boundText, MAX_ITEM_SUMMARY_CHARS, MAX_ITEM_TITLE_CHARS } from '../content/display-text.js';
import { advertisedLanguage, chooseLanguage, localize, type LanguageFields } from '../content/language.js';
import { categoryReference, toIso, type SummaryRow } from '../content/summaries.js';
import { absoluteUrl, resolveOnBase } from '../http/urls.js';
import { pageUrlOf } from '../content/page-url.js';
import type { LocalizedText } from '../db/schema.js';

/** What every URL in an item is built from. */
export interface ItemContext {
  base: string;
  options: ResolvedOptions;
  requestedLanguage: string;
}

/** The entity identifier: the stored `uri`, else `<base>/id/<id>`. */
export function entityUri(base: string, id: number, uri: string | null): string {
  return uri ?? absoluteUrl(base, PATHS.entity.url({ id }));
}

/** The human page URL of a resource in a language, from the host's builder, made absolute. */
export function itemPageUrl(
  ic: ItemContext,
  r: { id: number; name: string | null; category_name: string | null; page_url?: LocalizedText | null },
  language: string,
): string {
  return resolveOnBase(ic.base, pageUrlOf(ic.options.pageUrl, r, language, r.category_name));
}

/**
 * A search/related item: localized summary with language fields and its JSON and Markdown URLs. Its
 * title (and its category's) is bounded to 512 characters and its summary to 2,048, so one oversized
 * resource cannot push every page that lists it over the body size bound; the read has the full text.
 */
export function summaryItem(ic: ItemContext, row: SummaryRow) {
  const { options } = ic;
  const lang: LanguageFields = chooseLanguage(row.language, ic.requestedLanguage, options.defaultLanguage);
  const l = lang.language;
  const category = categoryReference(row, l, options.defaultLanguage);
  const langQuery = { language: advertisedLanguage(lang, options.languages) };
  // Built field by field in the result schema's order (no spread: this runs for every item of a page).
  return {
    id: row.id,
    uri: entityUri(ic.base, row.id, row.uri),
    title: boundText(localize(row.title, l, options.defaultLanguage), MAX_ITEM_TITLE_CHARS),
    summary: boundText(localize(row.summary, l, options.defaultLanguage), MAX_ITEM_SUMMARY_CHARS),
    category: category && { id: category.id, name: category.name, title: boundText(category.title, MAX_ITEM_TITLE_CHARS) },
    page_url: itemPageUrl(ic, row, l),
    json_url: absoluteUrl(ic.base, PATHS.resource.url({ id: row.id }), langQuery),
    markdown_url: absoluteUrl(ic.base, PATHS.markdown.url({ id: row.id }), langQuery),
    publication_start: toIso(row.publication_start),
    modified: toIso(row.modified),
    requested_language: lang.requested_language,
    language: l,
    available_languages: lang.available_languages,
    is_fallback: lang.is_fallback,
  };
}
