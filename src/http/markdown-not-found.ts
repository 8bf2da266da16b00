import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { preferredMediaType } from './accept.js';
import { requestTarget } from './request-target.js';
import { dropHostAnswerHeaders, writeMarkdownAnswer } from './markdown-error.js';
import { PATHS } from '../paths.js';

/** JSON and HTML are offered first: only a request that really prefers Markdown gets it. */
const NOT_FOUND_OFFER = ['application/json', 'text/html', 'text/markdown'] as const;

/** Whether a request prefers `text/markdown` over JSON and HTML (an agent that asked for Markdown). */
function wantsMarkdownAnswer(req: Request): boolean {
  return preferredMediaType(req, NOT_FOUND_OFFER) === 'text/markdown';
}

/** Markdown offered first: for a `.md` URL, only an explicit preference for HTML (a browser's) gets HTML. */
const MD_URL_OFFER = ['text/markdown', 'text/html'] as const;

/**
 * Whether a 404 of the host should be Markdown: the request prefers Markdown, or it asked for a `.md`
 * URL (an agent trying a page's `.md` twin) without preferring HTML as a browser does.
 */
function wantsMarkdownNotFound(req: Request): boolean {
  if (wantsMarkdownAnswer(req)) return true;
  return /\.md$/i.test(requestTarget(req).path) && preferredMediaType(req, MD_URL_OFFER) === 'text/markdown';
}

/**
 * The Markdown body of a 404 for an agent that asked for Markdown: where to look instead. Links are
 * root-relative (they resolve against the URL that was asked), so no `Host` header is copied.
 *
 * ```markdown
 * # Not found
 *
 * Nothing public is at this address.
 *
 * - [Search this site](/api/agent/search?text=…): …
 * - [llms.txt](/llms.txt): …
 * ```
 */
function markdownNotFoundBody(): string {
  return [
    '# Not found',
    '',
    'Nothing public is at this address: it may have moved, or it is not published.',
    '',
    `- [Search this site](${PATHS.search.url()}): full-text search over the public content (add \`?text=…\`); every result links its Markdown`,
    `- [llms.txt](${PATHS.llmsTxt.url()}): what this site offers and how to read it`,
    '',
  ].join('\n');
}

/**
 * Answers a 404 with the Markdown body when the request prefers Markdown; `false` (nothing sent) for
 * every other request. The plugin's own 404s use it; a host can too, for its own 404 pages:
 * `if (!agent.sendMarkdownNotFound(req, res)) res.status(404).render('404')`.
 */
export function sendMarkdownNotFound(req: Request, res: Response): boolean {
  if (res.headersSent || !wantsMarkdownAnswer(req)) return false;
  writeMarkdownNotFound(req, res);
  return true;
}

/** Writes the Markdown 404 (no CORS headers: the plugin's own routes set their own). */
function writeMarkdownNotFound(req: Request, res: Response): void {
  writeMarkdownAnswer(req, res, 404, markdownNotFoundBody(), false);
}

/**
 * Sends the Markdown 404 whatever the request asked for (a `.md` twin's answer), dropping the headers
 * of whatever answer was being prepared; with `cors`, the public CORS headers.
 */
export function sendMarkdownNotFoundNow(req: Request, res: Response, cors: boolean): void {
  dropHostAnswerHeaders(res);
  writeMarkdownAnswer(req, res, 404, markdownNotFoundBody(), cors);
}

/** How a host's Markdown 404s are answered. */
export interface MarkdownNotFoundOptions {
  /** Add the public CORS headers (the `cors` option). */
  readonly cors: boolean;
}

/**
 * The host's Markdown 404s: middleware the host mounts after its routes and before its own 404
 * handler. A GET or HEAD that prefers Markdown, or that asks for a `.md` URL without preferring HTML,
 * gets the Markdown 404 (where to search instead, and llms.txt; with `cors`, the public CORS headers);
 * every other request goes on to the host's 404 page. A response already started is left alone.
 *
 * ```ts
 * app.use(agent.markdownNotFound)
 * app.use((req, res) => res.status(404).render('404'))
 * // GET /en/page/99999  Accept: text/markdown  →  404 text/markdown  "# Not found …"
 * ```
 */
export function createMarkdownNotFound(options: MarkdownNotFoundOptions): { middleware: RequestHandler; send: (req: Request, res: Response) => boolean } {
  const send = (req: Request, res: Response): boolean => {
    if (res.headersSent || !wantsMarkdownNotFound(req)) return false;
    sendMarkdownNotFoundNow(req, res, options.cors);
    return true;
  };
  return {
    send,
    middleware: function markdownNotFound(req: Request, res: Response, next: NextFunction) {
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !send(req, res)) next();
    },
  };
}
