import type { Request, RequestHandler } from 'express';
import type { Kysely } from 'kysely';
import { anonymousVisible, indexable, type Database } from '../src/index.js';

/** The sitemaps protocol's limit of URLs in one file. */
export const MAX_SITEMAP_URLS = 50_000;

export interface SitemapOptions {
  db: Kysely<Database>;
  /** The site's languages: a page is listed in each of its languages that the site serves. */
  languages: readonly string[];
  defaultLanguage: string;
  /** The site's noindex setting now (the plugin's effective settings: `async () => (await agent.settings()).noindex`). */
  siteNoindex: () => Promise<boolean>;
  /** The public origin of a request (`agent.baseUrl`: the configured base URL, else the validated `Host`); undefined when unusable. */
  publicOrigin: (req: Request) => string | undefined;
  /** The human page path of a resource in a language. */
  pagePath: (id: number, language: string) => string;
}

const escapeXml = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/**
 * `GET /sitemap.xml`: the home page and every public page, that is every resource that is
 * anonymous-visible and indexable (the plugin's two rules, from the package entry), once per language
 * it has (among the site's languages; the site default when it has none of them), with its last
 * modification and, for a page in several languages, each version as an `xhtml:link` alternate.
 *
 * ```sql
 * select "id", "language", "modified" from "rsc" as "r" where (<anonymous-visible>) and (<indexable>)
 * order by "id" limit 49999
 * ```
 */
export function createSitemapRoute(o: SitemapOptions): RequestHandler {
  return async function sitemap(req: Request, res, next) {
    try {
      const base = o.publicOrigin(req);
      if (!base) return res.status(400).type('text').send('Bad request');
      const rows = await o.db
        .selectFrom('rsc as r')
        .select(['r.id', 'r.language', 'r.modified'])
        .where(anonymousVisible('r'))
        .where(indexable(await o.siteNoindex(), 'r'))
        .orderBy('r.id')
        .limit(MAX_SITEMAP_URLS - 1)
        .execute();
      const urls = [`  <url><loc>${escapeXml(`${base}/`)}</loc></url>`];
      for (const row of rows) {
        const own = (Array.isArray(row.language) ? row.language : []).filter((l) => o.languages.includes(l));
        const lastmod = new Date(row.modified).toISOString();
        const versions = own.length ? own : [o.defaultLanguage];
        // Every language version names all of them (itself included), as hreflang alternates.
        const alternates =
          versions.length > 1
            ? versions.map((l) => `<xhtml:link rel="alternate" hreflang="${escapeXml(l)}" href="${escapeXml(base + o.pagePath(row.id, l))}"/>`).join('')
            : '';
        for (const language of versions) {
          if (urls.length >= MAX_SITEMAP_URLS) break;
          urls.push(`  <url><loc>${escapeXml(base + o.pagePath(row.id, language))}</loc><lastmod>${lastmod}</lastmod>${alternates}</url>`);
        }
      }
      const body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n${urls.join('\n')}\n</urlset>\n`;
      res.type('application/xml').set('Cache-Control', 'no-cache').send(body);
    } catch (error) {
      next(error);
    }
  };
}
