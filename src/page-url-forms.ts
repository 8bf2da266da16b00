/**
 * The forms a page reference takes where an admin or the checker names a page of a site. A leaf
 * module: `content/page-url.ts` (the inspector) and `check/` (Verify's `--private`/`--noindex`, any
 * site) share it.
 */

/**
 * A reference given as a page URL rather than an id or name: an absolute http(s) URL or a
 * root-relative path (`/en/page/12`).
 */
export function isPageUrlRef(text: string): boolean {
  return /^https?:\/\//i.test(text) || text.startsWith('/');
}

/** What identifies a page: the origin and the path without trailing slashes (query and fragment ignored). */
export function pagePathKey(url: URL): string {
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
