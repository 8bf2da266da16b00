import type { Request } from 'express';
import { CHECK_USER_AGENT, createSiteClient } from '../check/site-client.js';
import { absoluteUrl } from '../http/urls.js';
import { requestInProcess, type RequestListener } from './in-process-request.js';

/**
 * How the admin overview looks at the site's own documents. Never at an address a request names: with
 * `baseUrl` configured, that public URL is fetched as an agent would (over the network, the bounded
 * client of `check`); without it, the host's Express app answers the request itself, in-process, so the
 * `Host` of the admin's request is only a header and no connection is made anywhere.
 */
export interface SiteProbe {
  /** How the documents were reached, as the overview says it. */
  readonly via: 'baseUrl' | 'in-process';
  /** Requests `path` (a site path such as `/llms.txt`); a failure comes back as `{ error }`, never thrown. */
  get(path: string): Promise<ProbeResponse>;
  /** Ends the probe (closes the network client's kept-alive connections). */
  close(): void;
}

/** What one probe got: a status, the media type and the body's size, or why there is none. */
export type ProbeResponse = { readonly status: number; readonly type: string; readonly bytes: number; readonly error?: undefined } | { readonly error: string };

/** The limits of one overview: a timeout per document, the body read up to this size. */
const TIMEOUT_MS = 5000;
const MAX_BODY_BYTES = 1024 * 1024;

/** The configured public base URL, fetched over the network (same origin only, no redirects followed). */
export function networkProbe(base: string): SiteProbe {
  const client = createSiteClient(new URL(base).origin, { maxRequests: 16, timeoutMs: TIMEOUT_MS, maxBodyBytes: MAX_BODY_BYTES });
  return {
    via: 'baseUrl',
    async get(path) {
      const r = await client.fetch(absoluteUrl(base, path));
      if (r.error !== undefined) return { error: r.error };
      return { status: r.status, type: r.headers.get('content-type') ?? '', bytes: Buffer.byteLength(r.body) };
    },
    close: () => client.close(),
  };
}

/** The app a request is handled by, up to the one the server runs (a mounted sub-app's `parent`). */
function rootApp(req: Request): RequestListener {
  let app = req.app as Request['app'] & { parent?: Request['app'] };
  while (app.parent) app = app.parent;
  return app as unknown as RequestListener;
}

/**
 * The host's own Express app, asked in-process (`requestInProcess`: no socket, no connection): an
 * anonymous GET as an agent would send it, with `base`'s host as its `Host` header and its scheme as
 * `X-Forwarded-Proto` (which counts only where `trust proxy` trusts loopback).
 */
export function inProcessProbe(req: Request, base: string): SiteProbe {
  const app = rootApp(req);
  const { host, protocol } = new URL(base);
  const headers = { host, accept: '*/*', 'user-agent': CHECK_USER_AGENT, 'x-forwarded-proto': protocol.slice(0, -1) };
  return {
    via: 'in-process',
    async get(path) {
      try {
        const res = await requestInProcess(app, path, { headers, timeoutMs: TIMEOUT_MS, maxBodyBytes: MAX_BODY_BYTES });
        const length = Number(res.headers['content-length']);
        return { status: res.status, type: res.headers['content-type'] ?? '', bytes: Number.isSafeInteger(length) ? length : res.body.length };
      } catch (error) {
        return { error: error instanceof Error ? error.message : String(error) };
      }
    },
    close() {},
  };
}
