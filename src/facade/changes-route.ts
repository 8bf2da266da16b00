import { z } from 'zod';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { CHANGE_KIND, readChanges, type ChangePosition, type ChangeRow } from '../content/changes.js';
import { advertisedLanguage, chooseLanguage } from '../content/language.js';
import { pageUrlOf } from '../content/page-url.js';
import { toIso } from '../content/summaries.js';
import { badRequest, HttpError } from '../http/errors.js';
import type { FacadeCall } from '../http/facade-call.js';
import { buildPagedResult, pageScope, pageWindow } from '../http/paging.js';
import { languageParam, pagingShape, withCandidateBound } from '../http/parameters.js';
import { CONTENT_READ } from '../http/route.js';
import { absoluteUrl, formPair, resolveOnBase } from '../http/urls.js';
import { pagedResult } from '../representations/result-schemas.js';
import { facadeRoute, TOOL_PAGED, TOOL_READ_ONLY } from './facade-route.js';

/**
 * How far back `resume_url` starts from the newest entry it has seen (or from now, when that is
 * later): a change written by a transaction still open when the page was read, or pushed with a
 * `modified` a little in the past, is listed at a time the reader has passed. The position is the
 * start of the 30-second slot at least 30 seconds ago (30 to 60 seconds back), so the same page keeps
 * its `resume_url` and ETag within a slot; entries of those seconds may come again on the next visit.
 * The same 30 seconds as migration 0009's trigger.
 */
export const RESUME_SETTLE_MS = 30_000;

/** The continuation scope of the `since` tokens of `resume_url` (they hold a position, not a page). */
const SINCE_SCOPE = `${PATHS.changes.template}#since`;

/** An RFC 3339 date-time: a date, a time with optional seconds and fraction (to microseconds), and `Z` or an offset. */
const DATE_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,6}))?)?(Z|[+-][0-9]{2}:[0-9]{2})$/i;

