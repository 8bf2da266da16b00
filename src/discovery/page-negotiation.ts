import { markResourceRead, markSurface } from '../traffic/traffic-mark.js';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AgentContext } from '../context.js';
import { prefersMarkdown } from '../http/accept.js';
import { isMarkdownTwin } from '../http/markdown-twin.js';
import { withBudget } from '../http/budget.js';
import { classifyError } from '../http/errors.js';
import { markdownRepresentation } from '../representations/resource-markdown.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import { MARKDOWN_CONTENT_TYPE, NEGOTIATED_CACHE_CONTROL, sendRepresentation } from '../http/representation.js';
import { reportUnexpected } from '../http/route-errors.js';
import { setPublicCorsHeaders } from '../http/cors.js';
import { formatAgentLink } from '../links/link-format.js';
import {
  normalizeResourceRef,
  pageContentUsage,
  pageLinks,
  requestPageLanguage,
  type PageOptions,
  type SendMarkdownIfPreferred,
} from '../links/resource-links.js';

/**
 * `sendMarkdownIfPreferred(req, res, id, { language })`: Markdown on a page URL. Sets `Vary: Accept`;
 * when the request (GET or HEAD) prefers `text/markdown` over `text/html` and the resource is
 * anonymous-visible, answers with the resource's Markdown in the page's language (the same body as its
 * Markdown URL, which is sent as `Content-Location`), the page's Link values and `Content-Usage`,
 * `private` caching and a strong ETag (and, with `cors`, the public CORS headers), and resolves `true`. Otherwise it sends nothing and resolves
 * `false`: the host serves its page (private, unpublished or missing resources, a database that is
 * down or over budget, a body over `maxBodyBytes`, an unexpected error, which is reported through
 * `onError`). A `.md` twin (`markdownTwins`) is answered as a request preferring Markdown.
 */
export function createSendMarkdownIfPreferred(ctx: AgentContext): SendMarkdownIfPreferred {
  return async function sendMarkdownIfPreferred(req: Request, res: Response, id: number | string, page: PageOptions = {}): Promise<boolean> {
    if (res.headersSent) return false;
    res.vary('Accept');
    const language = requestPageLanguage(ctx.options, req, page.language);
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !(prefersMarkdown(req) || isMarkdownTwin(req))) return false;
    const ref = normalizeResourceRef(id);
    if (ref === undefined) return false;
    let base: string;
    try {
      base = ctx.baseUrl(req);
    } catch {
      return false;
    }
    try {
      // The page's links are read alongside (a second connection of a pool works in parallel).
      const [markdown, links, usage] = await Promise.all([
        withBudget(ctx.options.budgetMs, () => markdownRepresentation(ctx, ref, language, base)),
        pageLinks(ctx, req, ref, language),
        pageContentUsage(ctx, req),
      ]);
      if (!markdown || res.headersSent) return false;
      markSurface(req, 'page-markdown');
      markResourceRead(req, markdown.id);
      if (links.length) res.append('Link', links.map(formatAgentLink));
      if (usage) res.setHeader('Content-Usage', usage);
      if (ctx.options.cors) setPublicCorsHeaders(res);
      sendRepresentation(req, res, {
        body: markdown.body,
        contentType: MARKDOWN_CONTENT_TYPE,
        cacheControl: NEGOTIATED_CACHE_CONTROL,
        maxBytes: ctx.options.maxBodyBytes,
        markdownTokens: true,
        headers: {
          'Content-Language': markdown.language,
          'Content-Location': absoluteUrl(base, PATHS.markdown.url({ id: ref }), { language }),
        },
      });
      return true;
    } catch (error) {
      // The page is the host's: a failure costs the Markdown, never the page (an unexpected one is reported).
      if (!classifyError(error)) reportUnexpected(ctx, req, error);
      return res.headersSent;
    }
  };
}

/**
 * Markdown on `/`: a request preferring `text/markdown` over `text/html` gets the llms.txt body as
 * `text/markdown` (`Content-Location` of `/llms.txt`, `private` caching, a strong ETag); any other
 * goes on to the host's home page. `Vary: Accept` either way. A database that is down or over budget,
 * or an unexpected error (reported through `onError`), leaves the home page to the host.
 */
export function createHomeNegotiation(ctx: AgentContext, llmsTxt: (base: string) => Promise<string>): RequestHandler {
  return async function negotiateHome(req: Request, res: Response, next: NextFunction) {
    res.vary('Accept');
    if (!prefersMarkdown(req) && !isMarkdownTwin(req)) return next();
    let base: string;
    try {
      base = ctx.baseUrl(req);
    } catch {
      return next();
    }
    try {
      const body = await withBudget(ctx.options.budgetMs, () => llmsTxt(base));
      markSurface(req, 'page-markdown');
      if (ctx.options.cors) setPublicCorsHeaders(res);
      sendRepresentation(req, res, {
        body,
        contentType: MARKDOWN_CONTENT_TYPE,
        cacheControl: NEGOTIATED_CACHE_CONTROL,
        markdownTokens: true,
        headers: { 'Content-Location': absoluteUrl(base, PATHS.llmsTxt.url()) },
      });
    } catch (error) {
      if (!classifyError(error)) reportUnexpected(ctx, req, error);
      if (res.headersSent) return void res.destroy();
      next();
    }
  };
}
