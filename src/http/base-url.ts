import type { Request } from 'express';
import { HttpError } from './errors.js';

const HOST = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\])(?::\d{1,5})?$/;

/**
 * The public origin absolute URLs are built on: the configured base URL, else the request's origin
 * as Express sees it. `X-Forwarded-Proto` and `X-Forwarded-Host` count only when the host app's
 * `trust proxy` setting trusts the peer (the same rule Express 5 applies; done by hand so that it also
 * holds when the router is mounted in an Express 4 app).
 */
export function publicBaseUrl(req: Request, configured: string | undefined): string {
  if (configured) return configured;
  const trust = req.app.get('trust proxy fn') as ((addr: string | undefined, i: number) => boolean) | undefined;
  const trusted = Boolean(trust?.(req.socket.remoteAddress, 0));
  let host = req.get('host');
  if (trusted) {
    const forwarded = req.get('x-forwarded-host');
    if (forwarded) host = forwarded.split(',')[0]!.trim();
  }
  if (!host || !HOST.test(host)) throw new HttpError(400, 'bad_request', 'header "Host": not a valid host name');
  // req.protocol already applies trust proxy to X-Forwarded-Proto in Express 4 and 5.
  const protocol = req.protocol === 'https' ? 'https' : 'http';
  return `${protocol}://${host.toLowerCase()}`;
}
