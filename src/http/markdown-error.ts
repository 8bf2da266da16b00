import { STATUS_CODES } from 'node:http';
import type { Request, Response } from 'express';
import { setPublicCorsHeaders } from './cors.js';
import { HttpError } from './errors.js';
import { estimateMarkdownTokens, MARKDOWN_TOKENS_HEADER } from './markdown-tokens.js';

/**
 * The response header of a page whose Markdown was asked for (negotiated on a page URL or on `/`) and
 * could not be read, so that the host's HTML went out instead: its value is the error code of the
 * read (`timeout`, `unavailable`, `payload_too_large`, `internal_error`).
 *
 * ```http
 * GET /en/page/22   Accept: text/markdown   →  200 text/html   Vary: Accept   X-Markdown-Fallback: timeout
 * ```
 */
export const MARKDOWN_FALLBACK_HEADER = 'X-Markdown-Fallback';

/** When to ask again after a stalled or unavailable database, unless the error says otherwise. */
const DEFAULT_RETRY_AFTER = '5';

/** What a host may have set for the answer it meant to send, and a Markdown error or 404 must not carry. */
const NOT_FOR_AN_ERROR = ['Set-Cookie', 'ETag', 'Last-Modified', 'Location', 'Content-Location', 'Content-Language', 'Content-Encoding', 'Content-Disposition'];

/** Drops the headers of the answer a host meant to send (a `.md` twin answered with an error or the 404 instead). */
export function dropHostAnswerHeaders(res: Response): void {
  for (const name of NOT_FOR_AN_ERROR) res.removeHeader(name);
}

/**
 * Writes a Markdown answer that is not the page (an error or the Markdown 404): `no-store`, `Vary:
 * Accept`; with `cors`, the public CORS headers.
 */
export function writeMarkdownAnswer(req: Request, res: Response, status: number, markdown: string, cors: boolean, headers: Record<string, string> = {}): void {
  if (cors) setPublicCorsHeaders(res);
  const body = Buffer.from(markdown);
  res.status(status);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/markdown; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Vary', 'Accept');
  res.setHeader(MARKDOWN_TOKENS_HEADER, String(estimateMarkdownTokens(body.length)));
  res.setHeader('Content-Length', String(body.length));
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * Answers a `.md` twin whose Markdown could not be read with the error itself, in Markdown: its
 * status (503 or 504 for a database that is unavailable or over budget, with `Retry-After`), never
 * the Markdown 404 (the page may well be public).
 *
 * ```markdown
 * # Gateway Timeout
 *
 * This page's Markdown could not be read: the request exceeded its 5-second budget. Retry in 5 seconds.
 * ```
 */
export function sendMarkdownError(req: Request, res: Response, error: HttpError, cors: boolean): void {
  const retry = error.status === 503 || error.status === 504 ? (error.headers['Retry-After'] ?? DEFAULT_RETRY_AFTER) : undefined;
  const markdown = [
    `# ${STATUS_CODES[error.status] ?? 'Error'}`,
    '',
    `This page's Markdown could not be read: ${error.message}.${retry ? ` Retry in ${retry} seconds.` : ''}`,
    '',
  ].join('\n');
  dropHostAnswerHeaders(res);
  writeMarkdownAnswer(req, res, error.status, markdown, cors, retry ? { 'Retry-After': retry } : {});
}

/**
 * The error a host's own 5xx on a `.md` twin stands for (its status, and its `Retry-After` when it
 * set one), so that the twin answers that failure in Markdown rather than the Markdown 404.
 */
export function hostFailure(res: Response): HttpError {
  const status = res.statusCode;
  const retry = res.getHeader('Retry-After');
  const code = status === 503 ? 'unavailable' : status === 504 ? 'timeout' : 'internal_error';
  return new HttpError(status, code, 'the site could not answer this page right now', retry === undefined ? {} : { 'Retry-After': String(retry) });
}

/**
 * What `onError` receives when Markdown negotiated on a page URL or `/` could not be read for an
 * expected reason (a database unavailable or over budget, a body over `maxBodyBytes`) and the host's
 * HTML went out instead; `code` is the value of {@link MARKDOWN_FALLBACK_HEADER}.
 */
export class MarkdownFallbackError extends Error {
  override readonly name = 'MarkdownFallbackError';
  constructor(
    readonly code: HttpError['code'],
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`the Markdown asked for fell back to the host's HTML: ${message}`, options);
  }
}

/** Whether a fallback was for a database that did not answer (reading it again for the page would wait again). */
export function fellBackOnStall(res: Response): boolean {
  const code = res.getHeader(MARKDOWN_FALLBACK_HEADER);
  return code === 'timeout' || code === 'unavailable';
}
