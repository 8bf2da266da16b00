import type { Request, RequestHandler, Response, Router } from 'express';
import type { AgentContext } from '../context.js';
import { methodNotAllowed } from '../http/agent-route.js';
import { withBudget } from '../http/budget.js';
import { DISCOVERY_CACHE_CONTROL, sendRepresentation } from '../http/representation.js';
import { answerRouteError } from '../http/route-errors.js';
import { markPluginResponse } from './site-links.js';

/** A discovery document as built for one request. */
export interface DiscoveryDocument {
  body: string;
  contentType: string;
  headers?: Record<string, string>;
}

export type DocumentBuilder = (input: { req: Request; base: string }) => DiscoveryDocument | Promise<DiscoveryDocument>;

/**
 * The common rules of a discovery document: GET and HEAD (same headers, no body on HEAD),
 * `Cache-Control: no-cache`, a strong ETag with 304, the time budget, absolute URLs on the public base.
 */
export function discoveryRoute(ctx: AgentContext, build: DocumentBuilder): RequestHandler {
  return async function discoveryDocument(req: Request, res: Response) {
    markPluginResponse(res);
    try {
      const base = ctx.baseUrl(req);
      const doc = await withBudget(ctx.options.budgetMs, async () => build({ req, base }));
      sendRepresentation(req, res, {
        body: doc.body,
        contentType: doc.contentType,
        cacheControl: DISCOVERY_CACHE_CONTROL,
        ...(doc.headers ? { headers: doc.headers } : {}),
      });
    } catch (error) {
      answerRouteError(ctx, req, res, error);
    }
  };
}

/** Registers a document: GET (and HEAD) serve it, every other method gets 405 with `Allow: GET, HEAD`. */
export function mountDocument(router: Router, ctx: AgentContext, path: string, build: DocumentBuilder): void {
  router.get(path, discoveryRoute(ctx, build));
  router.all(path, function discoveryMethodNotAllowed(req: Request, res: Response) {
    markPluginResponse(res);
    methodNotAllowed(req, res);
  });
}
