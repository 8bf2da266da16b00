import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { readVisibleResource, type ResourceRow, type VisibleResourceRead } from '../content/resource.js';
import { localize } from '../content/language.js';
import { namedEdgeEndpoints } from '../content/named-edges.js';
import { TemplateRenderError } from '../markdown/index.js';
import { agentHtmlToMarkdown, renderAgentHtml, type AgentHtml } from '../markdown/compose.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { databaseLoader, recordingLoader } from '../markdown/composition-context.js';
import { covers, NO_READS, readsParameter, ReadsRecorder, union, type CompositionReads } from '../content/composition-reads.js';
import type { ResourceRef } from '../content/resource-ref.js';
import type { CacheKey } from '../cache/build-cache.js';
import { toComposable } from '../content/composable-resources.js';
import { notFound, unavailable } from '../http/errors.js';
import { mergeSettings, settingsKey } from '../settings/effective-settings.js';
import { snapshotOf } from '../settings/settings-store.js';

/** An author or tag of a resource: an anonymous-visible resource reached through a named predicate. */
export interface Credit {
  id: number;
  title: string;
}

/** The composed Markdown of a resource and the facts about it that the JSON read and the front matter share. */
export interface ResourceContent {
  markdown: string;
  contentComplete: boolean;
  /** Through the `authorPredicates` edges, in editorial order. */
  authors: Credit[];
  /** Through the `tagPredicates` edges, in editorial order. */
  tags: Credit[];
  /** Words of the Markdown content (link and image targets not counted). */
  wordCount: number;
}

/** What a resource read's builds are kept under (`readComposableResource`). */
export interface ResourceReadKey {
  /** The settings in force, as the read's statement saw them. */
  readonly options: ResolvedOptions;
  readonly settings: string;
  /** The content part of the key; undefined when nothing built from this read may be kept. */
  readonly contentKey: string | undefined;
  /**
   * With exact keys (content relations that are tables): the reads the statement's fingerprint
   * covered, and the cache key they are remembered under for the next read of the same reference.
   */
  readonly reads?: { readonly memo: CacheKey; readonly covered: CompositionReads };
}

/**
 * Reads an anonymous-visible resource (`readVisibleResource`, the visibility check of every request)
 * and derives what builds from it are kept under. Over tables the key is exact: the statement also
 * selects the row versions of what the resource's compositions show (the resource, its medium and
 * category, the resources and categories its templates asked for last time, its credits), so an edit
 * elsewhere keeps this resource's entries; over a host's views it is the content key of the whole
 * content (its version and publication window, `ContentClock`), undefined when the clock cannot
 * vouch for it.
 */
export async function readComposableResource(ctx: AgentContext, ref: ResourceRef): Promise<{ row: VisibleResourceRead; key: ResourceReadKey } | undefined> {
  const memo = readsMemo(ref);
  const covered = ctx.exactCompositions ? ctx.cache.peek<CompositionReads | 'too many'>(memo) ?? NO_READS : undefined;
  const exact = covered !== undefined && covered !== 'too many' ? covered : undefined;
  const row = await readVisibleResource(ctx.db, ref, exact && exactReads(ctx, exact));
  if (!row) return undefined;
  // A restored backup or a failover may bring back row versions that later writes reuse: nothing kept survives it.
  if (ctx.exactCompositions && ctx.contentClock.serverChanged(row.server_started)) ctx.cache.clear();
  const { options } = mergeSettings(ctx.options, snapshotOf(ctx.db, row));
  const contentKey = exact
    ? exactKey(row)
    : ctx.exactCompositions
      ? undefined
      : await ctx.contentClock.key({ version: row.content_version, now: new Date(row.db_now) });
  return { row, key: { options, settings: settingsKey(options), contentKey, ...(exact ? { reads: { memo, covered: exact } } : {}) } };
}

/**
 * The exact key of a read: its own row's, medium's and category's versions, its category chain's names
 * (template selection), and the fingerprint of the rest (a resource's own read, or a listing's row).
 */
