import type { Request } from 'express';
import { HttpError } from './errors.js';

const LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
/** A DNS name or a bracketed IPv6 literal, then an optional port of one to five digits. */
const HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-fA-F:.]+\\])(?::(\\d{1,5}))?$`);
/** A DNS name is at most 253 characters; with a port, 259. */
const MAX_HOST_LENGTH = 259;

/** The error every unusable host gets: a 400 that names the header. */
const badHost = (header: string): HttpError => new HttpError(400, 'bad_request', `header "${header}": not a valid host name`);

/**
 * `http(s)://host[:port]` when `host` is a usable host name (a DNS name or bracketed IPv6 literal,
 * a port from 0 to 65535, no more than 259 characters, and a URL parser accepts it), else undefined.
 *
 * ```ts
 * originOf('http', 'Example.org:8080') // 'http://example.org:8080'
 * originOf('http', 'example.org:65536') // undefined
 * ```
 */
function originOf(protocol: 'http' | 'https', host: string): string | undefined {
  const known = knownOrigins[protocol];
  const seen = known.get(host);
  if (seen !== undefined) return seen;
  const origin = checkedOrigin(protocol, host);
  if (origin !== undefined) {
    if (known.size >= MAX_KNOWN_ORIGINS) known.clear();
    known.set(host, origin);
  }
  return origin;
}

/**
 * The usable hosts seen (a handful per process), with their origins: every request of a site without
 * `baseUrl` works its origin out from the same `Host`. Past 64 the memo starts over.
 */
const knownOrigins = { http: new Map<string, string>(), https: new Map<string, string>() };
const MAX_KNOWN_ORIGINS = 64;

/** `originOf` without the memo. */
function checkedOrigin(protocol: 'http' | 'https', host: string): string | undefined {
  if (host.length > MAX_HOST_LENGTH) return undefined;
  const match = HOST.exec(host);
  if (!match) return undefined;
  if (match[1] !== undefined && Number(match[1]) > 65535) return undefined;
  const origin = `${protocol}://${host.toLowerCase()}`;
  // The last word is the WHATWG URL parser's: every absolute URL is later built on this origin.
  return URL.canParse(`${origin}/`) ? origin : undefined;
}

/**
 * The public origin absolute URLs are built on: the configured base URL, else the request's origin
 * as Express sees it. `X-Forwarded-Proto` and `X-Forwarded-Host` count only when the host app's
 * `trust proxy` setting trusts the peer (the same rule Express 5 applies; done by hand so that it also
 * holds when the router is mounted in an Express 4 app). A missing or unusable host (an out-of-range
 * port, a malformed name) is a 400 naming the header it came from.
 */
export function publicBaseUrl(req: Request, configured: string | undefined): string {
  if (configured) return configured;
  const trust = req.app.get('trust proxy fn') as ((addr: string | undefined, i: number) => boolean) | undefined;
  const trusted = Boolean(trust?.(req.socket.remoteAddress, 0));
  let host = req.get('host');
  let header = 'Host';
  if (trusted) {
    const forwarded = req.get('x-forwarded-host');
    if (forwarded) {
      host = forwarded.split(',')[0]!.trim();
      header = 'X-Forwarded-Host';
    }
  }
  // req.protocol already applies trust proxy to X-Forwarded-Proto in Express 4 and 5.
  const origin = host ? originOf(req.protocol === 'https' ? 'https' : 'http', host) : undefined;
  if (!origin) throw badHost(header);
  return origin;
}
