import type { LocalizedText } from '../db/schema.js';
import type { PageUrlInput } from '../agent-options.js';

/**
 * A page URL the plugin will cite (stored in `page_url`, or pushed): a root-relative path or an
 * absolute http(s) URL, without spaces or control characters.
 */
export const PAGE_URL_PATTERN = /^(?:\/(?!\/)|https?:\/\/)[^\s\p{Cc}]*$/u;

/** A page URL is at most this long, as any URL the plugin advertises. */
export const MAX_PAGE_URL_LENGTH = 2048;

/**
 * The CMS's own page of a resource in `language`, from the contract's optional `page_url` column: one
 * string for every language, or that language's entry of a `{language: url}` map (never another
 * language's). Undefined when there is none or it is not a usable path or http(s) URL (stored data
 * is not trusted).
 */
function storedPageUrl(value: LocalizedText | null | undefined, language: string): string | undefined {
  const url = typeof value === 'string' ? value : value && typeof value === 'object' ? value[language] : undefined;
  return typeof url === 'string' && url.length <= MAX_PAGE_URL_LENGTH && PAGE_URL_PATTERN.test(url) ? url : undefined;
}

/**
 * A resource's page URL in `language` (relative or absolute, as given): the stored `page_url` when
 * the content supplies one, else the `pageUrl` option's builder. Every citation (reads, list items,
 * front matter, page URLs of other languages) comes from here.
 */
export function pageUrlOf(
  build: (r: PageUrlInput) => string,
  r: { id: number; name: string | null; page_url?: LocalizedText | null },
  language: string,
  category: string | null,
): string {
  return storedPageUrl(r.page_url, language) ?? build({ id: r.id, name: r.name, language, category });
}

export { isPageUrlRef, pagePathKey } from '../page-url-forms.js';

/**
 * The ids and names a page URL can carry, as text: its decoded path segments, last first, then its
 * `id` query parameter. A URL points at a resource when one of them is the resource's id or name.
 */
export function pageUrlSegments(url: URL): string[] {
  const segments = url.pathname.split('/').filter(Boolean).map(safeDecode).reverse();
  const id = url.searchParams.get('id');
  return id === null ? segments : [...segments, id];
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
