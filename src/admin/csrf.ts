import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

/** The cookie holding the browser's random CSRF value (scoped to the admin path, HttpOnly, SameSite=Strict). */
export const CSRF_COOKIE = 'ead_admin_csrf';
/** The form field carrying the token. */
export const CSRF_FIELD = '_csrf';

const VALUE = /^[A-Za-z0-9_-]{43}$/;

/** The request's CSRF cookie value when it is well formed. */
function cookieValue(req: Request): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === CSRF_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return VALUE.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/**
 * Signed double-submit CSRF protection for the admin forms, without a session: the browser holds a
 * random value in a cookie only the admin path receives, and every form carries
 * `HMAC-SHA256(secret, value)`. A POST is accepted only when the two match; another site can
 * neither read the cookie nor compute the token.
 */
export interface CsrfGuard {
  /** The token for this browser's forms, setting the cookie when it has none. */
  token(req: Request, res: Response): string;
  /** Why the POST must be refused, or undefined when its token matches its cookie. */
  refusal(req: Request, submitted: unknown): string | undefined;
}

export function createCsrfGuard(secret: string | undefined): CsrfGuard {
  // Without a configured secret, one per process: forms loaded before a restart must be reloaded.
  const key = secret ?? randomBytes(32).toString('base64url');
  const sign = (value: string) => createHmac('sha256', key).update(`csrf:${value}`).digest('base64url');
  return {
    token(req, res) {
      let value = cookieValue(req);
      if (!value) {
        value = randomBytes(32).toString('base64url');
        const secure = req.secure ? '; Secure' : '';
        res.append('Set-Cookie', `${CSRF_COOKIE}=${value}; Path=${req.baseUrl || '/'}; HttpOnly; SameSite=Strict${secure}`);
      }
      return sign(value);
    },
    refusal(req, submitted) {
      if (req.get('sec-fetch-site') === 'cross-site') return 'the form was submitted from another site';
      const value = cookieValue(req);
      if (!value) return 'the CSRF cookie is missing (cookies must be enabled for the admin pages)';
      if (typeof submitted !== 'string' || submitted === '') return 'the form carries no CSRF token';
      const given = Buffer.from(submitted);
      const wanted = Buffer.from(sign(value));
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return 'the form\'s CSRF token does not match';
      return undefined;
    },
  };
}
