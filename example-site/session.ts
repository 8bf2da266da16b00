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

/** `decodeURIComponent`, or undefined for a value that is not valid percent-encoding (`100%`). */
function decodeCookieValue(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/**
 * The request's cookies by name. Cookies are the client's input: a value that does not decode is
 * skipped (it is nobody's session), never an error; the first of two cookies with one name wins.
 */
function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = decodeCookieValue(part.slice(eq + 1).trim());
    if (value !== undefined && !out.has(name)) out.set(name, value);
  }
  return out;
}

/** True when the request carries a valid administrator session cookie. */
export function isAdmin(req: Request, config: SessionConfig): boolean {
  const cookie = parseCookies(req.get('cookie')).get(COOKIE);
  if (!cookie) return false;
  const expected = sign('admin', config.secret);
  const given = Buffer.from(cookie);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
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

/**
 * The CSRF token of the administrator's forms: bound to the signed session cookie, so a page of
 * another site can neither read nor compute it. Undefined without a session.
 */
export function csrfToken(req: Request, config: SessionConfig): string | undefined {
  const cookie = parseCookies(req.get('cookie')).get(COOKIE);
  return cookie ? createHmac('sha256', config.secret).update(`csrf:${cookie}`).digest('base64url') : undefined;
}

/** True when the posted token is this session's. */
export function validCsrf(req: Request, config: SessionConfig, submitted: unknown): boolean {
  const wanted = csrfToken(req, config);
  if (!wanted || typeof submitted !== 'string') return false;
  const a = Buffer.from(submitted);
  const b = Buffer.from(wanted);
  return a.length === b.length && timingSafeEqual(a, b);
}
