import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { readVisibleResource, type ResourceRow, type VisibleResourceRead } from '../content/resource.js';
import { localize } from '../content/language.js';
import { namedEdgeEndpoints } from '../content/named-edges.js';
import { renderAgentMarkdown, TemplateRenderError } from '../markdown/index.js';
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
   * With exact keys (the plugin's own tables): the reads the statement's fingerprint covered, and the
   * cache key they are remembered under for the next read of the same reference.
   */
  readonly reads?: { readonly memo: CacheKey; readonly covered: CompositionReads };
}

/**
 * Reads an anonymous-visible resource (`readVisibleResource`, the visibility check of every request)
 * and derives what builds from it are kept under. Over the plugin's own tables the key is exact: the
 * statement also computes the fingerprint of the rows the resource's last compositions read (the
 * resource, the resources and categories its templates asked for, its credits), so an edit elsewhere
 * keeps this resource's entries; over a host's views it is the content key of the whole content (its
 * version and publication window, `ContentClock`), undefined when the clock cannot vouch for it.
 */
export async function readComposableResource(ctx: AgentContext, ref: ResourceRef): Promise<{ row: VisibleResourceRead; key: ResourceReadKey } | undefined> {
  const memo: CacheKey = ['composition-reads', typeof ref, ref];
  const covered = ctx.exactCompositions ? ctx.cache.peek<CompositionReads | 'too many'>(memo) ?? NO_READS : undefined;
  const exact = covered !== undefined && covered !== 'too many' ? covered : undefined;
  const row = await readVisibleResource(ctx.db, ref, exact && { reads: readsParameter(exact), predicates: creditPredicates(ctx) });
  if (!row) return undefined;
  // A restored backup brings back row versions that later writes may reuse: nothing kept survives it.
  if (ctx.exactCompositions && ctx.contentClock.wentBack(row.content_version)) ctx.cache.clear();
  const { options } = mergeSettings(ctx.options, snapshotOf(ctx.db, row));
  const contentKey = exact
    ? // The own row's, medium's and category's versions, the category chain's names (template selection), and the rest.
      `${row.own_versions}|${(row.category_chain ?? []).join('/')}|${row.composition_fingerprint ?? ''}`
    : ctx.exactCompositions
      ? undefined
      : await ctx.contentClock.key({ version: row.content_version, now: new Date(row.db_now) });
  return { row, key: { options, settings: settingsKey(options), contentKey, ...(exact ? { reads: { memo, covered: exact } } : {}) } };
}

const creditPredicates = (ctx: AgentContext) => [...new Set([...ctx.options.authorPredicates, ...ctx.options.tagPredicates])].sort();

/** A build from a composition and what the composition read. */
export interface Recorded<T> {
  readonly value: T;
  readonly reads: CompositionReads;
}

/**
 * The value of `build` through the build cache under `entry`, kept only when the key covers what the
 * build read: a composition that read beyond the fingerprint's reads (a template asked for another
 * resource) is answered but dropped, and the reads remembered for the reference's next read, whose
 * fingerprint then covers them.
 */
export async function keptIfCovered<T>(ctx: AgentContext, key: ResourceReadKey, entry: CacheKey, build: () => Promise<Recorded<T>>, sizeOf: (value: T) => number): Promise<Recorded<T>> {
  if (key.contentKey === undefined) return build();
  const { reads } = key;
  return ctx.cache.get(
    entry,
    async () => {
      const built = await build();
      if (reads && !covers(reads.covered, built.reads)) {
        ctx.cache.delete(entry);
        ctx.cache.set(reads.memo, union(reads.covered, built.reads) ?? 'too many');
      }
      return built;
    },
    (built) => sizeOf(built.value),
  );
}

/**
 * The composed content of a visible resource as `composeResourceContent` builds it, through the build
 * cache, under the read's key (`readComposableResource`), the resource, the language and the base URL, so
 * the JSON read and the Markdown read of an unchanged resource compose it once. The visibility check is
 * the caller's read, every request.
 */
export async function resourceContent(ctx: AgentContext, row: ResourceRow, language: string, base: string, key: ResourceReadKey): Promise<Recorded<ResourceContent>> {
  return keptIfCovered(ctx, key, ['resource-content', key.settings, key.contentKey ?? '', row.id, language, base], () => composeRecorded(ctx, row, language, base), contentWeight);
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

/** {@link composeResourceContent}, with what the composition read (`recordingLoader`). */
async function composeRecorded(ctx: AgentContext, row: ResourceRow, language: string, base: string): Promise<Recorded<ResourceContent>> {
  const recorder = new ReadsRecorder();
  const [composed, credits] = await Promise.all([composeMarkdown(ctx, row, language, base, recorder), resourceCredits(ctx, row.id, language)]);
  return { value: { ...composed, ...credits, wordCount: wordCount(composed.markdown) }, reads: recorder.reads() };
}

async function composeMarkdown(ctx: AgentContext, row: ResourceRow, language: string, base: string, recorder: ReadsRecorder) {
  try {
    const composed = await renderAgentMarkdown({
      db: ctx.db,
      env: ctx.templates,
      options: ctx.options,
      id: row.id,
      language,
      baseUrl: base,
      converter: ctx.markdown,
      loader: recordingLoader(databaseLoader(ctx.db), recorder),
      // Read under the anonymous check moments ago by the route: composition need not read it again.
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
async function resourceCredits(ctx: AgentContext, id: number, language: string): Promise<{ authors: Credit[]; tags: Credit[] }> {
  const { authorPredicates, tagPredicates, defaultLanguage } = ctx.options;
  const endpoints = await namedEdgeEndpoints(ctx.db, id, [...new Set([...authorPredicates, ...tagPredicates])]);
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
