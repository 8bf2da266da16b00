import { z } from 'zod';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { sitemapParts, sitemapRows, type SitemapRow } from '../content/sitemap-pages.js';
import { notFound } from '../http/errors.js';
import { integerParam } from '../http/parameters.js';
import { DISCOVERY_DOCUMENT, routeDefiner } from '../http/route.js';
import { absoluteUrl, resolveOnBase } from '../http/urls.js';
import { effectiveOptions } from '../settings/effective-settings.js';
import { buildSitemapIndex, buildUrlset, pageVersions, resourcesPerPart, type SitemapEntry } from './sitemap.js';

const discoveryRoute = routeDefiner<AgentContext>();

/** The media type of the sitemap files. */
export const SITEMAP_CONTENT_TYPE = 'application/xml; charset=utf-8';

/** A resource as the sitemap lists it: its language versions, and when it last changed. */
const entryOf = (options: ResolvedOptions, base: string, row: SitemapRow): SitemapEntry => ({ versions: pageVersions(options, base, row), lastmod: row.lastmod });

/** `from` of a part path: the id its resources start at. */
const partPath = z.object({ from: integerParam(1, Number.MAX_SAFE_INTEGER) });

/**
 * `GET /sitemap.xml` and `GET /sitemaps/{from}.xml` (with the `sitemap` option): the home page and the
 * listable resources (search's rule, the site's noindex setting in force) in one `urlset` when they
 * fit in one file (`maxUrls` URLs, 50 MB), else a `sitemapindex` of parts, each the resources from
 * its first id on (a keyset walk of the primary key), the home page in the first.
 */
/** The latest of some dates (undefined for none). */
const newest = (dates: readonly Date[]): Date | undefined => (dates.length ? new Date(Math.max(...dates.map((d) => d.getTime()))) : undefined);

export function sitemapRoutes(maxUrls: number) {
  const perPart = (options: ResolvedOptions) => resourcesPerPart(maxUrls, options.languages.length);
  const index = discoveryRoute({
    path: PATHS.sitemap,
    params: undefined,
    query: undefined,
    response: { kind: 'text', contentType: SITEMAP_CONTENT_TYPE },
    policy: DISCOVERY_DOCUMENT,
    async handler({ ctx, call }) {
      const options = await effectiveOptions(ctx);
      const per = perPart(options);
      const rows = await sitemapRows(ctx.db, options.noindex, 0, per + 1);
      if (rows.length <= per) {
        const entries = rows.map((row) => entryOf(options, call.base, row));
        return { body: buildUrlset(entries, { loc: absoluteUrl(call.base, '/'), lastmod: newest(entries.map((e) => e.lastmod)) }) };
      }
      const parts = await sitemapParts(ctx.db, options.noindex, per);
      return { body: buildSitemapIndex(parts.map((p) => ({ loc: absoluteUrl(call.base, PATHS.sitemapPart.url({ from: p.from })), lastmod: p.lastmod }))) };
    },
  });
  const part = discoveryRoute({
    path: PATHS.sitemapPart,
    params: partPath,
    query: undefined,
    response: { kind: 'text', contentType: SITEMAP_CONTENT_TYPE },
    policy: DISCOVERY_DOCUMENT,
    async handler({ ctx, call, params }) {
      const options = await effectiveOptions(ctx);
      const rows = await sitemapRows(ctx.db, options.noindex, params.from, perPart(options));
      // Only a part the index names: its first resource is the one it starts at.
      if (rows[0]?.id !== params.from) throw notFound('sitemap part');
      const first = (await sitemapRows(ctx.db, options.noindex, 0, 1))[0]?.id === params.from;
      const home = first ? { loc: absoluteUrl(call.base, '/'), lastmod: newest((await sitemapParts(ctx.db, options.noindex, perPart(options))).map((p) => p.lastmod)) } : undefined;
      return { body: buildUrlset(rows.map((row) => entryOf(options, call.base, row)), home) };
    },
  });
  return [index, part];
}
