import type { NextFunction, Request, Response } from 'express';
import type { AgentContext } from '../context.js';
import { preferredMediaType } from '../http/accept.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import { DISCOVERY_CACHE_CONTROL, setNoSniff } from '../http/representation.js';
import { answerRouteError } from '../http/route-errors.js';
import { normalizeResourceRef } from '../links/resource-links.js';
import { markPluginResponse } from '../http/plugin-response.js';
import { requestTarget } from '../http/request-target.js';
import { setPublicCorsHeaders } from '../http/cors.js';

/** Offered in this order, so that equal preference (`*\/*`, no Accept) means HTML, i.e. the host. */
const OFFERED = ['text/html', 'text/markdown', 'application/json'] as const;

/**
 * `/id/{id}` negotiation: a client preferring `text/markdown` gets `303 See Other` to the
 * absolute Markdown URL, one preferring `application/json` gets 303 to the JSON read; everything
 * else (browsers, and agent fetchers that list HTML first, such as FetchKit's
 * `text/html, text/markdown, …`) goes on to the host's own route. The answer depends on `Accept`,
 * so `Vary: Accept` is set either way. The query string is passed on. With `cors`, the 303s carry the
 * public CORS headers (a browser agent's `fetch` follows them to the Markdown or JSON read, which has
 * them too); the host's own answers on the path get none.
 */
export function createEntityNegotiation(ctx: AgentContext) {
  return function negotiateEntity(req: Request, res: Response, next: NextFunction) {
    const ref = normalizeResourceRef(req.params.id);
    if (ref === undefined) return next();
    res.vary('Accept');
    const preferred = preferredMediaType(req, OFFERED);
    if (preferred !== 'text/markdown' && preferred !== 'application/json') return next();
    markPluginResponse(res);
    let base: string;
    try {
      base = ctx.baseUrl(req);
    } catch (error) {
      // The plugin would answer this request: an unusable Host is its 400, not the host page.
      return answerRouteError(ctx, req, res, error);
    }
    const query = new URLSearchParams(requestTarget(req).query).toString();
    const read = preferred === 'text/markdown' ? PATHS.markdown : PATHS.resource;
    const target = absoluteUrl(base, read.url({ id: ref })) + (query ? `?${query}` : '');
    res.status(303);
    setNoSniff(res);
    if (ctx.options.cors) setPublicCorsHeaders(res);
    res.setHeader('Location', target);
    res.setHeader('Cache-Control', DISCOVERY_CACHE_CONTROL);
    res.setHeader('Content-Length', '0');
    res.end();
  };
}
