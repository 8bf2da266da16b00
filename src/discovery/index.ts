import type { Router } from 'express';
import type { AgentContext } from '../context.js';
import type { OperationSpec } from '../http/operations.js';
import { facadeSchemas } from '../http/facade-routes.js';
import { PATHS, absoluteUrl, resolveOnBase } from '../http/paths.js';
import { buildApiCatalog } from './api-catalog.js';
import { discoveryVariable, renderApiHelp, type DiscoveryVariable } from './api-help.js';
import { buildArdManifest } from './ard-manifest.js';
import { mountDocument, type DocumentBuilder } from './discovery-route.js';
import { ENTITY_ROUTE, createEntityNegotiation } from './entity-negotiation.js';
import { formatAgentLink } from './link-format.js';
import { buildLlmsTxt } from './llms-txt.js';
import { buildOpenApi } from './openapi.js';
import { createHomeNegotiation } from './page-negotiation.js';
import { exampleSearchWord, newestResources, publicTopCategories } from './site-content.js';
import { MEDIA } from './site-links.js';
import { effectiveOptions, settingsKey } from '../settings/effective-settings.js';

export { createLinkMiddleware } from './link-middleware.js';
export { createSetResourceHeaders, createResourceLinks, type PageOptions, type ResourceLinksParams } from './resource-links.js';
export { createSendMarkdownIfPreferred } from './page-negotiation.js';
export { createHeadLinks, renderHeadLinks } from './head-links.js';
export { mergeLinkValues, formatAgentLink, type AgentLink } from './link-format.js';
export { siteLinks, resourceAlternates } from './site-links.js';

/** How many public origins' built documents are kept (the base may come from the Host header). */
const PER_BASE_CACHE_SIZE = 8;

/** The value built for this base, building it once; the oldest base is dropped past the bound. */
function cachedPerBase<T>(cache: Map<string, T>, base: string, build: () => T): T {
  let value = cache.get(base);
  if (value === undefined) {
    value = build();
    if (cache.size >= PER_BASE_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(base, value);
  }
  return value;
}

/**
 * Mounts the discovery documents on the plugin's router: `/api-help`, `/openapi.json`,
 * `/.well-known/api-catalog`, `/llms.txt`, `/.well-known/ard.json` and its legacy twin
 * `/.well-known/ai-catalog.json` (GET and HEAD, 405 otherwise),
 * the `/id/:id` negotiation (303 for Markdown or JSON, the host's route for everything else), and,
 * with `markdownHome`, the llms.txt body as Markdown on `/` for requests preferring it.
 * No other `/.well-known/*` path is answered.
 */
export function mountDiscovery(router: Router, ctx: AgentContext, operations: () => OperationSpec[]): void {
  const { options } = ctx;
  const mountedAt = new Date();
  const templates = ctx.templates;
  const openapiByBase = new Map<string, string>();
  const helpByBase = new Map<string, DiscoveryVariable>();
  const searchText = facadeSchemas(options).search.shape.text;
  const acceptsSearchText = (text: string): boolean => searchText.safeParse(text).success;

  mountDocument(router, ctx, PATHS.openapi, async ({ base }) => {
    const options = await effectiveOptions(ctx);
    const body = cachedPerBase(openapiByBase, `${base} ${settingsKey(options)}`, () => {
      const site = {
        title: options.siteTitle,
        base,
        ...(options.description ? { description: options.description } : {}),
        ...(options.apiLicense ? { license: options.apiLicense } : {}),
      };
      return JSON.stringify(buildOpenApi(operations(), site));
    });
    return { body, contentType: MEDIA.openapi };
  });

  mountDocument(router, ctx, PATHS.apiCatalog, ({ base }) => ({
    body: JSON.stringify(buildApiCatalog(base)),
    contentType: MEDIA.linkset,
    headers: { Link: formatAgentLink({ href: absoluteUrl(base, PATHS.apiCatalog), rel: 'api-catalog' }) },
  }));

  const llmsTxt: DocumentBuilder = async ({ base }) => {
    const options = await effectiveOptions(ctx);
    const categories = await publicTopCategories(ctx.db, options.noindex, options.defaultLanguage, options.defaultLanguage);
    const newest = await newestResources(ctx.db, options, options.llmsNewest);
    const body = buildLlmsTxt({
      title: options.siteTitle,
      base,
      categories,
      newest,
      ...(options.llmsNotes ? { notes: options.llmsNotes } : {}),
      ...(options.description ? { description: options.description } : {}),
      ...(options.sitemapUrl ? { sitemapUrl: resolveOnBase(base, options.sitemapUrl) } : {}),
      ...(options.mcp ? { mcp: { endpoint: absoluteUrl(base, options.mcp.path), serverCard: absoluteUrl(base, PATHS.mcpServerCard) } } : {}),
    });
    return { body, contentType: MEDIA.llmsTxt };
  };
  mountDocument(router, ctx, PATHS.llmsTxt, llmsTxt);
  if (options.markdownHome) router.get('/', createHomeNegotiation(ctx, llmsTxt));

  const ard = async ({ base }: { base: string }) => ({ body: JSON.stringify(buildArdManifest(await effectiveOptions(ctx), base, mountedAt)), contentType: MEDIA.ard });
  mountDocument(router, ctx, PATHS.ard, ard);
  // The same manifest where ARD v0.9 resolvers (and v0.91 ones, as a fallback) look for it.
  mountDocument(router, ctx, PATHS.aiCatalog, ard);

  mountDocument(router, ctx, PATHS.apiHelp, async ({ base }) => {
    const options = await effectiveOptions(ctx);
    const word = await exampleSearchWord(ctx.db, options.noindex, options.defaultLanguage, acceptsSearchText);
    const discovery = cachedPerBase(helpByBase, `${base} ${settingsKey(options)}`, () => discoveryVariable(options, base, operations(), undefined));
    const search = word ? absoluteUrl(base, PATHS.search, { text: word, pagelen: 5 }) : null;
    return { body: renderApiHelp(templates, { ...discovery, examples: { ...discovery.examples, search } }), contentType: MEDIA.html };
  });

  router.get(ENTITY_ROUTE, createEntityNegotiation(ctx));
}
