import type { AgentContext } from '../context.js';
import { PATHS } from '../paths.js';
import { absoluteUrl, resolveOnBase } from '../http/urls.js';
import { documentRoute } from './document-route.js';
import { buildLlmsTxt } from './llms-txt.js';
import { advertisedCategories, newestResources, newestWithOptions } from './site-content.js';
import { MEDIA } from './site-links.js';

/** The llms.txt body for a public base: the site, its API entry points, its categories and newest resources. */
export async function llmsTxtBody(ctx: AgentContext, base: string): Promise<string> {
  const read = await newestWithOptions(ctx, ctx.options.llmsNewest);
  const { options } = read;
  const categories = await advertisedCategories(ctx.db, options.noindex, options.defaultLanguage, options.defaultLanguage);
  const newest = newestResources(read.newest, options);
  return buildLlmsTxt({
    title: options.siteTitle,
    base,
    categories,
    newest,
    ...(options.llmsNotes ? { notes: options.llmsNotes } : {}),
    ...(options.description ? { description: options.description } : {}),
    ...(options.sitemapUrl ? { sitemapUrl: resolveOnBase(base, options.sitemapUrl) } : {}),
    ...(options.mcp ? { mcp: { endpoint: absoluteUrl(base, options.mcp.path), serverCard: absoluteUrl(base, PATHS.mcpServerCard(options.mcp.path).url()) } } : {}),
  });
}

/** `GET /llms.txt`. */
export function llmsTxtRoute() {
  return documentRoute(PATHS.llmsTxt, MEDIA.llmsTxt, async (ctx, base) => ({ body: await llmsTxtBody(ctx, base) }));
}
