import type { Kysely } from 'kysely';
import type nunjucks from 'nunjucks';
import type { Database } from '../db/schema.js';
import type { ResolvedOptions } from '../options.js';
import { chooseLanguage, localize, type LanguageFields } from '../content/language.js';
import { pageUrlOf } from '../content/page-url.js';
import { categoryChains, loadVisibleResources, type ComposableResource } from '../content/composable-resources.js';
import type { ReadsRecorder } from '../content/composition-reads.js';
import type { MarkdownLimits } from './limits.js';
import type { RenderBudget } from './render-budget.js';
import type { ResourceAccessor, TemplateResource } from './resource-accessor.js';

/** Where composition reads resources from. Only anonymous-visible resources are ever returned. */
export interface ResourceLoader {
  /** The anonymous-visible resources among `keys` (ids or names); the others are absent. */
  visible(keys: readonly (number | string)[]): Promise<ComposableResource[]>;
  /** Each category's names from itself up to the root. */
  categoryChains(categoryIds: readonly number[]): Promise<Map<number, readonly string[]>>;
}

/** The loader reading the content database. */
export function databaseLoader(db: Kysely<Database>): ResourceLoader {
  return {
    visible: (keys) => loadVisibleResources(db, keys),
    categoryChains: (ids) => categoryChains(db, ids),
  };
}

/**
 * `loader`, telling `recorder` every key asked for, every resource found and every category chain
 * read: what the composition's cache key must cover (`compositionFingerprint`).
 */
export function recordingLoader(loader: ResourceLoader, recorder: ReadsRecorder): ResourceLoader {
  return {
    visible: async (keys) => {
      recorder.resources(keys);
      const found = await loader.visible(keys);
      recorder.found(found);
      return found;
    },
    categoryChains: (ids) => {
      recorder.categories(ids);
      return loader.categoryChains(ids);
    },
  };
}

/** The options composition reads; `mediaUrl` defaults to `DEFAULT_MEDIA_URL`. */
export type CompositionOptions = Pick<ResolvedOptions, 'defaultLanguage' | 'pageUrl'> & Partial<Pick<ResolvedOptions, 'mediaUrl'>>;

/** What presenting a resource to a template needs: the site's options, the public base and the requested language. */
export interface PresentationContext {
  readonly options: CompositionOptions;
  /** The absolute public base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** The language chosen for the composed resource. */
  readonly language: string;
}

/** Everything one composition shares, passed explicitly to each step (`compose-blocks.ts`, `compose.ts`). */
export interface CompositionContext extends PresentationContext {
  readonly env: nunjucks.Environment;
  readonly limits: MarkdownLimits;
  readonly budget: RenderBudget;
  /** The anonymous-visible resources the composed resource's page blocks reference, by id. */
  readonly references: ReadonlyMap<number, ComposableResource>;
  /** Category name chains of the composed resource and its references, by category id. */
  readonly chains: ReadonlyMap<number, readonly string[]>;
  /** The `rsc(…)` accessor of the templates. */
  readonly rsc: ResourceAccessor['lookup'];
}

/** The part of a composition rendered so far: its HTML, and whether nothing was left out. */
export interface Rendered {
  html: string;
  complete: boolean;
}

/** The resource whose blocks are rendered, with its category chain and language. */
export interface Owner {
  resource: ComposableResource;
  categories: readonly string[];
  language: string;
}

/** The language a resource is presented in: the requested one, else its fallback. */
export const languageOf = (ctx: PresentationContext, r: ComposableResource): LanguageFields =>
  chooseLanguage(r.language, ctx.language, ctx.options.defaultLanguage);

/** A localized field in `language` (else the site's default language). */
export const localText = (ctx: PresentationContext, value: Parameters<typeof localize>[0], language: string): string =>
  localize(value, language, ctx.options.defaultLanguage);

const absolute = (ctx: PresentationContext, url: string) => new URL(url, `${ctx.baseUrl}/`).href;

/** The resource's absolute page URL in `language`. */
export const composedPageUrl = (ctx: PresentationContext, r: ComposableResource, language: string): string =>
  absolute(ctx, pageUrlOf(ctx.options.pageUrl, r, language, r.category));

/** The resource's URI: its own, else `<base>/id/<id>`. */
export const resourceUri = (ctx: PresentationContext, r: ComposableResource): string => r.uri ?? `${ctx.baseUrl}/id/${r.id}`;

/** A resource as `rsc(…)` shows it to templates (without its `prop` accessor). */
export function presentResource(ctx: PresentationContext, r: ComposableResource): Omit<TemplateResource, 'prop'> {
  const language = languageOf(ctx, r).language;
  return {
    exists: true,
    id: r.id,
    name: r.name,
    title: localText(ctx, r.title, language),
    summary: localText(ctx, r.summary, language),
    language,
    category: r.category,
    page_url: composedPageUrl(ctx, r, language),
    uri: resourceUri(ctx, r),
  };
}
