import express, { type Router } from 'express';
import type { AgentContext } from '../context.js';
import { mountDiscovery } from '../discovery/index.js';
import type { OperationSpec } from './operations.js';
import { facadeOperations, mountFacade } from './facade-routes.js';
import { markdownOperations, mountMarkdown } from './markdown-route.js';
import { mountRelated, relatedOperations } from './related-routes.js';

/**
 * The plugin's router: discovery documents and the anonymous content facade. Mount it at the root
 * of the host app (the well-known paths must be at the origin's root).
 */
export function createAgentRouter(ctx: AgentContext): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  const operations = (): OperationSpec[] => [
    ...facadeOperations(ctx.options),
    ...relatedOperations(ctx.options),
    ...markdownOperations(ctx.options),
  ];
  mountFacade(router, ctx);
  mountRelated(router, ctx);
  mountMarkdown(router, ctx);
  mountDiscovery(router, ctx, operations);
  return router;
}
