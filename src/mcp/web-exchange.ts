import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Request, Response } from 'express';

/**
 * Request headers the MCP server never sees: the hop-by-hop ones, the body's framing (the body is
 * handed over parsed), `Host` (the URL carries the validated public origin) and the caller's
 * credentials (the endpoint is anonymous: a cookie or token must not reach a tool, even by mistake).
 */
const DROPPED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'expect',
  'cookie',
  'authorization',
  'proxy-authorization',
]);

/**
 * The Express request as a web-standard `Request` for `url`, without a body (the MCP handler takes
 * the parsed JSON as `parsedBody`); `signal` aborts it when the client goes away.
 *
 * ```ts
 * webRequest(req, 'https://example.org/mcp', controller.signal)
 * // POST https://example.org/mcp, headers as sent minus Host, Cookie, Authorization and framing
 * ```
 */
export function webRequest(req: Request, url: string, signal: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new globalThis.Request(url, { method: req.method, headers, signal });
}

/** Writes a web-standard `Response` to the Express response: status, headers, then the body, streamed. */
export async function sendWebResponse(res: Response, response: globalThis.Response): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') res.setHeader(name, value);
  });
  if (!response.body) return void res.end();
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res);
}
