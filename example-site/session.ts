import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * The example CMS's administrator session: one signed cookie. Real CMSs have their own; the plugin
 * never reads it (its facade is always anonymous), which is what the tests prove.
 */
const COOKIE = 'example_session';

export interface SessionConfig {
  secret: string;
  adminPassword: string;
}

function sign(value: string, secret: string): string {
  return `${value}.${createHmac('sha256', secret).update(value).digest('base64url')}`;
}

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = decodeURIComponent(part.slice(eq + 1).trim());
  }
  return out;
}

/** True when the request carries a valid administrator session cookie. */
export function isAdmin(req: Request, config: SessionConfig): boolean {
  const cookie = parseCookies(req.get('cookie'))[COOKIE];
  if (!cookie) return false;
  const expected = sign('admin', config.secret);
  return cookie.length === expected.length && timingSafeEqual(Buffer.from(cookie), Buffer.from(expected));
}

/** The Set-Cookie value of a signed-in administrator (exported for tests). */
export function adminCookie(config: SessionConfig): string {
  return `${COOKIE}=${encodeURIComponent(sign('admin', config.secret))}`;
}

export function signIn(res: Response, config: SessionConfig): void {
  res.setHeader('Set-Cookie', `${adminCookie(config)}; Path=/; HttpOnly; SameSite=Lax`);
}

export function signOut(res: Response): void {
  res.setHeader('Set-Cookie', `${COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);
}
