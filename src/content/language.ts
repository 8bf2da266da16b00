import type { LocalizedText } from '../db/schema.js';

/**
 * A well-formed language tag, BCP 47-ish: a two- or three-letter primary language, then subtags of
 * one to eight letters or digits (`en`, `pt-BR`, `zh-Hant-TW`, `de-CH-1996`), at most 35 characters.
 * The one grammar for configured languages and for codes read from the database.
 */
const LANGUAGE_TAG = /^[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{1,8})*$/;
const MAX_LANGUAGE_TAG_LENGTH = 35;

/** Whether a value is a well-formed language tag (see LANGUAGE_TAG). */
export function isLanguageTag(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_LANGUAGE_TAG_LENGTH && LANGUAGE_TAG.test(value);
}

/**
 * The language codes of a stored resource that may reach a header, URL or template: stored data is
 * not trusted, so anything that is not a well-formed language tag (`{中文}`, a CRLF, a null) is
 * skipped, and a repeated code is kept once.
 *
 * ```ts
 * storedLanguages(['nl', 'en\r\nX-Evil: 1', null, 'nl', 'en']) // ['nl', 'en']
 * ```
 */
export function storedLanguages(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  // A list item reads this for every row: a short list is filtered in place of a Set and two arrays.
  const kept: string[] = [];
  for (const code of value) if (isLanguageTag(code) && !kept.includes(code)) kept.push(code);
  return kept;
}

/** The language fields every resource in a response carries. */
export interface LanguageFields {
  requested_language: string;
  language: string;
  available_languages: string[];
  is_fallback: boolean;
}

/**
 * Chooses the language to present a resource in: the requested one when the resource has it, else
 * the site default, else the resource's own first language. The stored list is filtered through
 * `storedLanguages` first.
 *
 * ```ts
 * chooseLanguage(['nl'], 'en', 'en') // { requested_language: 'en', language: 'nl', available_languages: ['nl'], is_fallback: true }
 * ```
 */
export function chooseLanguage(stored: unknown, requested: string, siteDefault: string): LanguageFields {
  const available = storedLanguages(stored);
  const language = available.includes(requested)
    ? requested
    : available.includes(siteDefault)
      ? siteDefault
      : (available[0] ?? requested);
  return { requested_language: requested, language, available_languages: available, is_fallback: language !== requested };
}

/**
 * The `language` query parameter of a URL the plugin advertises for a resource (`json_url`,
 * `markdown_url`, links): the language actually used when it is one of the site's languages, else the
 * requested language, which the facade accepts and which falls back to the same language again.
 *
 * ```ts
 * advertisedLanguage(chooseLanguage(['de'], 'nl', 'en'), ['en', 'nl']) // 'nl' (the read answers in 'de')
 * ```
 */
export function advertisedLanguage(lang: LanguageFields, siteLanguages: readonly string[]): string {
  return siteLanguages.includes(lang.language) ? lang.language : lang.requested_language;
}

/**
 * The text of a localized value in `language`, falling back the same way (site default, then any
 * language present). A plain string is the same in every language; anything stored that is not
 * text counts as empty.
 */
export function localize(value: LocalizedText | null | undefined, language: string, siteDefault?: string): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || Array.isArray(value)) return '';
  return textOf(value[language]) ?? (siteDefault !== undefined ? textOf(value[siteDefault]) : undefined) ?? Object.values(value).map(textOf).find((v) => v !== undefined) ?? '';
}

const textOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
