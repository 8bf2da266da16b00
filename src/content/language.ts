import type { LocalizedText } from '../db/schema.js';

/** The language fields every resource in a response carries. */
export interface LanguageFields {
  requested_language: string;
  language: string;
  available_languages: string[];
  is_fallback: boolean;
}

/**
 * Chooses the language to present a resource in: the requested one when the resource has it, else
 * the site default, else the resource's own first language.
 *
 * ```ts
 * chooseLanguage(['nl'], 'en', 'en') // { requested_language: 'en', language: 'nl', available_languages: ['nl'], is_fallback: true }
 * ```
 */
export function chooseLanguage(available: readonly string[], requested: string, siteDefault: string): LanguageFields {
  const language = available.includes(requested)
    ? requested
    : available.includes(siteDefault)
      ? siteDefault
      : (available[0] ?? requested);
  return { requested_language: requested, language, available_languages: [...available], is_fallback: language !== requested };
}

/**
 * The text of a localized value in `language`, falling back the same way (site default, then any
 * language present). A plain string is the same in every language.
 */
export function localize(value: LocalizedText | null | undefined, language: string, siteDefault?: string): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return value[language] ?? (siteDefault !== undefined ? value[siteDefault] : undefined) ?? Object.values(value)[0] ?? '';
}
