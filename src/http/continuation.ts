import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from './errors.js';

/**
 * Opaque keyset continuations carried in `next_url` (`cursor=`). The token binds the position to
 * the query it came from (route and every other parameter) and carries a MAC, so an edited or
 * transplanted token is a 400. A position grants nothing: every page is filtered by visibility anyway.
 */
const KEY = 'express-agent-discovery/continuation/v1';

function mac(payload: string): string {
  return createHmac('sha256', KEY).update(payload).digest('base64url').slice(0, 22);
}

/** Encodes a keyset position for the query `scope`. */
export function encodeContinuation(scope: string, position: readonly (string | number)[]): string {
  const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
  return `${payload}.${mac(`${scope}\n${payload}`)}`;
}

/** Decodes a continuation made for `scope`; anything malformed, edited or from another query is a 400. */
export function decodeContinuation(scope: string, token: string): (string | number)[] {
  const [payload, given] = token.split('.');
  const expected = mac(`${scope}\n${payload ?? ''}`);
  if (!payload || !given || given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
    throw badRequest('cursor', 'malformed, tampered with or from another query');
  }
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('cursor', 'malformed continuation');
  }
  if (!Array.isArray(position) || !position.every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw badRequest('cursor', 'malformed continuation');
  }
  return position;
}

/** The scope string of a query: the route plus its parameters except the paging position. */
export function continuationScope(route: string, params: Record<string, unknown>): string {
  const rest = Object.entries(params)
    .filter(([k, v]) => k !== 'page' && k !== 'cursor' && v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `${route}?${JSON.stringify(rest)}`;
}
