import type { NextFunction, Request, Response } from 'express';
import { sendMarkdownNotFoundNow } from './markdown-not-found.js';
import { hostFailure, sendMarkdownError } from './markdown-error.js';

/** Set on a request that asked for a `.md` twin (its URL rewritten to the page's). */
const TWIN = Symbol('express-agent-discovery.markdownTwin');

/** Whether the request asked for a page's `.md` twin: only Markdown may answer it. */
export function isMarkdownTwin(req: Request): boolean {
  return (req as { [TWIN]?: true })[TWIN] === true;
}

/**
 * The page path of a `.md` twin path, else undefined: `/index.md` is the home page `/`, any other
 * `<path>.md` is `<path>`.
 *
 * ```ts
 * twinPagePath('/en/page/22.md') // '/en/page/22'
 * twinPagePath('/index.md')      // '/'
 * twinPagePath('/llms.txt')      // undefined
 * ```
 */
export function twinPagePath(path: string): string | undefined {
  if (path === '/index.md') return '/';
  if (path.length < 5 || !path.endsWith('.md') || path.endsWith('/.md')) return undefined;
  return path.slice(0, -3);
}

/**
 * The `.md` twins (the `markdownTwins` option): a GET or HEAD of `<page URL>.md` (or `/index.md`) is
 * rewritten to the page's own URL and marked, so the host's page route and its `resourceLinks` (or the
 * plugin's Markdown on `/`) answer it exactly as a request preferring Markdown: the same Markdown,
 * visibility, language and headers. Only Markdown goes out on a `.md` URL: whatever else the host
 * would answer there (its HTML page for an administrator, its HTML 404, a redirect, a page that has no
 * Markdown) becomes the Markdown 404, except a failure: the host's own 5xx stays that status (in
 * Markdown, with its `Retry-After`), and a Markdown read that failed (a database unavailable or over
 * budget: 503 or 504 with `Retry-After`) is answered as such (`sendMarkdownIfPreferred`), never as a
 * 404. Mount it first, before the host's routes.
 *
 * ```http
 * GET /en/page/22.md      →  200 text/markdown (the page's Markdown, as `Accept: text/markdown` gets it)
 * GET /en/page/99999.md   →  404 text/markdown ("# Not found", links to search and llms.txt)
 * GET /en/page/22.md      →  504 text/markdown, Retry-After: 5 (the database did not answer in its budget)
 * ```
 */
export function createMarkdownTwins(options: { readonly cors: boolean }) {
  return function markdownTwin(req: Request, res: Response, next: NextFunction) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    const page = twinPagePath(path);
    if (page === undefined) return next();
    (req as { [TWIN]?: true })[TWIN] = true;
    req.url = page + (q < 0 ? '' : req.url.slice(q));
    onlyMarkdown(req, res, options.cors);
    next();
  };
}

/**
 * Lets a response go out only when it is Markdown (a 200, a 304, a Markdown error or 404): on the
 * first `write` or `end` of anything else, the host's body is dropped and the Markdown 404 is sent
 * instead, or, when the host answered a 5xx, that failure in Markdown.
 */
function onlyMarkdown(req: Request, res: Response, cors: boolean): void {
  const { write, end } = res;
  const restore = () => {
    res.write = write;
    res.end = end;
  };
  const isMarkdown = () => res.headersSent || /^text\/markdown\b/i.test(String(res.getHeader('content-type') ?? ''));
  const instead = () => (res.statusCode >= 500 ? sendMarkdownError(req, res, hostFailure(res), cors) : sendMarkdownNotFoundNow(req, res, cors));
  res.write = function twinWrite(this: Response, ...args: unknown[]) {
    restore();
    if (isMarkdown()) return (write as (...a: unknown[]) => boolean).apply(this, args);
    instead();
    return true;
  } as Response['write'];
  res.end = function twinEnd(this: Response, ...args: unknown[]) {
    restore();
    if (isMarkdown()) return (end as (...a: unknown[]) => Response).apply(this, args);
    instead();
    return this;
  } as Response['end'];
}
