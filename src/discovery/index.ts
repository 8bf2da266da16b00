import type { Router } from 'express';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import type { OperationSpec } from '../http/operations.js';
import type { Route, RouteTool } from '../http/route.js';
import { agentSkillsRoutes } from './agent-skills-route.js';
import { apiCatalogRoute } from './api-catalog-route.js';
import { apiHelpRoute } from './api-help-route.js';
import { ardRoutes } from './ard-routes.js';
import { createEntityNegotiation } from './entity-negotiation.js';
import { categoryLlmsTxtRoute, llmsTxtBody, llmsTxtRoute } from './llms-txt-route.js';
import { llmsFullRoute } from './llms-full-route.js';
import { openapiRoute } from './openapi-route.js';
import { createHomeNegotiation } from './page-negotiation.js';
import { licenseXmlRoute, robotsTxtRoute } from './robots-txt-route.js';
import { sitemapRoutes } from './sitemap-route.js';
import { indexNowKeyRoute } from './indexnow.js';
import { publicPreflight } from '../http/cors.js';

export { createLinkMiddleware } from './link-middleware.js';
export { createSendMarkdownIfPreferred } from './page-negotiation.js';
export { startIndexNow } from './indexnow.js';

/**
 * The discovery documents: `/openapi.json`, `/.well-known/api-catalog`, `/llms.txt` and the
 * category-scoped `/llms/{category}.txt` (and `/llms-full.txt` with the `llmsFull` option),
 * `/.well-known/ard.json` and its legacy twin `/.well-known/ai-catalog.json`, `/api-help`, the Agent
 * Skills index `/.well-known/agent-skills/index.json` and its `SKILL.md`, `/sitemap.xml` (and its
 * parts) with the `sitemap` option, the IndexNow key file with `indexNow`, and
 * `/robots.txt` with the `robotsTxt` option (GET and HEAD, 405 otherwise). No other
 * `/.well-known/*` path is answered.
 */
export function discoveryRoutes(
  options: ResolvedOptions,
  operations: () => readonly OperationSpec[],
  tools: () => readonly RouteTool[],
): Route<AgentContext>[] {
  return [
    openapiRoute(options, operations),
    apiCatalogRoute(),
    llmsTxtRoute(),
    categoryLlmsTxtRoute(),
    ...(options.llmsFull ? [llmsFullRoute(options.llmsFull.maxBytes)] : []),
    ...ardRoutes(options),
    apiHelpRoute(options, operations),
    ...agentSkillsRoutes(operations, tools),
    ...(options.robotsTxt ? [robotsTxtRoute(), licenseXmlRoute()] : []),
    ...(options.sitemap ? sitemapRoutes(options.sitemap.maxUrls) : []),
    ...(options.indexNow ? [indexNowKeyRoute(options.indexNow.key)] : []),
  ];
}

/**
 * Mounts the negotiations that answer only some requests and leave the rest to the host: the
 * `/id/{id}` entity identifier (303 to the Markdown or JSON read) and, with `markdownHome`, the
 * llms.txt body as Markdown on `/` for requests preferring it.
 */
export function mountNegotiations(router: Router, ctx: AgentContext): void {
  if (ctx.options.markdownHome) router.get('/', createHomeNegotiation(ctx, (base) => llmsTxtBody(ctx, base)));
  // With `cors`: a browser's preflight of `/id/{id}` (a conditional or `Accept-Language` fetch), answered
  // by the plugin; the GETs the host answers itself carry no CORS header.
  if (ctx.options.cors) router.options(PATHS.entity.expressPath, publicPreflight);
  router.get(PATHS.entity.expressPath, createEntityNegotiation(ctx));
}
