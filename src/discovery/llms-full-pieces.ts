import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AgentContext } from '../context.js';
import { PATHS } from '../paths.js';
import { chooseLanguage } from '../content/language.js';
import { readNewestCompositionKeys, type NewestCompositionKey } from '../content/newest-resources.js';
import { NO_READS, readsParameter, type CompositionReads } from '../content/composition-reads.js';
import { creditPredicates, exactKey, readsMemo, type Recorded } from '../representations/resource-content.js';
import { isOfKey, keptMarkdown, markdownEntry } from '../representations/resource-markdown.js';
import { withBudget } from '../http/budget.js';
import { absoluteUrl } from '../http/urls.js';
import type { ResolvedOptions } from '../options.js';
import type { LlmsFullEntry, LlmsFullSource } from './llms-full.js';
import { newestResources } from './site-content.js';

/**
 * How many resources the first listing of a base reads (as many as fit at 512 bytes each: a listing row
 * costs little, a second listing late in a first build would list what turned public meanwhile), the
 * fewest and the most any listing reads.
 */
const firstListing = (maxBytes: number) => Math.min(MAX_LISTING, Math.ceil(maxBytes / 512) + 1);
const MIN_LISTING = 16;
const MAX_LISTING = 10_000;
/** How many pieces are looked up (and composed when missing) at once. */
const LOOKAHEAD = 4;
/** How many listings one build may read because pieces were not of the listing's snapshot. */
const MAX_STALE_ROUNDS = 4;

/** What the last build of a base remembers: how many resources to list, and which it listed (their reads go with the next listing). */
interface ListingMemo {
  readonly limit: number;
  readonly ids: readonly number[];
}

/** A resource's Markdown in a listing: `current` when it is the content of the listed key; no body when it is no longer visible. */
interface Piece {
  body: string | undefined;
  current: boolean;
}

/** One listing's assembly: the body, and whether it is of the listing's snapshot and complete. */
interface Round {
  body: string;
  /** A piece was not the content of its listed key (written, hidden or read beyond its key since). */
  stale: boolean;
  /** The assembler wanted more resources than were listed, and there may be more. */
  short: boolean;
  /** How many pieces the assembler took (the last may have been cut). */
  pulled: number;
}

/**
 * llms-full.txt assembled from the kept compositions (with exact keys): one statement lists the newest
 * listable resources with the exact key of each one's compositions, in one snapshot
 * (`readNewestCompositionKeys`); each piece is the resource's Markdown kept under that key, and only a
 * resource whose key has no kept Markdown is read and composed again (`keptMarkdown`, as the Markdown
 * read does, which keeps it for the next build and for the reads). A write elsewhere costs nothing; a
 * write to a listed resource costs its one composition. When a piece turns out not to be the content
 * of its listed key (written, hidden or scheduled out between the listing and its composition), the
 * listing is read again and the pieces kept since are
 * taken (at most {@link MAX_STALE_ROUNDS} listings; then the last assembly is served, each of its parts
 * anonymous-visible when it was read). Every statement runs under the `budgetMs` budget, so a stalled
 * database fails the build at once rather than holding its requests.
 */
export async function assembleFromKept(
  ctx: AgentContext,
  options: ResolvedOptions,
  settings: string,
  base: string,
  maxBytes: number,
  assemble: (source: LlmsFullSource) => Promise<string>,
): Promise<string> {
  const memoKey = ['llms-full-listing', settings, base, maxBytes];
  let memo = ctx.cache.peek<ListingMemo>(memoKey) ?? { limit: firstListing(maxBytes), ids: [] };
  for (let stale = 0; ; ) {
    const round = await assembleRound(ctx, options, settings, base, memo, assemble);
    if (round.short && memo.limit < MAX_LISTING) {
      memo = { limit: Math.min(MAX_LISTING, memo.limit * 2), ids: round.ids };
      continue;
    }
    memo = { limit: round.short ? memo.limit : Math.min(MAX_LISTING, Math.max(MIN_LISTING, Math.ceil(round.pulled * 1.25) + 2)), ids: round.ids };
    if (round.stale && ++stale < MAX_STALE_ROUNDS) continue;
    ctx.cache.set(memoKey, memo, 64 + 8 * memo.ids.length);
    return round.body;
  }
}

