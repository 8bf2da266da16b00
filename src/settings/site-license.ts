/**
 * The site's licence and copyright: the terms of all its content unless a resource gives a licence of
 * its own. Set by the `siteLicense` and `siteCopyright` options and the settings of the same names;
 * published in llms.txt, the MCP server card and the front matter of the Markdown reads.
 */

/** The licence of the site's content: its name (`CC BY 4.0`), a link to its text, or both. */
export interface SiteLicense {
  readonly name?: string;
  readonly url?: string;
}

/** The site's terms as the options in force carry them. */
export interface SiteTerms {
  readonly siteLicense?: SiteLicense | undefined;
  readonly siteCopyright?: string | undefined;
}

export const SITE_LICENSE_NAME_MAX = 200;
export const SITE_LICENSE_URL_MAX = 1500;
/** The setting's text: a name, a space, a link. */
export const SITE_LICENSE_TEXT_MAX = 2000;
export const SITE_COPYRIGHT_MAX = 300;

/** Line breaks and other control characters: a name or copyright line is one line of plain text. */
export const CONTROL_OR_BREAK = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;

/** An absolute http or https URL without spaces (a query or fragment is allowed). */
export const isHttpUrl = (s: string): boolean => !/\s/.test(s) && URL.canParse(s) && /^https?:$/.test(new URL(s).protocol);

/** Looks like a link: a name must not hold one (the text form puts the link last). */
const LINKISH = /:\/\//;

/**
 * The site licence written as one line, as the admin form edits it: `CC BY 4.0
 * https://creativecommons.org/licenses/by/4.0/`, a name alone or a link alone. The link comes last
 * (bare, or in `<…>` or `(…)`); empty is none. The same checks as the `siteLicense` option.
 *
 * ```ts
 * parseSiteLicense('CC BY 4.0 <https://creativecommons.org/licenses/by/4.0/>')
 * // { ok: true, license: { name: 'CC BY 4.0', url: 'https://creativecommons.org/licenses/by/4.0/' } }
 * ```
 */
export function parseSiteLicense(text: string): { ok: true; license: SiteLicense | undefined } | { ok: false; message: string } {
  const line = text.trim();
  if (!line) return { ok: true, license: undefined };
  if (CONTROL_OR_BREAK.test(line)) return { ok: false, message: 'Site licence must be one line, without control characters' };
  const words = line.split(/\s+/);
  const last = words[words.length - 1]!.replace(/^<(.*)>$|^\((.*)\)$/, '$1$2');
  const url = LINKISH.test(last) ? last : undefined;
  const name = (url ? words.slice(0, -1) : words).join(' ');
  if (url !== undefined && !isHttpUrl(url)) return { ok: false, message: `Site licence: the link must be an http or https URL (got ${url.slice(0, 100)})` };
  if (url !== undefined && url.length > SITE_LICENSE_URL_MAX) return { ok: false, message: `Site licence: the link must be at most ${SITE_LICENSE_URL_MAX} characters` };
  if (LINKISH.test(name)) return { ok: false, message: 'Site licence: write the name first and the link last (one link)' };
  if (name.length > SITE_LICENSE_NAME_MAX) return { ok: false, message: `Site licence: the name must be at most ${SITE_LICENSE_NAME_MAX} characters (got ${name.length})` };
  return { ok: true, license: Object.freeze({ ...(name ? { name } : {}), ...(url ? { url } : {}) }) };
}

/** The licence as the one line {@link parseSiteLicense} reads back: name, then link. */
export function formatSiteLicense(license: SiteLicense): string {
  return [license.name, license.url].filter(Boolean).join(' ');
}

/** What a resource's front matter says of its terms. */
export interface CitationTerms {
  license?: string;
  /** The link of the site licence, when it applies and has one. */
  license_url?: string;
  attribution?: string;
  copyright?: string;
}

/**
 * A resource's terms: its own licence wins, and then the site's licence and copyright are left out
 * (they are the site's "unless stated otherwise"); without one, the site's licence (its name, else its
 * link) and copyright apply. The resource's attribution is kept either way.
 *
 * ```ts
 * citationTerms({ license: '', attribution: 'Photo: J. Doe' }, { siteLicense: { name: 'CC BY 4.0' }, siteCopyright: '© 2026 Example Press' })
 * // { license: 'CC BY 4.0', attribution: 'Photo: J. Doe', copyright: '© 2026 Example Press' }
 * ```
 */
export function citationTerms(own: { license: string; attribution: string }, site: SiteTerms): CitationTerms {
  const attribution = own.attribution ? { attribution: own.attribution } : {};
  if (own.license) return { license: own.license, ...attribution };
  const l = site.siteLicense;
  return {
    ...(l ? { license: (l.name ?? l.url)!, ...(l.url ? { license_url: l.url } : {}) } : {}),
    ...attribution,
    ...(site.siteCopyright ? { copyright: site.siteCopyright } : {}),
  };
}
