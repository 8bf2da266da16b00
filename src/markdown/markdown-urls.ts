/**
 * URLs in the converted Markdown: resolved against the document URL of the conversion under way,
 * only the allowed protocols kept, and escaped for a link destination or title.
 */

export const LINK_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:', 'mailto:', 'tel:']);
export const MEDIA_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:']);

/** The document URL relative references resolve against, for the duration of one synchronous conversion. */
let currentBase: URL | undefined;

/** Runs `convert` with `base` as the document URL (conversions are synchronous: one at a time per thread). */
export function withDocumentUrl<T>(base: URL, convert: () => T): T {
  const previous = currentBase;
  currentBase = base;
  try {
    return convert();
  } finally {
    currentBase = previous;
  }
}

/**
 * Resolves `raw` against the current document URL. `undefined` for a protocol that is not allowed
 * (`javascript:`, `data:`, …) or a reference that does not parse.
 *
 * ```ts
 * absoluteUrl('../a b', LINK_PROTOCOLS) // 'https://example.org/a%20b' on https://example.org/en/page
 * ```
 */
export function absoluteUrl(raw: string | null | undefined, protocols: ReadonlySet<string>): string | undefined {
  if (!raw) return undefined;
  try {
    // The WHATWG parser strips the whitespace and control characters browsers ignore (`java\nscript:`).
    const url = new URL(raw, currentBase);
    return protocols.has(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export const escapeDestination = (href: string): string =>
  href.replace(/[()\\ <>]/g, (c) => (c === ' ' ? '%20' : c === '<' ? '%3C' : c === '>' ? '%3E' : `\\${c}`));
export const escapeTitle = (title: string | null): string => (title ?? '').replace(/\s+/g, ' ').trim().replace(/["\\]/g, '\\$&');
export const escapeAlt = (alt: string | null): string => (alt ?? '').replace(/\s+/g, ' ').trim().replace(/[[\]\\<]/g, '\\$&');

/** `[text](href "title")`, the destination and title escaped (the text is Markdown already). */
export const markdownLink = (text: string, href: string, title?: string | null): string => {
  const t = escapeTitle(title ?? null);
  return `[${text}](${escapeDestination(href)}${t ? ` "${t}"` : ''})`;
};

/** The host of an absolute URL without a leading `www.`, as a link label. */
export const hostLabel = (href: string): string => {
  try {
    return new URL(href).hostname.replace(/^www\./, '');
  } catch {
    return href;
  }
};
