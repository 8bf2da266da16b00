import type { Request, Response } from 'express';
import etag from 'etag';
import { isNotModified } from './conditional.js';
import { HttpError } from './errors.js';
import { sendMarkdownNotFound } from './markdown-not-found.js';
import { estimateMarkdownTokens, MARKDOWN_TOKENS_HEADER } from './markdown-tokens.js';

/** Cache policy of content reads: always revalidate, with a strong ETag. */
export const CONTENT_CACHE_CONTROL = 'public, max-age=0, must-revalidate';
/**
 * Cache policy of answers that depend on who asks (the compatibility reads): no shared cache may
 * keep them, and no ETag is offered.
 */
export const PER_CALLER_CACHE_CONTROL = 'private, no-store';
/** The media type of every JSON envelope. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/**
 * Cache policy of Markdown negotiated on a page URL: never stored by a shared cache, so a CDN that
 * ignores `Vary: Accept` cannot serve it to a browser. The dedicated Markdown URL stays public.
 */
export const NEGOTIATED_CACHE_CONTROL = 'private, max-age=0, must-revalidate';
/** The media type of every Markdown answer. */
export const MARKDOWN_CONTENT_TYPE = 'text/markdown; charset=utf-8';
/** Cache policy of discovery documents. */
export const DISCOVERY_CACHE_CONTROL = 'no-cache';
/** API responses are not for search engines. */
export const API_ROBOTS = 'noindex, nofollow';

/** Every plugin response declares its media type final: browsers must not sniff another one. */
export function setNoSniff(res: Response): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

export interface Representation {
  body: string | Buffer;
  contentType: string;
  cacheControl: string;
  headers?: Record<string, string> | undefined;
  /** Larger bodies are refused with 413 instead of being sent. */
  maxBytes?: number;
  /** The strong ETag of `body`, when it is known already (a `FixedBody`): not hashed again. */
  etag?: string;
  /** A Markdown answer (or an llms file): it carries `x-markdown-tokens`, the estimate of its token count. */
  markdownTokens?: boolean;
}

/** A text body's UTF-8 bytes and their strong ETag, worked out once. */
export interface FixedBody {
  readonly bytes: Buffer;
  readonly etag: string;
}

const fixedBodies = new WeakMap<object, FixedBody>();

/**
 * Marks a text answer that is sent many times unchanged (a document built once per public base or
 * per settings value): its bytes and strong ETag are computed here, once, and `fixedBodyOf` hands
 * them to the responder instead of encoding and hashing the same text on every request.
 *
 * ```ts
 * const catalog = fixedBody({ body: JSON.stringify(buildApiCatalog(base)) })
 * fixedBodyOf(catalog) // { bytes: <Buffer …>, etag: '"1f4-…"' }
 * ```
 */
export function fixedBody<T extends { body: string }>(text: T): T {
  const bytes = Buffer.from(text.body, 'utf8');
  fixedBodies.set(text, Object.freeze({ bytes, etag: etag(bytes) }));
  return text;
}

/** The bytes and ETag of a text answer marked by `fixedBody`, else undefined. */
export function fixedBodyOf(text: object): FixedBody | undefined {
  return fixedBodies.get(text);
}

/**
 * Sends a 200 representation with a strong ETag over its bytes; a matching `If-None-Match` gets 304
 * (GET and HEAD alike; HEAD gets the headers only), whatever cache directives the request carries.
 * Never sets a cookie.
 */
export function sendRepresentation(req: Request, res: Response, r: Representation): void {
  const bytes = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
  if (r.maxBytes !== undefined && bytes.length > r.maxBytes) {
    throw new HttpError(413, 'payload_too_large', `the response would exceed ${r.maxBytes} bytes; narrow the request`);
  }
  res.removeHeader('Set-Cookie');
  setNoSniff(res);
  // The status set directly: Express's `res.status` validates its argument, on every request.
  res.statusCode = 200;
  const headers = r.headers;
  if (headers) for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader('Content-Type', r.contentType);
  res.setHeader('Cache-Control', r.cacheControl);
  const tag = r.etag ?? etag(bytes);
  res.setHeader('ETag', tag);
  if (r.markdownTokens) res.setHeader(MARKDOWN_TOKENS_HEADER, String(estimateMarkdownTokens(bytes.length)));
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined && isNotModified(ifNoneMatch, tag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.setHeader('Content-Length', String(bytes.length));
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

/**
 * Sends a 200 answer that depends on who asks: `Cache-Control: private, no-store`, no ETag, no size
 * bound, and the host's own headers (a refreshed session cookie) left alone. HEAD gets the headers only.
 */
export function sendPerCaller(req: Request, res: Response, r: Pick<Representation, 'body' | 'contentType'>): void {
  const bytes = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
  res.statusCode = 200;
  setNoSniff(res);
  res.setHeader('Content-Type', r.contentType);
  res.setHeader('Cache-Control', PER_CALLER_CACHE_CONTROL);
  res.setHeader('Content-Length', String(bytes.length));
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

/** Sends an error envelope: `no-store`, never cached, never a cookie. */
export function sendErrorEnvelope(res: Response, error: HttpError, extraHeaders: Record<string, string> = {}): void {
  if (error.status === 404) {
    // An agent that asked for Markdown gets a Markdown 404 pointing to search and llms.txt.
    res.removeHeader('Set-Cookie');
    res.removeHeader('ETag');
    if (sendMarkdownNotFound(res.req, res)) return;
    res.setHeader('Vary', 'Accept');
  }
  const body = Buffer.from(JSON.stringify({ status: 'error', error: error.code, message: error.message }));
  res.removeHeader('Set-Cookie');
  res.removeHeader('ETag');
  setNoSniff(res);
  res.status(error.status);
  for (const [name, value] of Object.entries({ ...extraHeaders, ...error.headers })) res.setHeader(name, value);
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', String(body.length));
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
