import { markResourceRead, markSurface } from '../traffic/traffic-mark.js';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AgentContext } from '../context.js';
import { prefersMarkdown } from '../http/accept.js';
import { isMarkdownTwin } from '../http/markdown-twin.js';
import { withBudget } from '../http/budget.js';
import { classifyError, internalError } from '../http/errors.js';
import { MARKDOWN_FALLBACK_HEADER, MarkdownFallbackError, sendMarkdownError } from '../http/markdown-error.js';
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
 * `false`: the host serves its page (private, unpublished or missing resources). When the read fails
 * (a database that is down or over budget, a body over `maxBodyBytes`, an unexpected error) the host's
 * page is the fallback: `X-Markdown-Fallback` names the failure and `onError` is told
 * (`markdownReadFailed`). A `.md` twin (`markdownTwins`) is answered as a request preferring Markdown,
 * and a failure as itself (503 or 504 with `Retry-After`, never a 404).
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
      return markdownReadFailed(ctx, req, res, error);
    }
  };
}

/**
 * A page's Markdown could not be read. A `.md` twin gets the failure itself, in Markdown (its status:
 * 503 or 504 with `Retry-After` for a database unavailable or over budget), and `true` (answered).
 * A request that negotiated Markdown on the page URL gets the host's page (`false`): the failure
 * costs the Markdown, never the page, and says so in `X-Markdown-Fallback` (the error code) and to
 * `onError` (an expected one as a `MarkdownFallbackError`; an unexpected error is reported as itself
 * either way).
 */
function markdownReadFailed(ctx: AgentContext, req: Request, res: Response, error: unknown): boolean {
  const known = classifyError(error);
  const answer = known ?? internalError();
  if (!known) reportUnexpected(ctx, req, error);
  if (res.headersSent) return true;
  if (isMarkdownTwin(req)) {
    sendMarkdownError(req, res, answer, ctx.options.cors);
    return true;
  }
  if (known) reportUnexpected(ctx, req, new MarkdownFallbackError(known.code, known.message, { cause: error }));
  res.setHeader(MARKDOWN_FALLBACK_HEADER, answer.code);
  return false;
}

/**
 * Markdown on `/`: a request preferring `text/markdown` over `text/html` gets the llms.txt body as
 * `text/markdown` (`Content-Location` of `/llms.txt`, `private` caching, a strong ETag); any other
 * goes on to the host's home page. `Vary: Accept` either way. A database that is down or over budget,
 * or an unexpected error, leaves the home page to the host, as for a page (`markdownReadFailed`:
 * `X-Markdown-Fallback`, `onError`); `/index.md` gets the failure itself.
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
      if (res.headersSent) return void res.destroy();
      if (!markdownReadFailed(ctx, req, res, error)) next();
    }
  };
}