/** One listing and the assembly of its pieces. */
async function assembleRound(
  ctx: AgentContext,
  options: ResolvedOptions,
  settings: string,
  base: string,
  memo: ListingMemo,
  assemble: (source: LlmsFullSource) => Promise<string>,
): Promise<Round & { ids: number[] }> {
  const covered = new Map<number, CompositionReads>();
  const parts: string[] = [];
  for (const id of memo.ids) {
    const reads = ctx.cache.peek<CompositionReads | 'too many'>(readsMemo(id));
    const parameter = reads && reads !== 'too many' ? readsParameter(reads) : undefined;
    if (parameter === undefined || reads === undefined || reads === 'too many') continue;
    covered.set(id, reads);
    parts.push(`"${id}":${parameter}`);
  }
  const rows = options.noindex
    ? []
    : await withBudget(ctx.options.budgetMs, () =>
        readNewestCompositionKeys(ctx.db, { limit: memo.limit, readsById: `{${parts.join(',')}}`, predicates: JSON.parse(creditPredicates(ctx.options)) as string[] }),
      );
  // A restored backup or a failover may bring back row versions that later writes reuse: nothing kept survives it.
  if (rows[0] && ctx.contentClock.serverChanged(rows[0].server_started)) ctx.cache.clear();
  const round: Round = { body: '', stale: false, short: false, pulled: 0 };
  const listed = newestResources(rows, options);
  // The pieces a few ahead are looked up (and composed when missing) while the assembler takes one:
  // a pool's connections compose in parallel. One failing ahead is only reported when it is taken.
  const ahead = new Map<number, Promise<Piece>>();
  const lookUp = (i: number) => {
    if (i >= rows.length || ahead.has(i)) return;
    const found = piece(ctx, settings, base, rows[i]!, listed[i]!.language, covered.get(rows[i]!.id) ?? NO_READS);
    found.catch(() => {});
    ahead.set(i, found);
  };
  async function* pieces(): AsyncGenerator<LlmsFullEntry> {
    for (const [i, row] of rows.entries()) {
      const { id, title, language } = listed[i]!;
      round.pulled++;
      for (let j = i; j < i + LOOKAHEAD; j++) lookUp(j);
      const markdown = await ahead.get(i)!;
      ahead.delete(i);
      if (!markdown.current) round.stale = true;
      if (markdown.body === undefined) continue;
      const lang = chooseLanguage(row.language, language, ctx.options.defaultLanguage).language;
      yield { title, url: absoluteUrl(base, PATHS.markdown.url({ id }), { language: lang }), markdown: markdown.body };
    }
    // Every listed resource fitted: there may be more than were listed.
    round.short = rows.length >= memo.limit;
  }
  round.body = await assemble(() => pieces());
  return { ...round, ids: rows.map((r) => r.id) };
}

/**
 * One resource's Markdown for llms-full.txt: kept under its listed key (no statement), else read and
 * composed as the Markdown read does (under the request budget). `current`: the body is the content
 * of the listed key; `body` undefined: the resource is no longer anonymous-visible.
 */
async function piece(ctx: AgentContext, settings: string, base: string, row: NewestCompositionKey, language: string, covered: CompositionReads): Promise<Piece> {
  const key = exactKey(row);
  const lang = chooseLanguage(row.language, language, ctx.options.defaultLanguage).language;
  const kept = ctx.cache.peek<Promise<Recorded<string>>>(markdownEntry(settings, key, row.id, lang, language, base));
  const found = kept && (await kept.catch(() => undefined));
  if (found && isOfKey({ contentKey: key, reads: { memo: [], covered } }, found)) return { body: found.value, current: true };
  // Composition runs in turns of its own (conversion of large bodies in the worker threads): a long build never holds the event loop.
  await nextTurn();
  const read = await withBudget(ctx.options.budgetMs, () => keptMarkdown(ctx, row.id, language, base));
  if (!read) return { body: undefined, current: false };
  // Composed from a snapshot in which its key is the listed one (`keep`). A first composition that read
  // resources its key did not cover yet (an included page) is taken too: its own row is the listing's,
  // what it included was read moments later. A resource whose reads are too many to fingerprint is
  // never kept: its fresh composition is the best there is.
  const unkeyed = read.key.contentKey === undefined;
  return { body: read.body, current: unkeyed || (read.key.contentKey === key && read.key.settings === settings && read.recorded.keep) };
}
