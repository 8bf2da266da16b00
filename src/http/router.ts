import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { apiRootOperations, mountApiRoot } from './api-root.js';
import { badRequest } from './errors.js';
import { API_ROBOTS, sendErrorEnvelope } from './representation.js';
import type { AgentContext } from '../context.js';
import { mountDiscovery } from '../discovery/index.js';
import type { OperationSpec } from './operations.js';
import { facadeOperations, mountFacade } from './facade-routes.js';
import { markdownOperations, mountMarkdown } from './markdown-route.js';
import { mountRelated, relatedOperations } from './related-routes.js';
import { mountMcp } from '../mcp/mcp-route.js';

/**
 * The plugin's router: discovery documents and the anonymous content facade. Mount it at the root
 * of the host app (the well-known paths must be at the origin's root).
 */
export function createAgentRouter(ctx: AgentContext): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const operations = (): OperationSpec[] => [
    ...apiRootOperations(),
    ...facadeOperations(ctx.options),
    ...relatedOperations(ctx.options),
    ...markdownOperations(ctx.options),
  ];
  mountFacade(router, ctx);
  mountRelated(router, ctx);
  mountMarkdown(router, ctx);
  mountDiscovery(router, ctx, operations);
  if (ctx.options.mcp) mountMcp(router, ctx, ctx.options.mcp.path);
  // Last of the routes: it also answers every unknown path under /api/agent/ with a JSON 404.
  mountApiRoot(router, ctx, operations);
  // A path parameter that cannot be percent-decoded (`/api/agent/resource/%zz`) fails in the router
  // before any handler: answer it as the facade answers every bad parameter.
  router.use(function malformedPathParameter(error: unknown, req: Request, res: Response, next: NextFunction) {
    // Only the router's own decoding failure: a host callback's error stays the host's to handle.
    if (error instanceof URIError && /^Failed to decode param/.test(error.message) && !res.headersSent) {
      res.setHeader('X-Robots-Tag', API_ROBOTS);
      return sendErrorEnvelope(res, badRequest('path', 'a path segment is not valid percent-encoding'));
    }
    next(error);
  });
  return router;
}