/** A `since` date-time as a feed position (everything at it or later), else undefined when it is not one. */
export function sinceInstant(value: string): ChangePosition | undefined {
  const m = DATE_TIME.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  const day = new Date(0);
  day.setUTCFullYear(y, mo - 1, d);
  if (y < 1 || day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  const zone = m[8]!.toUpperCase();
  const offsetMinutes = zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const seconds = Math.floor(day.getTime() / 1000) + h * 3600 + mi * 60 + s - offsetMinutes * 60;
  return [seconds, Number((m[7] ?? '').padEnd(6, '0')), -1, 0];
}

/** The query of the change feed: it validates requests, feeds OpenAPI and is the MCP tool's input. */
export function changesQuery(options: ResolvedOptions) {
  return z
    .object({
      since: z
        .string()
        .refine((v) => sinceInstant(v) !== undefined || /^[A-Za-z0-9_-]{16,1024}$/.test(v), 'expected an RFC 3339 date-time (2026-12-01T00:00:00Z) or the since of a resume_url')
        .optional()
        .describe('Where to start: an RFC 3339 date-time (entries at it or later), or the since of an earlier resume_url (entries after that answer). Default: the beginning.'),
      language: languageParam(options.languages, options.defaultLanguage),
      ...pagingShape,
    })
    .strict();
}

const changedItem = z.object({
  type: z.literal('changed').describe('A public resource changed (or became public): read it again.'),
  id: z.number().int(),
  at: z.string().describe('When, as the feed orders it (UTC ISO-8601).'),
  modified: z.string().describe("The resource's modified time (UTC ISO-8601)."),
  page_url: z.string().describe('The human page to cite, in `language`.'),
  language: z.string().describe('The language page_url and the read URLs are in (the requested one, else a fallback).'),
  json_url: z.string(),
  markdown_url: z.string(),
});

const removedItem = z.object({
  type: z.literal('removed').describe('The id stopped being public (deleted, hidden, unpublished or expired): forget it. Nothing else is said.'),
  id: z.number().int(),
  at: z.string().describe('When it stopped being public (UTC ISO-8601).'),
});

export const changesResult = pagedResult(z.discriminatedUnion('type', [changedItem, removedItem])).extend({
  resume_url: z.string().describe('Call this on your next visit: the entries after this page (from a little before its newest, see the docs).'),
});

/** The position of a feed row. */
const positionOf = (row: ChangeRow): ChangePosition => [Number(row.at_s), Number(row.at_us), row.kind, row.id];

/** The feed position a `since` names: a date-time, or a sealed token of a `resume_url` (a 400 naming `since` otherwise). */
function startOf(ctx: AgentContext, since: string | undefined): ChangePosition {
  if (since === undefined) return [-62_135_596_800, 0, -1, 0];
  const instant = sinceInstant(since);
  if (instant) return instant;
  try {
    return ctx.continuations.decode(SINCE_SCOPE, 0, since, 4) as unknown as ChangePosition;
  } catch (error) {
    if (error instanceof HttpError) throw badRequest('since', 'invalid, altered or from another process; start again from a date-time');
    throw error;
  }
}

/** `resume_url`: this query without its paging, from `position` or, when that is later, from `RESUME_SETTLE_MS` ago. */
function resumeUrl(ctx: AgentContext, call: FacadeCall, position: ChangePosition): string {
  // On a 30-second grid: the same page keeps its resume_url (and so its ETag and 304) for 30 seconds.
  const settled = Math.floor((Date.now() - RESUME_SETTLE_MS) / RESUME_SETTLE_MS) * (RESUME_SETTLE_MS / 1000);
  const from: ChangePosition = position[0] >= settled ? [settled, 0, -1, 0] : position;
  let query = '';
  for (const [k, v] of call.query) if (k !== 'page' && k !== 'cursor' && k !== 'since') query += `${formPair(k, v)}&`;
  return `${call.base}${call.path}?${query}since=${ctx.continuations.encode(SINCE_SCOPE, 0, from)}`;
}

/**
 * `GET /api/agent/changes`: what changed since `since`, oldest first: public resources that changed
 * (their citation URL and read URLs) and ids that stopped being public (id and time only), keyset-paged
 * like search; `resume_url` is where the next visit starts.
 */
export function changesRoute(options: ResolvedOptions) {
  return facadeRoute({
    path: PATHS.changes,
    params: undefined,
    query: withCandidateBound(changesQuery(options)),
    response: { kind: 'envelope', result: changesResult },
    policy: CONTENT_READ,
    doc: {
      operationId: 'listChanges',
      summary: 'What changed since a time or an earlier answer',
      description:
        'Public resources that changed (type changed: id, at, modified, page_url, language, read URLs) and ids that stopped being public (type removed: id and at only), oldest first. ' +
        'Start with since as a date-time (or none: everything), follow next_url until next is false, then keep resume_url for the next visit. Apply entries in order; one may come again.',
      tags: ['content'],
      errors: [400, 413, 503, 504],
      example: 'pagelen=10',
    },
    tool: {
      name: 'changes',
      title: 'What changed',
      description: `The public resources changed since a time (since: an RFC 3339 date-time, or the since of an earlier resume_url) and the ids that stopped being public, oldest first. ${TOOL_PAGED} ${TOOL_READ_ONLY}`,
      listed: 5,
      paged: true,
    },
    async handler({ ctx, call, query: params }) {
      const start = startOf(ctx, params.since);
      const scope = pageScope(PATHS.changes.template, params);
      const page = pageWindow(ctx, params, scope, 4);
      const rows = await readChanges(ctx.db, { after: (page.after as ChangePosition | undefined) ?? start, offset: page.offset, limit: page.fetch });
      const pageRows = rows.slice(0, params.pagelen);
      const last = pageRows.at(-1);
      const result = buildPagedResult(ctx, call, params, scope, {
        items: pageRows.map((row) => changeItem(ctx, call.base, row, params.language)),
        hasMore: rows.length > params.pagelen,
        lastPosition: last ? [...positionOf(last)] : undefined,
      });
      return { ...result, resume_url: resumeUrl(ctx, call, last ? positionOf(last) : ((page.after as ChangePosition | undefined) ?? start)) };
    },
  });
}

/** An entry of the feed: a removal is its id and time, nothing else. */
function changeItem(ctx: AgentContext, base: string, row: ChangeRow, requested: string): z.input<typeof changedItem> | z.input<typeof removedItem> {
  const at = toIso(row.at);
  if (row.kind !== CHANGE_KIND.changed) return { type: 'removed', id: row.id, at };
  const { options } = ctx;
  const lang = chooseLanguage(row.language, requested, options.defaultLanguage);
  const query = { language: advertisedLanguage(lang, options.languages) };
  return {
    type: 'changed',
    id: row.id,
    at,
    modified: toIso(row.modified!),
    page_url: resolveOnBase(base, pageUrlOf(options.pageUrl, row, lang.language, row.category_name)),
    language: lang.language,
    json_url: absoluteUrl(base, PATHS.resource.url({ id: row.id }), query),
    markdown_url: absoluteUrl(base, PATHS.markdown.url({ id: row.id }), query),
  };
}