export const exactKey = (row: Pick<VisibleResourceRead, 'own_versions' | 'category_chain' | 'composition_fingerprint'>) =>
  `${row.own_versions}|${(row.category_chain ?? []).join('/')}|${row.composition_fingerprint ?? ''}`;

/** The credit predicates, sorted, as a JSON array, once per options object. */
const predicatesOf = new WeakMap<object, string>();
export const creditPredicates = (options: AgentContext['options']): string => {
  let predicates = predicatesOf.get(options);
  if (predicates === undefined) {
    predicates = JSON.stringify([...new Set([...options.authorPredicates, ...options.tagPredicates])].sort());
    predicatesOf.set(options, predicates);
  }
  return predicates;
};
const exactReads = (ctx: AgentContext, reads: CompositionReads) => ({ reads: readsParameter(reads), predicates: creditPredicates(ctx.options) });

/** The cache key under which the reads of a reference's last compositions are remembered. */
export const readsMemo = (ref: ResourceRef): CacheKey => ['composition-reads', typeof ref, ref];

/** A build from a composition, what the composition read, and whether it may be kept. */
export interface Recorded<T> {
  readonly value: T;
  readonly reads: CompositionReads;
  /**
   * False when the composition is not the content of the key it was looked up under (it read the
   * content in a state other than the key's, or ran out of its render budget).
   */
  readonly keep: boolean;
}

/**
 * The value of `build` through the build cache under `entry`, kept only when the build says it may be
 * and the key covers what the build read: a composition that read beyond the fingerprint's reads (a
 * template asked for another resource) is answered but dropped, and (`remember`, by the innermost
 * layer) its reads are added to those remembered for the reference, so the next read's key covers them.
 */
export async function keptIfCovered<T>(
  ctx: AgentContext,
  key: ResourceReadKey,
  entry: CacheKey,
  build: () => Promise<Recorded<T>>,
  sizeOf: (value: T) => number,
  remember: boolean,
): Promise<Recorded<T>> {
  if (key.contentKey === undefined) return build();
  const { reads } = key;
  return ctx.cache.get(
    entry,
    async () => {
      const built = await build();
      const covered = !reads || covers(reads.covered, built.reads);
      if (!built.keep || !covered) {
        ctx.cache.delete(entry, remember);
        if (reads && !covered && remember) rememberReads(ctx, reads.memo, built.reads);
      }
      return built;
    },
    (built) => sizeOf(built.value),
  );
}

/** Adds `reads` to what is remembered under `memo` now (another build may have added to it meanwhile). */
function rememberReads(ctx: AgentContext, memo: CacheKey, reads: CompositionReads): void {
  const now = ctx.cache.peek<CompositionReads | 'too many'>(memo) ?? NO_READS;
  if (now === 'too many') return;
  const both = union(now, reads);
  ctx.cache.set(memo, both ?? 'too many', both ? 2 * JSON.stringify(both).length : 16);
}

/**
 * The composed content of a visible resource as `composeResourceContent` builds it, through the build
 * cache, under the read's key (`readComposableResource`), the resource, the language and the base URL, so
 * the JSON read and the Markdown read of an unchanged resource compose it once. The visibility check is
 * the caller's read, every request.
 */
export async function resourceContent(ctx: AgentContext, row: ResourceRow, language: string, base: string, key: ResourceReadKey): Promise<Recorded<ResourceContent>> {
  return keptIfCovered(
    ctx,
    key,
    ['resource-content', key.settings, key.contentKey ?? '', row.id, language, base],
    () => composeRecorded(ctx, row, language, base, key),
    contentWeight,
    true,
  );
}

/** About the bytes an entry holds: the Markdown twice (UTF-16) and the credits. */
const contentWeight = (c: ResourceContent) => 2 * c.markdown.length + 64 * (c.authors.length + c.tags.length) + 128;

/**
 * The composed Markdown of a visible resource (as `readVisibleResource` returned it) in an already
 * chosen language, with its authors, tags and word count, shared by the JSON read and the Markdown
 * route (through `resourceContent`). A template that cannot render is a 503 (never an empty 200); a
 * resource that turned invisible meanwhile is a 404.
 */
