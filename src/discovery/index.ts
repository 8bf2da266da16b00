import type { Request, RequestHandler, Response, Router } from 'express';
import type { AgentContext } from '../context.js';
import type { OperationSpec } from '../http/operations.js';

/** Filled by the discovery issue (#3); until then each piece throws a clear error. */
const notImplemented = (what: string) => (): never => {
  throw new Error(`express-agent-discovery: ${what} is not implemented yet`);
};

/** Mounts /api-help, /openapi.json, /.well-known/api-catalog, /llms.txt, /.well-known/ard.json and /id/:id negotiation. */
export function mountDiscovery(_router: Router, _ctx: AgentContext, _operations: () => OperationSpec[]): void {}

/** The Link-merging middleware for the host app. */
export function createLinkMiddleware(_ctx: AgentContext): RequestHandler {
  return notImplemented('the Link middleware');
}

/** `setResourceHeaders(req, res, id)` for custom controllers. */
export function createSetResourceHeaders(_ctx: AgentContext): (req: Request, res: Response, id: number | string) => Promise<void> {
  return async () => notImplemented('setResourceHeaders')();
}

/** The head-links renderer: `<link>` elements for `<head>`. */
export function createHeadLinks(_ctx: AgentContext): (req: Request, id?: number | string) => Promise<string> {
  return async () => notImplemented('headLinks')();
}
