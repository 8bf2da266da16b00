import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { AgentContext } from './context.js';
import { discoveryRoutes, mountNegotiations } from './discovery/index.js';
import { facadeRoutes, mountNlwebAsk, mountUnknownApiPath } from './facade/index.js';
import { badRequest } from './http/errors.js';
import type { OperationSpec } from './http/operations.js';
import { API_ROBOTS, sendErrorEnvelope } from './http/representation.js';
import { mountRoute } from './http/responder.js';
import { isPublicAnswer, operationsOf, toolsInOrder, type Route, type RouteTool } from './http/route.js';
import { publicCors } from './http/cors.js';
import { createMarkdownTwins } from './http/markdown-twin.js';
import { PATHS } from './paths.js';
import { mountMcp } from './mcp/mcp-route.js';

/** Every route of the plugin, in the order they are documented: the facade's, then the discovery documents. */
function routeTable(ctx: AgentContext): Route<AgentContext>[] {
  let operations: OperationSpec[] | undefined;
  let tools: RouteTool[] | undefined;
  const documented = (): OperationSpec[] => (operations ??= operationsOf(table));
  const toolsOf = (): RouteTool[] => (tools ??= toolsInOrder(table));
  const table = [...facadeRoutes(ctx.options, documented), ...discoveryRoutes(ctx.options, documented, toolsOf)];
  return table;
}

/**
 * A path parameter that cannot be percent-decoded (`/api/agent/resource/%zz`) fails in the router
 * before any handler: answer it as the facade answers every bad parameter. Only the router's own
 * decoding failure: a host callback's error stays the host's to handle.
 */
function malformedPathParameter(error: unknown, _req: Request, res: Response, next: NextFunction) {
  if (error instanceof URIError && /^Failed to decode param/.test(error.message) && !res.headersSent) {
    res.setHeader('X-Robots-Tag', API_ROBOTS);
    return sendErrorEnvelope(res, badRequest('path', 'a path segment is not valid percent-encoding'));
  }
  next(error);
}

/**
 * The plugin's router: discovery documents and the anonymous content facade. Mount it at the root
 * of the host app (the well-known paths must be at the origin's root).
 */
export function createAgentRouter(ctx: AgentContext): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const table = routeTable(ctx);
  // First: who is asking and what the agent policy gives them, counted (once per request, whichever of the
  // plugin's middleware sees it first), before anything is read.
  if (ctx.agents) router.use(ctx.agents.gate.middleware);
  // With `cors`: the public answers of the table (its policy says so), and below, every other
  // path under /api/agent/ (its JSON 404).
  if (ctx.options.cors) {
    for (const route of table.filter((r) => isPublicAnswer(r.policy))) router.all(route.path.expressPath, publicCors);
  }
  for (const route of table) mountRoute(router, ctx, route);
  // With `markdownTwins`: `<page URL>.md` becomes the page's URL, answered in Markdown only (after the
  // plugin's own paths, such as a SKILL.md; before `/` and the host's routes).
  if (ctx.options.markdownTwins) router.use(createMarkdownTwins({ cors: ctx.options.cors }));
  mountNegotiations(router, ctx);
  if (ctx.options.mcp) mountMcp(router, ctx, ctx.options.mcp.path, table);
  if (ctx.options.nlweb) mountNlwebAsk(router, ctx, table.find((route) => route.path === PATHS.search)!);
  if (ctx.options.cors) router.use(PATHS.apiRoot.template, publicCors);
  // Last of the routes: every unknown path under /api/agent/ gets a JSON 404.
  mountUnknownApiPath(router, () => operationsOf(table));
  router.use(malformedPathParameter);
  return router;
}
