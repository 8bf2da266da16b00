import { z } from 'zod';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { searchResources } from '../content/search.js';
import { notFound } from '../http/errors.js';
import { idOrName } from '../http/parameters.js';
import { DISCOVERY_DOCUMENT, routeDefiner } from '../http/route.js';
import { absoluteUrl, resolveOnBase } from '../http/urls.js';
import { effectiveOptions, mergeSettings, settingsKey } from '../settings/effective-settings.js';
import { readSiteSnapshot } from '../settings/settings-store.js';
import { fixedBody } from '../http/representation.js';
import { buildCategoryLlmsTxt } from './category-llms-txt.js';
import { documentRoute } from './document-route.js';
import { buildLlmsTxt, llmsTxtFrame, type LlmsTxtFrame, type LlmsTxtSite } from './llms-txt.js';
import { cachedPerSettings } from './cached-document.js';
import { advertisedCategories, MAX_NEWEST, newestResources, newestWithOptions } from './site-content.js';
import { MEDIA } from '../links/site-links.js';

const discoveryRoute = routeDefiner<AgentContext>();

/** llms.txt's head and tail, built once per settings version and public base. */
const frameOf = cachedPerSettings('llms.txt frame', (options, base) => llmsTxtFrame(llmsTxtSite(options, base)));

/** What llms.txt says of the site itself, from the options in force. */
function llmsTxtSite(options: ResolvedOptions, base: string): Omit<LlmsTxtSite, 'categories' | 'newest'> {
  return {
    title: options.siteTitle,
    base,
    ...(options.llmsNotes ? { notes: options.llmsNotes } : {}),
    ...(options.description ? { description: options.description } : {}),
    ...(options.sitemapUrl ? { sitemapUrl: resolveOnBase(base, options.sitemapUrl) } : {}),
    ...(options.mcp ? { mcp: { endpoint: absoluteUrl(base, options.mcp.path), serverCard: absoluteUrl(base, PATHS.mcpServerCard(options.mcp.path).url()) } } : {}),
    ...(options.siteLicense ? { license: options.siteLicense } : {}),
    ...(options.siteCopyright ? { copyright: options.siteCopyright } : {}),
  };
}

/** The llms.txt body for a public base: the site, its API entry points, its categories and newest resources. */
export async function llmsTxtBody(ctx: AgentContext, base: string): Promise<string> {
  const read = await newestWithOptions(ctx, ctx.options.llmsNewest);
  const { options } = read;
  const categories = await advertisedCategories(ctx.db, options.noindex, options.defaultLanguage, options.defaultLanguage);
  const newest = newestResources(read.newest, options);
  return buildLlmsTxt({ title: options.siteTitle, base, categories, newest }, frameOf(ctx, options, base));
}

/**
 * `GET /llms.txt`: built once per settings version, content key and public base (kept in the
 * plugin's cache, one statement per request when kept); built per request over content whose version
 * is not kept by every write.
 */
export function llmsTxtRoute() {
  return documentRoute(
    PATHS.llmsTxt,
    MEDIA.llmsTxt,
    async (ctx, base) => {
      // Over content whose version is not kept, no read of it: built per request, as before.
      if (!ctx.contentClock.enabled) return { body: await llmsTxtBody(ctx, base) };
      const site = await readSiteSnapshot(ctx.db);
      const contentKey = await ctx.contentClock.key(site.content);
      if (contentKey === undefined) return { body: await llmsTxtBody(ctx, base) };
      const settings = settingsKey(mergeSettings(ctx.options, site.settings).options);
      return ctx.cache.get(['llms.txt', settings, contentKey, base], async () => fixedBody({ body: await llmsTxtBody(ctx, base) }), (b) => b.body.length);
    },
    true,
  );
}

/** The `category` of a category llms.txt path: the reference `cat=` takes (a name, else an id). */
const categoryPath = z.object({ category: idOrName('category') });

/**
 * `GET /llms/{category}.txt`: the llms.txt of one top-level category listed by the root llms.txt
 * (the same rule, `advertisedCategories`), by its name or id; any other category is a 404.
 */
export function categoryLlmsTxtRoute() {
  return discoveryRoute({
    path: PATHS.llmsCategory,
    params: categoryPath,
    query: undefined,
    response: { kind: 'text', contentType: MEDIA.llmsTxt, markdownTokens: true },
    policy: DISCOVERY_DOCUMENT,
    async handler({ ctx, call, params }) {
      const options = await effectiveOptions(ctx);
      const categories = await advertisedCategories(ctx.db, options.noindex, options.defaultLanguage, options.defaultLanguage);
      const category = categories.find((c) => c.ref === params.category || c.id === params.category);
      if (!category) throw notFound('category');
      const limit = Math.min(options.llmsNewest, MAX_NEWEST);
      const rows = limit ? await searchResources(ctx.db, { sort: 'newest', siteNoindex: options.noindex, categoryIds: [category.id], offset: 0, limit }) : [];
      return { body: buildCategoryLlmsTxt({ siteTitle: options.siteTitle, base: call.base, category, newest: newestResources(rows, options) }) };
    },
  });
}
