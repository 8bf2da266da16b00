import type { Router } from 'express';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import type { OperationSpec } from '../http/operations.js';
import type { Route } from '../http/route.js';
import { apiCatalogRoute } from './api-catalog-route.js';
import { apiHelpRoute } from './api-help-route.js';
import { ardRoutes } from './ard-routes.js';
import { createEntityNegotiation } from './entity-negotiation.js';
import { categoryLlmsTxtRoute, llmsTxtBody, llmsTxtRoute } from './llms-txt-route.js';
import { llmsFullRoute } from './llms-full-route.js';
import { openapiRoute } from './openapi-route.js';
import { createHomeNegotiation } from './page-negotiation.js';
import { robotsTxtRoute } from './robots-txt-route.js';

export { createLinkMiddleware } from './link-middleware.js';
export { createSendMarkdownIfPreferred } from './page-negotiation.js';

/**
 * The discovery documents: `/openapi.json`, `/.well-known/api-catalog`, `/llms.txt` and the
 * category-scoped `/llms/{category}.txt` (and `/llms-full.txt` with the `llmsFull` option),
 * `/.well-known/ard.json` and its legacy twin `/.well-known/ai-catalog.json`, `/api-help`, and
 * `/robots.txt` with the `robotsTxt` option (GET and HEAD, 405 otherwise). No other
 * `/.well-known/*` path is answered.
 */
export function discoveryRoutes(options: ResolvedOptions, operations: () => readonly OperationSpec[]): Route<AgentContext>[] {
  return [
    openapiRoute(options, operations),
    apiCatalogRoute(),
    llmsTxtRoute(),
    categoryLlmsTxtRoute(),
    ...(options.llmsFull ? [llmsFullRoute(options.llmsFull.maxBytes)] : []),
    ...ardRoutes(options),
    apiHelpRoute(options, operations),
    ...(options.robotsTxt ? [robotsTxtRoute()] : []),
  ];
}

/**
 * Mounts the negotiations that answer only some requests and leave the rest to the host: the
 * `/id/{id}` entity identifier (303 to the Markdown or JSON read) and, with `markdownHome`, the
 * llms.txt body as Markdown on `/` for requests preferring it.
 */
export function mountNegotiations(router: Router, ctx: AgentContext): void {
  if (ctx.options.markdownHome) router.get('/', createHomeNegotiation(ctx, (base) => llmsTxtBody(ctx, base)));
  router.get(PATHS.entity.expressPath, createEntityNegotiation(ctx));
}
