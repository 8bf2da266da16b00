import type { Request } from 'express';
import type { AgentContext } from '../context.js';

/** A loopback socket address: 127.0.0.0/8 (also IPv4-mapped) or ::1. */
function isLoopbackAddress(address: string | undefined): boolean {
  return address === '::1' || /^(?:::ffff:)?127\./.test(address ?? '');
}

/** A host name that means "this machine": `localhost`, 127.0.0.0/8 or `[::1]` (as the URL parser writes them). */
function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The serialized origin of an `Origin` header or a base URL; undefined for `null` and anything unparsable. */
function originOfUrl(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const origin = new URL(value).origin;
  return origin === 'null' ? undefined : origin;
}

/**
 * The origin of the site's own pages: the configured `baseUrl`'s, else the request's (its validated
 * `Host`, or `X-Forwarded-Host` from a trusted proxy). None when the request cannot say: an unusable
 * host, or a request that reached a loopback address under a `Host` that is not a loopback name,
 * which is what a page on `evil.example` whose name now resolves to 127.0.0.1 sends (DNS rebinding).
 */
function ownOrigin(ctx: AgentContext, req: Request): string | undefined {
  let base: string;
  try {
    base = ctx.baseUrl(req);
  } catch {
    return undefined;
  }
  if (!ctx.options.baseUrl && isLoopbackAddress(req.socket.localAddress)) {
    const host = req.get('host') ?? '';
    if (!URL.canParse(`http://${host}`) || !isLoopbackName(new URL(`http://${host}`).hostname)) return undefined;
  }
  return originOfUrl(base);
}

/**
 * Whether the MCP endpoint may answer this request. A request without `Origin` (a server-side agent)
 * may; one with `Origin` (a browser) only from the site's own origin or one of `allowedOrigins`.
 *
 * ```ts
 * // baseUrl https://example.org, allowedOrigins ['http://localhost:6274']
 * // Origin: https://example.org → true; Origin: http://localhost:6274 → true
 * // Origin: https://evil.example → false; Origin: null → false; no Origin → true
 * ```
 */
export function mcpOriginAllowed(ctx: AgentContext, allowedOrigins: ReadonlySet<string>, req: Request): boolean {
  const header = req.get('origin');
  if (header === undefined) return true;
  const origin = originOfUrl(header);
  if (origin === undefined) return false;
  return allowedOrigins.has(origin) || origin === ownOrigin(ctx, req);
}
