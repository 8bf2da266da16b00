/** The limits every check run keeps to. */
export interface SiteClientLimits {
  /** The most requests one run makes. */
  readonly maxRequests: number;
  /** Per request, headers and body included, in milliseconds. */
  readonly timeoutMs: number;
  /** A response body is read up to this many bytes; the rest is dropped. */
  readonly maxBodyBytes: number;
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
  | { readonly url: string; readonly error: string; readonly status?: undefined };

export interface SiteRequest {
  readonly method?: 'GET' | 'HEAD';
  readonly accept?: string;
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

/** Reads at most `max` bytes of a body, then cancels the rest. */
async function readCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<{ text: string; truncated: boolean }> {
  if (!body) return { text: '', truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated };
}

/** Why a fetch failed, in a few words. */
function failure(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}

/**
 * A client bound to `origin` and to `limits`: the only way the checks reach the network.
 *
 * ```ts
 * const client = createSiteClient('https://example.com', { maxRequests: 60, timeoutMs: 5000, maxBodyBytes: 2 * 1024 * 1024 });
 * const res = await client.fetch('/llms.txt');  // GET https://example.com/llms.txt, redirect: 'manual'
 * ```
 */
export function createSiteClient(origin: string, limits: SiteClientLimits): SiteClient {
  let requests = 0;
  const made = new Map<string, Promise<SiteResponse>>();

  async function send(url: string, method: string, accept: string): Promise<SiteResponse> {
    if (requests >= limits.maxRequests) return { url, error: `not requested: the budget of ${limits.maxRequests} requests is used up` };
    requests += 1;
    const signal = AbortSignal.timeout(limits.timeoutMs);
    try {
      const res = await fetch(url, { method, redirect: 'manual', signal, headers: { accept, 'user-agent': CHECK_USER_AGENT } });
      const { text, truncated } = await readCapped(res.body, limits.maxBodyBytes);
      return { url, status: res.status, headers: res.headers, body: text, truncated };
    } catch (error) {
      return { url, error: failure(error, limits.timeoutMs) };
    }
  }

  return {
    origin,
    get requests() {
      return requests;
    },
    fetch(target, { method = 'GET', accept = '*/*' } = {}) {
      let url: string;
      try {
        url = new URL(target, `${origin}/`).toString();
      } catch {
        return Promise.resolve({ url: target, error: 'not a URL' });
      }
      if (!sameOrigin(url, origin)) return Promise.resolve({ url, error: `not requested: ${new URL(url).origin} is another origin` });
      const key = `${method} ${accept} ${url}`;
      let pending = made.get(key);
      if (!pending) {
        pending = send(url, method, accept);
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
