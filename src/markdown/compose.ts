import type { Kysely } from 'kysely';
import type nunjucks from 'nunjucks';
import type { Block, Database } from '../db/schema.js';
import { DEFAULT_MEDIA_URL, type ResolvedOptions } from '../options.js';
import { chooseLanguage, localize } from '../content/language.js';
import { boundedHtmlToMarkdown } from './convert.js';
import { resolveMarkdownLimits, type MarkdownLimits } from './limits.js';
import { RenderBudget } from './render-budget.js';
import { byteLength } from './utf8.js';
import { truncateHtml } from './truncate-html.js';
import { markerHtml, markerText } from './markers.js';
import { ResourceAccessor, lookupKey, type TemplateResource } from './resource-accessor.js';
import { categoryChains, loadVisibleResources, type ComposableResource } from '../content/composable-resources.js';
import { blockTemplateName, contentTemplateName, isSurveyBlock, renderTemplate } from './template-selection.js';
import { TemplateRenderError } from './template-errors.js';
import { templateMedium } from './medium.js';

export interface RenderAgentMarkdownInput {
  db: Kysely<Database>;
  /** From `createTemplateEnvironment(options.templateDirs)`, created once. */
  env: nunjucks.Environment;
  /** `mediaUrl` defaults to `DEFAULT_MEDIA_URL`. */
  options: Pick<ResolvedOptions, 'defaultLanguage' | 'pageUrl'> & Partial<Pick<ResolvedOptions, 'mediaUrl'>>;
  id: number;
  /** The language already chosen for the resource (`chooseLanguage(...).language`). */
  language: string;
  /** The absolute public base URL, without a trailing slash. */
  baseUrl: string;
  /** Overrides of `DEFAULT_MARKDOWN_LIMITS`. */
  limits?: Partial<MarkdownLimits>;
  /**
   * The resource, already read under the anonymous check by the caller (saves a query). It must be
   * anonymous-visible: it is used as given.
   */
  resource?: ComposableResource;
}

export interface AgentHtml {
  html: string;
  /** False when a block was omitted, a nested page reference not expanded, or content cut. */
  contentComplete: boolean;
  /** The resource's absolute page URL: relative references in its content resolve against it. */
  documentUrl: string;
}

export interface AgentMarkdown {
  markdown: string;
  contentComplete: boolean;
}

/** Render passes that may load resources asked for through `rsc(…)` before giving up on them. */
export const MAX_RENDER_PASSES = 3;

/** The block as templates see it: header and body localized, header text, body trusted HTML. */
export interface TemplateBlock {
  type: string;
  name: string;
  header: string;
  body: string;
  props: Record<string, unknown>;
  rsc_id: number | undefined;
}

/** A page block's referenced resource, as `_agent_block_page` sees it. */
export interface TemplateReference {
  id: number;
  name: string | null;
  title: string;
  summary: string;
  body_html: string;
  /** Its header and text blocks, rendered; other blocks are marked as omitted. */
  blocks_html: string;
  language: string;
  is_fallback: boolean;
  category: string | null;
  page_url: string;
  uri: string;
  license: string;
  attribution: string;
}

interface Rendered {
  html: string;
  complete: boolean;
}

interface Owner {
  resource: ComposableResource;
  categories: readonly string[];
  language: string;
}

/**
 * Renders a resource to HTML with the `_agent_*` templates, as an anonymous visitor would see it.
 * `undefined` when the resource is missing or not anonymous-visible. Throws `TemplateRenderError`
 * when a template is missing or throws.
 *
 * ```ts
 * const composed = await renderAgentHtml({ db, env, options, id: 42, language: 'en', baseUrl: 'https://example.org' })
 * ```
 */