export async function composeResourceContent(ctx: AgentContext, row: ResourceRow, language: string, base: string): Promise<ResourceContent> {
  return (await composeRecorded(ctx, row, language, base)).value;
}

/**
 * {@link composeResourceContent}, with what the composition read (`recordingLoader`) and whether it may
 * be kept. With an exact key, the composition reads the content in one read-only `REPEATABLE READ`
 * transaction whose first statement is the resource's read again: the composition is then the content
 * of one snapshot, and it may be kept only when that snapshot's key is the one it was looked up under
 * (a write, or a publication window passed, between the request's read and the composition makes it
 * an answer, not an entry). The conversion to Markdown runs after the transaction.
 */
async function composeRecorded(ctx: AgentContext, row: ResourceRow, language: string, base: string, key?: ResourceReadKey): Promise<Recorded<ResourceContent>> {
  const covered = key?.reads?.covered;
  const read = async (db: Kysely<Database>) => {
    const again = covered && (await readVisibleResource(db, row.id, exactReads(ctx, covered)));
    const same = covered !== undefined && again !== undefined && exactKey(again) === key?.contentKey;
    const source = again || row;
    const recorder = new ReadsRecorder();
    const credits = await resourceCredits(ctx, db, source.id, language);
    const html = await composeHtml(ctx, db, source, language, base, recorder);
    return { html, credits, reads: recorder.reads(), same };
  };
  const { html, credits, reads, same } = covered
    ? await ctx.db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read)
    : await read(ctx.db);
  const composed = await agentHtmlToMarkdown(html, { baseUrl: base, converter: ctx.markdown });
  return {
    value: { ...composed, ...credits, wordCount: wordCount(composed.markdown) },
    reads,
    keep: (covered === undefined || same) && !html.timedOut,
  };
}

/** The resource's templates rendered to HTML on `db` (the anonymous reads of composition), or a 404/503. */
async function composeHtml(ctx: AgentContext, db: Kysely<Database>, row: ResourceRow, language: string, base: string, recorder: ReadsRecorder): Promise<AgentHtml> {
  try {
    const composed = await renderAgentHtml({
      db,
      env: ctx.templates,
      options: ctx.options,
      id: row.id,
      language,
      baseUrl: base,
      loader: recordingLoader(databaseLoader(db), recorder),
      // Read under the anonymous check moments ago: composition need not read it again.
      resource: toComposable({ ...row, category: row.category_name }),
    });
    if (!composed) throw notFound();
    return composed;
  } catch (error) {
    if (error instanceof TemplateRenderError) throw unavailable('the Markdown templates cannot render right now; retry later');
    throw error;
  }
}

/** The resource's authors and tags, from the edges of the predicates the options name (one statement, none when both lists are empty). */
async function resourceCredits(ctx: AgentContext, db: Kysely<Database>, id: number, language: string): Promise<{ authors: Credit[]; tags: Credit[] }> {
  const { authorPredicates, tagPredicates, defaultLanguage } = ctx.options;
  const endpoints = await namedEdgeEndpoints(db, id, [...new Set([...authorPredicates, ...tagPredicates])]);
  const credits = (names: readonly string[]) => {
    const seen = new Set<number>();
    return endpoints
      .filter((e) => names.includes(e.predicate) && !seen.has(e.id) && seen.add(e.id))
      .map((e) => ({ id: e.id, title: localize(e.title, language, defaultLanguage) }))
      .filter((c) => c.title);
  };
  return { authors: credits(authorPredicates), tags: credits(tagPredicates) };
}

/** Markdown syntax that is not words: link and image targets, fences, table rules. */
const NOT_WORDS = /\]\([^)\s]*(?:\s+"[^"]*")?\)|^```.*$|^\|?(?:\s*:?-{3,}:?\s*\|)+\s*$/gm;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’_-]*/gu;

/**
 * The words of a Markdown text: runs of letters and digits, link and image targets left out.
 *
 * ```ts
 * wordCount('# Tides\n\nSee [the table](https://example.org/t).') // 4
 * ```
 */
export function wordCount(markdown: string): number {
  let n = 0;
  for (const _ of markdown.replace(NOT_WORDS, ' ').matchAll(WORD)) n++;
  return n;
}
