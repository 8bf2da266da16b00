import type { Request } from 'express';
import { z } from 'zod';
import { badRequest } from './errors.js';
import { RESOURCE_REF_PATTERN, refFromText } from '../content/resource-ref.js';
import { requestTarget } from './request-target.js';

/** A route's query parameters: each value arrives as one string. */
export type QuerySchema = z.ZodType<Record<string, unknown>, Record<string, string | undefined>> & {
  shape?: Record<string, z.ZodType>;
};

/** The most candidates a paged read explores (`page × pagelen`). */
export const CANDIDATE_LIMIT = 10_000;
export const DEFAULT_PAGELEN = 20;
export const MAX_PAGELEN = 100;

/**
 * The raw query of the request as ordered name/value pairs, read from `req.originalUrl` rather than
 * `req.query` (whose parser belongs to the host app).
 */
export function rawQueryPairs(req: Request): [string, string][] {
  const { query } = requestTarget(req);
  if (!PLAIN_QUERY.test(query)) return [...new URLSearchParams(query)];
  // Nothing to decode: the pairs URLSearchParams would give, without building one.
  const pairs: [string, string][] = [];
  for (const part of query.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    pairs.push(eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)]);
  }
  return pairs;
}

/**
 * A query that form-urlencoded parsing leaves as written: printable ASCII without `%` or `+` (nothing
 * to decode), not starting with the `?` that `URLSearchParams` would drop.
 */
const PLAIN_QUERY = /^(?!\?)[!-$&-*,-~]*$/;

/** C0 controls other than tab, line feed and carriage return, and DEL: never meaningful in a query. */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/**
 * Parses name/value pairs strictly (a request's query, as `rawQueryPairs` reads it, or an MCP tool's
 * arguments): an unknown parameter, a parameter given twice or a value the schema rejects is a 400
 * naming the parameter and the reason.
 */
export function parsePairs<S extends z.ZodObject>(pairs: readonly (readonly [string, string])[], schema: S): z.output<S> {
  const known = schema.shape as Record<string, unknown>;
  const values: Record<string, string> = {};
  for (const [name, value] of pairs) {
    if (!Object.hasOwn(known, name)) throw badRequest(name, 'unknown parameter');
    if (Object.hasOwn(values, name)) throw badRequest(name, 'given more than once');
    if (CONTROL_CHARACTERS.test(value)) throw badRequest(name, 'contains a control character');
    values[name] = value;
  }
  return parseValues(schema, values);
}

/** Validates already-separated values (path parameters) against a schema, naming the parameter on failure. */
export function parseValues<S extends z.ZodType>(schema: S, values: Record<string, string | undefined>): z.output<S> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw badRequest(String(issue.path[0] ?? 'query'), issue.message);
}

/** A decimal integer parameter within bounds (no signs, exponents, hex or spaces). */
export function integerParam(min: number, max: number) {
  return z
    .string()
    .regex(/^[0-9]{1,15}$/, 'expected a decimal integer')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

/** `page` and `pagelen` with the candidate bound `page × pagelen ≤ 10000`. */
export const pagingShape = {
  page: integerParam(1, CANDIDATE_LIMIT).optional().default(1).describe('Page number, starting at 1.'),
  pagelen: integerParam(1, MAX_PAGELEN)
    .optional()
    .default(DEFAULT_PAGELEN)
    .describe('Items per page (1..100).'),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,1024}$/, 'malformed continuation')
    .optional()
    .describe('Opaque continuation from next_url; do not build it yourself.'),
};

/** Rejects `page × pagelen > 10000`, naming `page`. Apply to an object schema with pagingShape. */
export function withCandidateBound<S extends z.ZodObject>(schema: S) {
  return schema.superRefine((v: { page?: number; pagelen?: number }, ctx) => {
    if ((v.page ?? 1) * (v.pagelen ?? DEFAULT_PAGELEN) > CANDIDATE_LIMIT) {
      ctx.addIssue({ code: 'custom', path: ['page'], message: `page × pagelen must be at most ${CANDIDATE_LIMIT}` });
    }
  });
}

/** `language`: one of the site's languages; the default is the site's. */
export function languageParam(languages: readonly string[], defaultLanguage: string) {
  return z
    .enum(languages as [string, ...string[]], { error: `expected one of ${languages.join(', ')}` })
    .optional()
    .default(defaultLanguage)
    .describe('Language to read in; falls back to the site language, then the resource\'s first language.');
}

/** A numeric id or a unique name (the rule of `content/resource-ref.ts`): how any resource is referenced. */
export function idOrName(what: string) {
  return z
    .string()
    .regex(RESOURCE_REF_PATTERN, `expected a numeric id or a ${what} name`)
    .transform(refFromText);
}

/** A resource reference in a path: a numeric id or a unique name. */
export const resourceRef = idOrName('resource').describe('Resource id or unique name.');

/** A `YYYY-MM-DD` date that exists in the calendar, as the UTC midnight that starts it. */
export const calendarDate = z
  .string()
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, 'expected a date as YYYY-MM-DD')
  .refine((v) => {
    const [y, m, d] = v.split('-').map(Number) as [number, number, number];
    const t = new Date(0);
    t.setUTCFullYear(y, m - 1, d);
    return y >= 1 && t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
  }, 'not a real calendar date');

/** The UTC instant a `YYYY-MM-DD` date starts at, plus `days`; undefined past the year 9999. */
export function dayStart(date: string, days = 0): Date | undefined {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d + days);
  return t.getUTCFullYear() > 9999 ? undefined : t;
}
