import { isLanguageTag, storedLanguages } from '../content/language.js';
import { pageUrlOf } from '../content/page-url.js';
import { toIso } from '../content/summaries.js';
import type { LocalizedText } from '../db/schema.js';
import { resolveOnBase } from '../http/urls.js';
import type { ResolvedOptions } from '../options.js';

/** The sitemaps protocol's bound of one file's size, uncompressed. */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;
/** A page URL longer than this (escaped) is left out of the sitemap: it keeps the byte bound of a part computable. */
export const MAX_LOC_CHARS = 1000;
/** The bytes of a `<url>` around its `loc`, and of an `xhtml:link` around its `href`, at most. */
const URL_OVERHEAD = 120;
const LINK_OVERHEAD = 120;

const XMLNS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
const XHTML = 'xmlns:xhtml="http://www.w3.org/1999/xhtml"';

/** Text for an XML attribute or element. */
export const escapeXml = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/**
 * How many resources one sitemap file holds: at most `maxUrls` URLs with the home page (a resource is
 * one URL per language, `languages` of the site at most) and at most 50 MB when every URL is as long as
 * `MAX_LOC_CHARS` allows.
 *
 * ```ts
 * resourcesPerPart(50_000, 1) // 46_811 (the byte bound: 50 MB / (1,000 + 120) bytes)
 * resourcesPerPart(50_000, 2) // 7_801
 * resourcesPerPart(100, 2)    // 49
 * ```
 */
export function resourcesPerPart(maxUrls: number, languages: number): number {
  const perUrl = URL_OVERHEAD + MAX_LOC_CHARS + (languages > 1 ? languages * (LINK_OVERHEAD + MAX_LOC_CHARS) : 0);
  return Math.max(1, Math.min(Math.floor((maxUrls - 1) / languages), Math.floor(MAX_SITEMAP_BYTES / (languages * perUrl))));
}

/** One resource in the sitemap: its page in each of its languages, and when it last changed. */
export interface SitemapEntry {
  versions: { language: string; url: string }[];
  lastmod: Date;
}

/**
 * A `urlset`: the home page (when given, with the newest public change as its `lastmod`) and each version of each entry as a `<url>` with the full
 * date-time `lastmod` and, for a page in several languages, every version (itself included) as an
 * `xhtml:link` hreflang alternate, so the alternates are reciprocal.
 *
 * ```xml
 * <url><loc>https://example.org/en/page/7</loc><lastmod>2026-12-02T09:14:03.512Z</lastmod>
 *   <xhtml:link rel="alternate" hreflang="en" href="https://example.org/en/page/7"/>
 *   <xhtml:link rel="alternate" hreflang="nl" href="https://example.org/nl/page/7"/></url>
 * ```
 */
export function buildUrlset(entries: readonly SitemapEntry[], home?: { readonly loc: string; readonly lastmod: Date | undefined }): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<urlset ${XMLNS} ${XHTML}>`];
  // The home page changes whenever a public page does: its lastmod is the newest public change.
  if (home !== undefined) lines.push(`<url><loc>${escapeXml(home.loc)}</loc>${home.lastmod ? `<lastmod>${toIso(home.lastmod)}</lastmod>` : ''}</url>`);
  for (const entry of entries) {
    const lastmod = `<lastmod>${toIso(entry.lastmod)}</lastmod>`;
    const alternates =
      entry.versions.length > 1
        ? entry.versions.map((v) => `<xhtml:link rel="alternate" hreflang="${escapeXml(v.language)}" href="${escapeXml(v.url)}"/>`).join('')
        : '';
    for (const version of entry.versions) lines.push(`<url><loc>${escapeXml(version.url)}</loc>${lastmod}${alternates}</url>`);
  }
  lines.push('</urlset>', '');
  return lines.join('\n');
}

/** A `sitemapindex` of the parts, each with the latest `lastmod` of its pages. */
export function buildSitemapIndex(parts: readonly { loc: string; lastmod: Date }[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<sitemapindex ${XMLNS}>`,
    ...parts.map((p) => `<sitemap><loc>${escapeXml(p.loc)}</loc><lastmod>${toIso(p.lastmod)}</lastmod></sitemap>`),
    '</sitemapindex>',
    '',
  ].join('\n');
}

/** What a resource's page URLs are built from. */
export interface PageVersionRow {
  id: number;
  name: string | null;
  language: unknown;
  page_url: unknown;
  category_name: string | null;
}

/**
 * A resource's page in each of its languages the site serves (the site's default when it has none of
 * them), from the stored `page_url` or the `pageUrl` option, made absolute on `base`; a URL on another
 * origin (a sitemap or an IndexNow submission names its own host's pages only), longer than
 * `MAX_LOC_CHARS` escaped, or the same as another language's is left out.
 */
export function pageVersions(options: ResolvedOptions, base: string, row: PageVersionRow): { language: string; url: string }[] {
  const origin = new URL(base).origin;
  const own = storedLanguages(row.language).filter((l) => isLanguageTag(l) && options.languages.includes(l));
  const seen = new Set<string>();
  const versions: { language: string; url: string }[] = [];
  for (const language of own.length ? own : [options.defaultLanguage]) {
    const url = resolveOnBase(base, pageUrlOf(options.pageUrl, { ...row, page_url: row.page_url as LocalizedText | null }, language, row.category_name));
    if (seen.has(url) || !url.startsWith(`${origin}/`) || escapeXml(url).length > MAX_LOC_CHARS) continue;
    seen.add(url);
    versions.push({ language, url });
  }
  return versions;
}
