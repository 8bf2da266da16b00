import type { Request } from 'express';

/**
 * The request's path and raw query string, split at the first `?` of `req.originalUrl` (the URL as
 * the client sent it, whatever the mount point): never `req.query`, whose parser belongs to the host.
 *
 * ```ts
 * requestTarget(req) // GET /api/agent/search?text=a%20b → { path: '/api/agent/search', query: 'text=a%20b' }
 * ```
 */
export function requestTarget(req: Request): { path: string; query: string } {
  const url = req.originalUrl ?? req.url;
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}
