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
  'Access-Control-Expose-Headers': 'ETag, Link, Content-Language, Content-Location, Content-Usage, Retry-After, x-markdown-tokens',
});

/**
 * Adds the headers of {@link PUBLIC_CORS_HEADERS} to one answer: for the answers the plugin gives on
 * paths it does not own (Markdown negotiated on a page URL or `/`, the `/id/{id}` 303s, a host's
 * Markdown 404), where the host's own answers on the same path must get nothing.
 */
export function setPublicCorsHeaders(res: Response): void {
  for (const [name, value] of Object.entries(PUBLIC_CORS_HEADERS)) res.setHeader(name, value);
}

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
  setPublicCorsHeaders(res);
  if (req.method !== 'OPTIONS') return next();
  answerPreflight(res);
}

/** The 204 answer of a preflight (with the public CORS headers already set). */
function answerPreflight(res: Response): void {
  markPluginResponse(res);
  for (const [name, value] of Object.entries(PREFLIGHT_HEADERS)) res.setHeader(name, value);
  res.status(204).end();
}

/**
 * Answers only the preflight (`OPTIONS`) of a path whose other answers are partly the host's (`/id/{id}`):
 * 204 with the public CORS headers; every other method goes on untouched.
 */
export function publicPreflight(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'OPTIONS') return next();
  setPublicCorsHeaders(res);
  answerPreflight(res);
}

/**
 * The preflight of a path whose requests need other methods or headers than a public read (`POST`
 * with `Content-Type: application/json`, NLWeb's `/ask`): 204 with the public CORS headers and these.
 */
export function publicPreflightFor(methods: string, headers: string) {
  return function preflight(_req: Request, res: Response): void {
    setPublicCorsHeaders(res);
    markPluginResponse(res);
    res.setHeader('Access-Control-Allow-Methods', methods);
    res.setHeader('Access-Control-Allow-Headers', headers);
    res.setHeader('Access-Control-Max-Age', PREFLIGHT_HEADERS['Access-Control-Max-Age']!);
    res.status(204).end();
  };
}