export async function renderAgentHtml(input: RenderAgentMarkdownInput): Promise<AgentHtml | undefined> {
  const { db, env, options, id, language, baseUrl } = input;
  const limits = resolveMarkdownLimits(input.limits);
  const resource = input.resource?.id === id ? input.resource : (await loadVisibleResources(db, [id]))[0];
  if (!resource) return undefined;
  const budget = new RenderBudget(limits.budgetMs);

  const referenceIds = new Set<number>();
  for (const block of resource.blocks) {
    const key = block.type === 'page' ? lookupKey(block.rsc_id) : undefined;
    if (typeof key === 'number' && key !== resource.id) referenceIds.add(key);
  }
  const references = new Map((await loadVisibleResources(db, [...referenceIds])).map((r) => [r.id, r]));
  const chains = await categoryChains(db, [resource.category_id, ...[...references.values()].map((r) => r.category_id)]);

  const absolute = (url: string) => new URL(url, `${baseUrl}/`).href;
  const languageOf = (r: ComposableResource) => chooseLanguage(r.language, language, options.defaultLanguage);
  const pageUrl = (r: ComposableResource, lang: string) =>
    absolute(options.pageUrl({ id: r.id, name: r.name, language: lang, category: r.category }));
  const text = (value: Parameters<typeof localize>[0], lang: string) => localize(value, lang, options.defaultLanguage);
  const present = (r: ComposableResource): Omit<TemplateResource, 'prop'> => {
    const lang = languageOf(r).language;
    return {
      exists: true,
      id: r.id,
      name: r.name,
      title: text(r.title, lang),
      summary: text(r.summary, lang),
      language: lang,
      category: r.category,
      page_url: pageUrl(r, lang),
      uri: r.uri ?? `${baseUrl}/id/${r.id}`,
    };
  };
  const accessor = new ResourceAccessor(present);
  accessor.learn([resource, ...references.values()]);
  const rsc = accessor.lookup;

  const boundedBody = (r: ComposableResource, lang: string): Rendered => {
    const cut = truncateHtml(text(r.body, lang), limits.maxHtmlBytes);
    return cut.truncated
      ? { html: cut.html + markerHtml(markerText.htmlTruncated(limits.maxHtmlBytes)), complete: false }
      : { html: cut.html, complete: true };
  };

  const renderBlocks = (blocks: readonly Block[], owner: Owner, inReference: boolean): Rendered => {
    const parts: string[] = [];
    let complete = true;
    let bytes = 0;
    for (const block of blocks) {
      if (!block || typeof block !== 'object' || isSurveyBlock(block.type)) continue;
      if (budget.expired) {
        parts.push(markerHtml(markerText.budgetExceeded(limits.budgetMs)));
        return { html: parts.join('\n'), complete: false };
      }
      if (bytes > limits.maxHtmlBytes) {
        parts.push(markerHtml(markerText.htmlTruncated(limits.maxHtmlBytes)));
        return { html: parts.join('\n'), complete: false };
      }
      const rendered = renderBlock(block, owner, inReference);
      complete &&= rendered.complete;
      parts.push(rendered.html);
      bytes += byteLength(rendered.html);
    }
    return { html: parts.join('\n'), complete };
  };

  const renderBlock = (block: Block, owner: Owner, inReference: boolean): Rendered => {
    const type = typeof block.type === 'string' ? block.type : '';
    if (inReference && type === 'page') {
      return { html: markerHtml(markerText.nestedPage(typeof lookupKey(block.rsc_id) === 'number' ? Number(block.rsc_id) : undefined)), complete: false };
    }
    if (inReference && type !== 'header' && type !== 'text') {
      return { html: markerHtml(markerText.referencedBlock(type)), complete: false };
    }
    const template = blockTemplateName(env, type, owner.categories);
    if (!template) return { html: markerHtml(markerText.unsupportedBlock(type)), complete: false };
    let reference: TemplateReference | undefined;
    let complete = true;
    const refKey = lookupKey(block.rsc_id);
    if (type === 'page') {
      const target = typeof refKey === 'number' && refKey !== owner.resource.id ? references.get(refKey) : undefined;
      // A missing, private, unpublished or out-of-window reference is left out silently.
      if (!target) return { html: '', complete: true };
      const expanded = expandReference(target);
      reference = expanded.reference;
      complete = expanded.complete;
    }
    const blk: TemplateBlock = {
      type,
      name: typeof block.name === 'string' ? block.name : '',
      header: text(block.header, owner.language),
      body: text(block.body, owner.language),
      props: block.props && typeof block.props === 'object' ? block.props : {},
      rsc_id: typeof refKey === 'number' ? refKey : undefined,
    };
    const html = renderTemplate(env, template, {
      id: owner.resource.id,
      blk,
      reference,
      rsc,
      language: owner.language,
      category: owner.resource.category,
    });
    return { html, complete };
  };

  const expandReference = (target: ComposableResource): { reference: TemplateReference; complete: boolean } => {
    const lang = languageOf(target);
    const owner: Owner = { resource: target, categories: chains.get(target.category_id) ?? [], language: lang.language };
    const body = boundedBody(target, lang.language);
    const blocks = renderBlocks(target.blocks, owner, true);
    const reference: TemplateReference = {
      id: target.id,
      name: target.name,
      title: text(target.title, lang.language),
      summary: text(target.summary, lang.language),
      body_html: body.html,
      blocks_html: blocks.html,
      language: lang.language,
      is_fallback: lang.is_fallback,
      category: target.category,
      page_url: pageUrl(target, lang.language),
      uri: target.uri ?? `${baseUrl}/id/${target.id}`,
      license: text(target.license, lang.language),
      attribution: text(target.attribution, lang.language),
    };
    return { reference, complete: body.complete && blocks.complete };
  };

  const categories = chains.get(resource.category_id) ?? [];
  const owner: Owner = { resource, categories, language };
  const composeOnce = (): Rendered => {
    const template = contentTemplateName(env, categories);
    if (!template) throw new TemplateRenderError('_agent_content.njk', 'not found in any template directory');
    const body = boundedBody(resource, language);
    const blocks = renderBlocks(resource.blocks, owner, false);
    const html = renderTemplate(env, template, {
      id: resource.id,
      body_html: body.html,
      blocks_html: blocks.html,
      title: text(resource.title, language),
      summary: text(resource.summary, language),
      language,
      category: resource.category,
      categories,
      page_url: pageUrl(resource, language),
      uri: resource.uri ?? `${baseUrl}/id/${resource.id}`,
      license: text(resource.license, language),
      attribution: text(resource.attribution, language),
      medium: resource.medium ? templateMedium(resource.id, resource.medium, options.mediaUrl ?? DEFAULT_MEDIA_URL, baseUrl) : undefined,
      rsc,
    });
    return { html, complete: body.complete && blocks.complete };
  };

  for (let pass = 1; ; pass++) {
    const rendered = composeOnce();
    const misses = accessor.takeMisses();
    const documentUrl = pageUrl(resource, language);
    if (!misses.length) return { html: rendered.html, contentComplete: rendered.complete, documentUrl };
    if (pass >= MAX_RENDER_PASSES || budget.expired) {
      // Resources still unknown read as absent: the content may miss what a template wanted from them.
      return { html: rendered.html, contentComplete: false, documentUrl };
    }
    accessor.learn(await loadVisibleResources(input.db, misses), misses);
  }
}

/**
 * The Markdown representation of a resource: `renderAgentHtml`, then turndown within the
 * limits. `undefined` when the resource is missing or not anonymous-visible; `TemplateRenderError`
 * when a template is missing or throws; legitimately empty content is `''`.
 *
 * ```ts
 * const env = createTemplateEnvironment(options.templateDirs)
 * const md = await renderAgentMarkdown({ db, env, options, id: 42, language: 'en', baseUrl: 'https://example.org' })
 * // { markdown: '# Title\n\n…', contentComplete: true }
 * ```
 */
export async function renderAgentMarkdown(input: RenderAgentMarkdownInput): Promise<AgentMarkdown | undefined> {
  const limits = resolveMarkdownLimits(input.limits);
  const composed = await renderAgentHtml({ ...input, limits });
  if (!composed) return undefined;
  const converted = boundedHtmlToMarkdown(composed.html, { baseUrl: input.baseUrl, documentUrl: composed.documentUrl }, limits);
  return { markdown: converted.markdown, contentComplete: composed.contentComplete && converted.complete };
}
