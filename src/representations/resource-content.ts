import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import type { ResourceRow, VisibleResourceRead } from '../content/resource.js';
import { localize } from '../content/language.js';
import { namedEdgeEndpoints } from '../content/named-edges.js';
import { renderAgentMarkdown, TemplateRenderError } from '../markdown/index.js';
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

/**
 * What a resource read's builds are kept under: the settings in force and the content key, both as the
 * read's own statement saw them (`readVisibleResource` selects the stored settings, the content version
 * and the database's time beside the resource). `contentKey` is undefined when the clock cannot vouch
 * for the content (no version kept): then nothing built from it is kept.
 */
export async function resourceReadKey(ctx: AgentContext, row: VisibleResourceRead): Promise<{ options: ResolvedOptions; settings: string; contentKey: string | undefined }> {
  const { options } = mergeSettings(ctx.options, snapshotOf(ctx.db, row));
  const contentKey = await ctx.contentClock.key({ version: row.content_version, now: new Date(row.db_now) });
  return { options, settings: settingsKey(options), contentKey };
}

/**
 * The composed content of a visible resource as `composeResourceContent` builds it, through the build
 * cache, under the read's key (`resourceReadKey`), the resource, the language and the base URL, so the
 * JSON read and the Markdown read of an unchanged resource compose it once. The visibility check is the
 * caller's read, every request.
 */
export async function resourceContent(ctx: AgentContext, row: VisibleResourceRead, language: string, base: string, key?: Awaited<ReturnType<typeof resourceReadKey>>): Promise<ResourceContent> {
  const { settings, contentKey } = key ?? (await resourceReadKey(ctx, row));
  const build = () => composeResourceContent(ctx, row, language, base);
  if (contentKey === undefined) return build();
  return ctx.cache.get(['resource-content', settings, contentKey, row.id, language, base], build, contentWeight);
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
  const [composed, credits] = await Promise.all([composeMarkdown(ctx, row, language, base), resourceCredits(ctx, row.id, language)]);
  return { ...composed, ...credits, wordCount: wordCount(composed.markdown) };
}

async function composeMarkdown(ctx: AgentContext, row: ResourceRow, language: string, base: string) {
  try {
    const composed = await renderAgentMarkdown({
      db: ctx.db,
      env: ctx.templates,
      options: ctx.options,
      id: row.id,
      language,
      baseUrl: base,
      converter: ctx.markdown,
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
