import type { LocalizedText } from '../db/schema.js';
import { ContentPushError } from './push-error.js';

/**
 * From the push API's localized text (one string for all languages, or `{ language: text }`) to the
 * per-language maps the `rsc` columns hold, and the resource's language list that goes with them.
 */

type Localized = LocalizedText | null | undefined;

/**
 * The resource's languages: `language` when given, else the languages of the per-language fields in
 * order (title first), else the site's default language. With `language` given, a per-language field
 * may only use those languages.
 *
 * ```ts
 * resourceLanguages('put', undefined, { title: { nl: 'Haven', en: 'Harbour' }, body: 'x' }, 'en') // ['nl', 'en']
 * ```
 */
export function resourceLanguages(
  call: string,
  language: readonly string[] | undefined,
  fields: Record<string, Localized>,
  defaultLanguage: string,
): string[] {
  const found = new Set<string>();
  for (const [field, value] of Object.entries(fields)) {
    if (!value || typeof value === 'string') continue;
    for (const code of Object.keys(value)) {
      if (language && !language.includes(code)) {
        throw new ContentPushError(call, 'invalid_input', `${field}.${code}`, `language ${code} is not one of language (${language.join(', ')})`);
      }
      found.add(code);
    }
  }
  if (language) return [...new Set(language)];
  return found.size ? [...found] : [defaultLanguage];
}

/** A localized value as the column's map: a string stands for every language of the resource. */
export function languageMap(value: Localized, languages: readonly string[]): Record<string, string> {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'string') return { ...value };
  return Object.fromEntries(languages.map((code) => [code, value]));
}

/** A JSON column's value as the driver takes it (arrays would otherwise be sent as PostgreSQL arrays). */
export function jsonValue(value: unknown): string {
  return JSON.stringify(value);
}

/** A nullable JSON column (license, attribution, page_url): null stays SQL null. */
export function nullableJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
