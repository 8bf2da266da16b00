import type { NextFunction, Request, Response, Router } from 'express';
import type { AgentContext } from '../context.js';
import { documentRouteDefiner } from '../http/document-route.js';
import { MEDIA } from '../links/site-links.js';
import { PATHS } from '../paths.js';
import { HttpError } from '../http/errors.js';
import { markPluginResponse } from '../http/plugin-response.js';
import { sendErrorEnvelope } from '../http/representation.js';
import { respond } from '../http/responder.js';
import { effectiveOptions } from '../settings/effective-settings.js';
import { buildServerCard } from './server-card.js';

const documentRoute = documentRouteDefiner<AgentContext>();

/** The methods a server card answers; every other one is 405 with this `Allow`. */
const SERVER_CARD_METHODS = 'GET, HEAD, OPTIONS';

/**
 * The CORS headers of every server card answer (the extension asks them of hosted cards): any origin
 * may read the card and revalidate it with its ETag. Never with credentials.
 */
const SERVER_CARD_CORS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': SERVER_CARD_METHODS,
  'Access-Control-Allow-Headers': 'Content-Type, If-None-Match',
  'Access-Control-Expose-Headers': 'ETag',
});

/** How long a browser may keep a preflight's answer (Chromium caps it at two hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

function serverCardCors(_req: Request, res: Response, next: NextFunction): void {
  markPluginResponse(res);
  res.removeHeader('Access-Control-Allow-Credentials');
  res.removeHeader('Set-Cookie');
  for (const [name, value] of Object.entries(SERVER_CARD_CORS)) res.setHeader(name, value);
  next();
}

function serverCardPreflight(_req: Request, res: Response): void {
  res.setHeader('Allow', SERVER_CARD_METHODS);
  res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
  res.status(204).end();
}

function serverCardMethodNotAllowed(_req: Request, res: Response): void {
  sendErrorEnvelope(res, new HttpError(405, 'method_not_allowed', `only ${SERVER_CARD_METHODS} are supported`), { Allow: SERVER_CARD_METHODS });
}

/**
 * Mounts the MCP server card at `<mcpPath>/server-card` and its older well-known aliases, as
 * `application/mcp-server-card+json`: GET and HEAD under the discovery documents' rules (`no-cache`,
 * strong ETag and 304), an `OPTIONS` preflight answered 204, 405 otherwise, every answer with the
 * card's CORS headers.
 *
 * ```text
 * OPTIONS /mcp/server-card  →  204  Access-Control-Allow-Origin: *
 *                                   Access-Control-Allow-Methods: GET, HEAD, OPTIONS
 *                                   Access-Control-Allow-Headers: Content-Type, If-None-Match
 *                                   Access-Control-Expose-Headers: ETag
 * ```
 */
export function mountServerCard(router: Router, ctx: AgentContext, mcpPath: string): void {
  // The options in force: the site licence and copyright are run-time settings.
  const build = async (_ctx: AgentContext, base: string) => ({ body: JSON.stringify(buildServerCard(await effectiveOptions(ctx), base, mcpPath)) });
  for (const path of [PATHS.mcpServerCard(mcpPath), ...PATHS.mcpServerCardAliases]) {
    const route = documentRoute(path, MEDIA.mcpServerCard, build);
    router.all(path.expressPath, serverCardCors);
    router.options(path.expressPath, serverCardPreflight);
    router.get(path.expressPath, respond(ctx, route));
    router.all(path.expressPath, serverCardMethodNotAllowed);
  }
}
