import type { AgentContext } from '../context.js';
import { PATHS } from '../paths.js';
import { advertisedLanguage, chooseLanguage, localize, type LanguageFields } from '../content/language.js';
import type { ResourceRow } from '../content/resource.js';
import { pageUrlOf } from '../content/page-url.js';
import { renderFrontMatter } from '../markdown/front-matter.js';
import { absoluteUrl, resolveOnBase } from '../http/urls.js';
import { keptIfCovered, readComposableResource, resourceContent, type Recorded, type ResourceContent, type ResourceReadKey } from './resource-content.js';
import { covers } from '../content/composition-reads.js';
import type { CacheKey } from '../cache/build-cache.js';
import { citationTerms, type SiteTerms } from '../settings/site-license.js';

/** The "API access" section that ends the Markdown representation (not in the JSON read, not in HTML). */
export function apiAccessSection(base: string, id: number, language: string): string {
  return [
    '## API access',
    '',
    `- [API help](${absoluteUrl(base, PATHS.apiHelp.url())})`,
    `- [OpenAPI description](${absoluteUrl(base, PATHS.openapi.url())})`,
    `- [This resource as JSON](${absoluteUrl(base, PATHS.resource.url({ id }), { language })})`,
    '',
  ].join('\n');
}

/**
 * The whole Markdown representation of a visible resource in an already chosen language: the YAML
 * front matter (added here, outside every template, so an override cannot break it), the composed
 * content (`resourceContent` or `composeResourceContent` of the row in that language), and the "API
 * access" section (its JSON link carries a `language` the facade accepts).
 *
 * ```ts
 * markdownDocument(ctx, row, lang, 'https://example.org', site, await composeResourceContent(ctx, row, lang.language, 'https://example.org'))
 * // '---\ntitle: "Welkom"\nurl: "https://example.org/nl/page/7"\n…\n---\n\n# Welkom\n…\n## API access\n…'
 * ```
 */
export function markdownDocument(ctx: AgentContext, row: ResourceRow, lang: LanguageFields, base: string, site: SiteTerms, content: ResourceContent): string {
  const { options } = ctx;
  const { language } = lang;
  const license = localize(row.license, language, options.defaultLanguage);
  const attribution = localize(row.attribution, language, options.defaultLanguage);
  const description = localize(row.summary, language, options.defaultLanguage);
  // The category only when it is anonymous-visible itself (the row's category_* columns are null otherwise).
  const category = row.category_public_id === null ? '' : localize(row.category_title, language, options.defaultLanguage);
  const frontMatter = renderFrontMatter({
    title: localize(row.title, language, options.defaultLanguage),
    url: resolveOnBase(base, pageUrlOf(options.pageUrl, row, language, row.category_name)),
    language,
    published: new Date(row.publication_start),
    modified: new Date(row.modified),
    ...(description ? { description } : {}),
    ...(category ? { categories: [category] } : {}),
    authors: content.authors.map((a) => a.title),
    tags: content.tags.map((t) => t.title),
    word_count: content.wordCount,
    ...citationTerms({ license, attribution }, site),
    content_complete: content.contentComplete,
  });
  const access = apiAccessSection(base, row.id, advertisedLanguage(lang, options.languages));
  return frontMatter + (content.markdown.trim() ? `${content.markdown.trimEnd()}\n\n${access}` : access);
}

/** The Markdown representation of one resource, in the language actually used. */
export interface MarkdownRepresentation {
  body: string;
  language: string;
  /** The resource's id. */
  id: number;
}

/**
 * The Markdown representation of an anonymous-visible resource in `requested` (falling back like every
 * read), or `undefined` when the resource is not anonymous-visible. The one composition path of the
 * Markdown route and of Markdown negotiated on a page URL.
 */
export async function markdownRepresentation(
  ctx: AgentContext,
  ref: number | string,
  requested: string,
  base: string,
): Promise<MarkdownRepresentation | undefined> {
  return keptMarkdown(ctx, ref, requested, base);
}

/** A resource's Markdown with the key it was looked up under and its build (`isOfKey` tells whether it is that key's content). */
export interface KeptMarkdown extends MarkdownRepresentation {
  readonly key: ResourceReadKey;
  readonly recorded: Recorded<string>;
}

/** {@link markdownRepresentation}, with the key and the build (llms-full.txt's pieces). */
export async function keptMarkdown(ctx: AgentContext, ref: number | string, requested: string, base: string): Promise<KeptMarkdown | undefined> {
  // The visibility check runs on every request; only the composition is kept (keyed by what the
  // read's statement saw of the content the composition shows, and of the settings).
  const read = await readComposableResource(ctx, ref);
  if (!read) return undefined;
  const { row, key } = read;
  const lang = chooseLanguage(row.language, requested, ctx.options.defaultLanguage);
  const build = async () => {
    const content = await resourceContent(ctx, row, lang.language, base, key);
    return { value: markdownDocument(ctx, row, lang, base, key.options, content.value), reads: content.reads, keep: content.keep };
  };
  const recorded = await keptIfCovered(ctx, key, markdownEntry(key.settings, key.contentKey, row.id, lang.language, requested, base), build, (text) => text.length, false);
  return { body: recorded.value, language: lang.language, id: row.id, key, recorded };
}

/** The build cache key of a resource's Markdown document. */
export const markdownEntry = (settings: string, contentKey: string | undefined, id: number, language: string, requested: string, base: string): CacheKey => [
  'markdown',
  settings,
  contentKey ?? '',
  id,
  language,
  requested,
  base,
];

/**
 * Whether a kept or built composition is the content of `key`: under an exact key, kept (found kept
 * under it, or composed from the snapshot the key was read in), and covered by the key's reads; false
 * for a composition of a later state, or one that read beyond what the key covers.
 */
export function isOfKey(key: Pick<ResourceReadKey, 'contentKey' | 'reads'>, recorded: Recorded<unknown>): boolean {
  return key.contentKey !== undefined && recorded.keep && (!key.reads || covers(key.reads.covered, recorded.reads));
}
