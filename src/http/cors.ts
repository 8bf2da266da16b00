import type { NextFunction, Request, Response } from 'express';
import { markPluginResponse } from './plugin-response.js';

/**
 * The CORS headers of every public answer (the `cors` option): any origin may read it, without
 * credentials (`Access-Control-Allow-Credentials` is never sent, so a browser sends no cookie), and
 * a script may read the headers an agent needs: the validator, the links, the language, the AI usage
 * preferences, and when to retry.
 */
const PUBLIC_CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, Link, Content-Language, Content-Usage, Retry-After',
});

/**
 * A preflight's answer: the methods a public answer has, the request headers a conditional,
 * negotiated read sends, and how long a browser may keep this answer (a day; browsers cap it lower).
 */
const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Accept, Accept-Language, If-None-Match',
  'Access-Control-Max-Age': '86400',
});

/**
 * Public CORS for one path: every answer gets {@link PUBLIC_CORS_HEADERS}; an `OPTIONS` request (a
 * preflight) is answered 204 with {@link PREFLIGHT_HEADERS} too. Mount it before the path's route.
 *
 * ```http
 * OPTIONS /api/agent/search                  →  204 No Content
 * Access-Control-Allow-Origin: *
 * Access-Control-Allow-Methods: GET, HEAD, OPTIONS
 * Access-Control-Allow-Headers: Accept, Accept-Language, If-None-Match
 * ```
 */
export function publicCors(req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of Object.entries(PUBLIC_CORS_HEADERS)) res.setHeader(name, value);
  if (req.method !== 'OPTIONS') return next();
  markPluginResponse(res);
  for (const [name, value] of Object.entries(PREFLIGHT_HEADERS)) res.setHeader(name, value);
  res.status(204).end();
}
