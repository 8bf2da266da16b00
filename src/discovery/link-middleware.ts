import type { NextFunction, Request, RequestHandler, Response } from 'express';
import onHeaders from 'on-headers';
import type { AgentContext } from '../context.js';
import { formatAgentLink, headerValues, mergeLinkValues } from '../links/link-format.js';
import { isPluginResponse } from '../http/plugin-response.js';
import { requestTarget } from '../http/request-target.js';
import { homeMarkdownAlternate, siteLinks } from '../links/site-links.js';

const MERGING = Symbol.for('express-agent-discovery.link-merge');

type HeaderValue = number | string | readonly string[];
type SetHeader = (name: string, value: HeaderValue) => Response;

/** Whether the site-level links go on this response: the home page, or any HTML page with `linkAllHtml`. */
function wantsSiteLinks(ctx: AgentContext, req: Request, res: Response): boolean {
  if (isPluginResponse(res)) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const ok = (res.statusCode >= 200 && res.statusCode < 300) || res.statusCode === 304;
  if (!ok) return false;
  if (requestTarget(req).path === '/') return true;
  if (!ctx.options.linkAllHtml) return false;
  const type = headerValues(res.getHeader('content-type') as HeaderValue | undefined)[0] ?? '';
  return /^\s*text\/html\b/i.test(type);
}

/**
 * The Link-merging middleware: mount once, before the host's routes. For the rest of the
 * response, setting `Link` adds to the values already there instead of replacing them (so a later
 * `res.set('Link', …)` loses nothing), and just before the headers are written every value is merged
 * into one header with exact duplicates sent once. The home page (and, with `linkAllHtml`, every HTML
 * page) gets the site-level links here.
 */
export function createLinkMiddleware(ctx: AgentContext): RequestHandler {
  return function mergeLinkHeader(req: Request, res: Response, next: NextFunction) {
    const marked = res as Response & { [MERGING]?: true };
    if (marked[MERGING]) return next();
    marked[MERGING] = true;

    const setHeader = res.setHeader as unknown as SetHeader;
    (res as unknown as { setHeader: SetHeader }).setHeader = function accumulateLink(this: Response, name: string, value: HeaderValue) {
      if (typeof name === 'string' && name.toLowerCase() === 'link') {
        const earlier = headerValues(this.getHeader('link') as HeaderValue | undefined);
        if (earlier.length) value = [...new Set([...earlier, ...headerValues(value)])];
      }
      return setHeader.call(this, name, value);
    };

    onHeaders(res, function writeMergedLink() {
      const values = headerValues(res.getHeader('link') as HeaderValue | undefined);
      if (wantsSiteLinks(ctx, req, res)) {
        try {
          const base = ctx.baseUrl(req);
          const home = ctx.options.markdownHome && requestTarget(req).path === '/' ? [homeMarkdownAlternate(base)] : [];
          values.push(...[...siteLinks(base, ctx.options.mcp ? ctx.options.mcp.path : undefined), ...home].map(formatAgentLink));
        } catch {
          // An unusable Host header: the page goes out without the site-level links.
        }
      }
      if (values.length) setHeader.call(res, 'Link', mergeLinkValues(values));
    });
    next();
  };
}
