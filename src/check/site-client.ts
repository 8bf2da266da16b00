import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/** The limits every check run keeps to. */
export interface SiteClientLimits {
  /** The most requests one run makes. */
  readonly maxRequests: number;
  /** Per request, headers and body included, in milliseconds. */
  readonly timeoutMs: number;
  /** A response body is read up to this many bytes; the rest is dropped. */
  readonly maxBodyBytes: number;
  /** The address to connect to instead of looking the origin's host name up (curl's `--resolve`). */
  readonly connectTo?: string;
}

/** What one request got: a response, or why there is none. */
export type SiteResponse =
  | {
      readonly url: string;
      readonly status: number;
      readonly headers: Headers;
      readonly body: string;
      /** True when the body was longer than `maxBodyBytes`. */
      readonly truncated: boolean;
      readonly error?: undefined;
    }
  | {
      readonly url: string;
      readonly error: string;
      /** True when nothing answered at all (connection refused, no such host, reset, timed out connecting). */
      readonly unreachable?: boolean;
      readonly status?: undefined;
    };

export interface SiteRequest {
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'OPTIONS';
  readonly accept?: string;
  /** More request headers (`Origin`, `Content-Type`, `MCP-Protocol-Version`, …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A request body (POST). */
  readonly body?: string;
}

/** A same-origin, bounded HTTP client for one site. */
export interface SiteClient {
  readonly origin: string;
  /** Requests made so far. */
  readonly requests: number;
  /**
   * Requests `url` (absolute, or relative to the origin) without following redirects. Another
   * origin, a used-up budget, a timeout or a network error come back as `{ error }`, never thrown.
   * Identical requests are made once.
   */
  fetch(url: string, request?: SiteRequest): Promise<SiteResponse>;
  /** Closes the client's kept-alive connections (the run is over). */
  close(): void;
}

/** The `User-Agent` of the checker. */
export const CHECK_USER_AGENT = 'express-agent-discovery-check';

/** True when `url` is on `origin` (same scheme, host and port). */
export function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

/** Network error codes meaning nothing answered at that address. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** TLS errors: no client that checks certificates gets a response either. */
const TLS_FAILURE = /^(?:ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(?:VERIFY|GET)_)/;

/** A lookup that answers every host name with `address` (IPv4 or IPv6 literal). */
const fixedLookup = (address: string): LookupFunction =>
  ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const family = address.includes(':') ? 6 : 4;
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;

/** One request over node:http(s), its body read up to `maxBodyBytes`. */
function request(url: string, req: Required<Pick<SiteRequest, 'method'>> & SiteRequest, limits: SiteClientLimits, agent: http.Agent): Promise<SiteResponse> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const headers: Record<string, string> = { accept: req.accept ?? '*/*', 'user-agent': CHECK_USER_AGENT, ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const send = u.protocol === 'https:' ? https.request : http.request;
    let settled = false;
    const done = (r: SiteResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const outgoing = send(u, { method: req.method, headers, agent, ...(limits.connectTo ? { lookup: fixedLookup(limits.connectTo) } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        if (size + chunk.byteLength > limits.maxBodyBytes) {
          chunks.push(chunk.subarray(0, limits.maxBodyBytes - size));
          truncated = true;
          res.destroy();
          finish();
          return;
        }
        chunks.push(chunk);
        size += chunk.byteLength;
      });
      const finish = () => {
        const h = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) h.append(name, v);
        }
        done({ url, status: res.statusCode ?? 0, headers: h, body: Buffer.concat(chunks).toString('utf8'), truncated });
      };
      res.on('end', finish);
      res.on('error', (error: NodeJS.ErrnoException) => done({ url, error: error.code ?? error.message }));
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      done({ url, error: `timed out after ${limits.timeoutMs} ms`, ...(!outgoing.socket || outgoing.socket.connecting ? { unreachable: true } : {}) });
    }, limits.timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message;
      done({ url, error: code, ...(UNREACHABLE.has(code) || TLS_FAILURE.test(code) ? { unreachable: true } : {}) });
    });
    outgoing.end(req.body);
  });
}

/**
 * A client bound to `origin` and to `limits`: the only way the checks reach the network.
 *
 * ```ts
 * const client = createSiteClient('https://example.com', { maxRequests: 60, timeoutMs: 5000, maxBodyBytes: 2 * 1024 * 1024 });
 * const res = await client.fetch('/llms.txt');  // GET https://example.com/llms.txt, redirects not followed
 * ```
 */
export function createSiteClient(origin: string, limits: SiteClientLimits): SiteClient {
  let requests = 0;
  const made = new Map<string, Promise<SiteResponse>>();
  // The run's own connections: kept alive between its requests, never shared with another run or with
  // the process's global agent (a connection opened through `connectTo` must not serve a later request
  // that resolves the same host name, and a later run must look the host up again).
  const agent = new (origin.startsWith('https:') ? https.Agent : http.Agent)({ keepAlive: true });

  function send(url: string, req: Required<Pick<SiteRequest, 'method'>> & SiteRequest): Promise<SiteResponse> {
    if (requests >= limits.maxRequests) return Promise.resolve({ url, error: `not requested: the budget of ${limits.maxRequests} requests is used up` });
    requests += 1;
    return request(url, req, limits, agent);
  }

  return {
    origin,
    close: () => agent.destroy(),
    get requests() {
      return requests;
    },
    fetch(target, { method = 'GET', ...rest } = {}) {
      let url: string;
      try {
        url = new URL(target, `${origin}/`).toString();
      } catch {
        return Promise.resolve({ url: target, error: 'not a URL' });
      }
      if (!sameOrigin(url, origin)) return Promise.resolve({ url, error: `not requested: ${new URL(url).origin} is another origin` });
      const key = JSON.stringify([method, rest.accept ?? '*/*', url, rest.headers ?? {}, rest.body ?? null]);
      let pending = made.get(key);
      if (!pending) {
        pending = send(url, { method, ...rest });
        made.set(key, pending);
      }
      return pending;
    },
  };
}

/**
 * What became of a request, as a predicate: `answered 404`, `answered 301 (redirect to /x)`,
 * `was not requested: …` (another origin, the budget used up) or `failed: timed out after 5000 ms`.
 */
export function describeResponse(res: SiteResponse): string {
  if (res.error !== undefined) return res.error.startsWith('not requested') ? `was ${res.error}` : `failed: ${res.error}`;
  const location = res.headers.get('location');
  return `answered ${res.status}${res.status >= 300 && res.status < 400 && location ? ` (redirect to ${location})` : ''}`;
}

/** The media type of a response, lower case, without parameters. */
export function mediaType(res: SiteResponse): string {
  if (res.error !== undefined) return '';
  return (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}
