import type { Kysely } from 'kysely';
import type nunjucks from 'nunjucks';
import type { Database } from '../db/schema.js';
import { DEFAULT_MEDIA_URL } from '../options.js';
import type { ComposableResource } from '../content/composable-resources.js';
import { boundedBody, renderBlocks } from './compose-blocks.js';
import {
  databaseLoader,
  localText,
  composedPageUrl,
  presentResource,
  resourceUri,
  type CompositionContext,
  type CompositionOptions,
  type Rendered,
  type ResourceLoader,
} from './composition-context.js';
import { createMarkdownConverter, type MarkdownConverter } from './converter.js';
import { resolveMarkdownLimits, type MarkdownLimits } from './limits.js';
import { templateMedium } from './medium.js';
import { RenderBudget } from './render-budget.js';
import { ResourceAccessor, lookupKey } from './resource-accessor.js';
import { TemplateRenderError } from './template-errors.js';
import { contentTemplateName, renderTemplate } from './template-selection.js';

export type { TemplateBlock, TemplateReference } from './compose-blocks.js';

export interface RenderAgentMarkdownInput {
  db: Kysely<Database>;
  /** From `createTemplateEnvironment(options.templateDirs)`, created once. */
  env: nunjucks.Environment;
  /** `mediaUrl` defaults to `DEFAULT_MEDIA_URL`. */
  options: CompositionOptions;
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
  /** Where resources are read from; default the anonymous reads of `db`. */
  loader?: ResourceLoader;
  /** Converts the composed HTML (`renderAgentMarkdown`); default in process. The plugin passes its pool. */
  converter?: MarkdownConverter;
}

export interface AgentHtml {
  html: string;
  /** False when a block was omitted, a nested page reference not expanded, or content cut. */
  contentComplete: boolean;
  /** The resource's absolute page URL: relative references in its content resolve against it. */
  documentUrl: string;
  /**
   * The render budget ran out (content may have been cut or references left unloaded for lack of
   * time): another composition of the same content may come out complete, so this one is not kept.
   */
  timedOut: boolean;
}

export interface AgentMarkdown {
  markdown: string;
  contentComplete: boolean;
}

/** Render passes that may load resources asked for through `rsc(…)` before giving up on them. */
export const MAX_RENDER_PASSES = 3;

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
  const budget = new RenderBudget(resolveMarkdownLimits(input.limits).budgetMs);
  const loader = input.loader ?? databaseLoader(input.db);
  const resource = input.resource?.id === input.id ? input.resource : (await loader.visible([input.id]))[0];
  if (!resource) return undefined;
  const { ctx, accessor } = await compositionContext(input, loader, resource, budget);
  const documentUrl = composedPageUrl(ctx, resource, ctx.language);
  for (let pass = 1; ; pass++) {
    const rendered = composeContent(ctx, resource);
    const misses = accessor.takeMisses();
    if (!misses.length) return { html: rendered.html, contentComplete: rendered.complete, documentUrl, timedOut: budget.expired };
    if (pass >= MAX_RENDER_PASSES || budget.expired) {
      // Resources still unknown read as absent: the content may miss what a template wanted from them.
      return { html: rendered.html, contentComplete: false, documentUrl, timedOut: budget.expired };
    }
    accessor.learn(await loader.visible(misses), misses);
  }
}

/** Loads what the resource's page blocks reference and the category chains, and sets up `rsc(…)`. */
async function compositionContext(
  input: RenderAgentMarkdownInput,
  loader: ResourceLoader,
  resource: ComposableResource,
  budget: RenderBudget,
): Promise<{ ctx: CompositionContext; accessor: ResourceAccessor }> {
  const referenceIds = new Set<number>();
  for (const block of resource.blocks) {
    const key = block.type === 'page' ? lookupKey(block.rsc_id) : undefined;
    if (typeof key === 'number' && key !== resource.id) referenceIds.add(key);
  }
  const references = new Map((await loader.visible([...referenceIds])).map((r) => [r.id, r]));
  // The resource's own chain comes with it when its read selected it; only the rest is queried.
  const known = resource.category_chain;
  const wanted = [...(known ? [] : [resource.category_id]), ...[...references.values()].map((r) => r.category_id)];
  const chains = new Map(wanted.length ? await loader.categoryChains(wanted) : []);
  if (known) chains.set(resource.category_id, known);
  const presentation = { options: input.options, baseUrl: input.baseUrl, language: input.language };
  const accessor = new ResourceAccessor((r) => presentResource(presentation, r));
  accessor.learn([resource, ...references.values()]);
  const limits = resolveMarkdownLimits(input.limits);
  const ctx: CompositionContext = { ...presentation, env: input.env, limits, budget, references, chains, rsc: accessor.lookup };
  return { ctx, accessor };
}

/** One render pass of the resource through `_agent_content` (its body and blocks first). */
function composeContent(ctx: CompositionContext, resource: ComposableResource): Rendered {
  const { language } = ctx;
  const categories = ctx.chains.get(resource.category_id) ?? [];
  const template = contentTemplateName(ctx.env, categories);
  if (!template) throw new TemplateRenderError('_agent_content.njk', 'not found in any template directory');
  const body = boundedBody(ctx, resource, language);
  const blocks = renderBlocks(ctx, resource.blocks, { resource, categories, language }, false);
  const html = renderTemplate(ctx.env, template, {
    id: resource.id,
    body_html: body.html,
    blocks_html: blocks.html,
    title: localText(ctx, resource.title, language),
    summary: localText(ctx, resource.summary, language),
    language,
    category: resource.category,
    categories,
    page_url: composedPageUrl(ctx, resource, language),
    uri: resourceUri(ctx, resource),
    license: localText(ctx, resource.license, language),
    attribution: localText(ctx, resource.attribution, language),
    medium: resource.medium
      ? templateMedium(resource.id, resource.medium, ctx.options.mediaUrl ?? DEFAULT_MEDIA_URL, ctx.baseUrl)
      : undefined,
    rsc: ctx.rsc,
  });
  return { html, complete: body.complete && blocks.complete };
}

const inProcess = createMarkdownConverter({ workers: 0 });

/**
 * The Markdown representation of a resource: `renderAgentHtml`, then turndown within the limits
 * (`input.converter`: in process by default, the plugin's worker pool from a route). `undefined` when the
 * resource is missing or not anonymous-visible; `TemplateRenderError` when a template is missing or
 * throws; legitimately empty content is `''`.
 *
 * ```ts
 * const env = createTemplateEnvironment(options.templateDirs)
 * const md = await renderAgentMarkdown({ db, env, options, id: 42, language: 'en', baseUrl: 'https://example.org' })
 * // { markdown: '# Title\n\n…', contentComplete: true }
 * ```
 */
export async function renderAgentMarkdown(input: RenderAgentMarkdownInput): Promise<AgentMarkdown | undefined> {
  const composed = await renderAgentHtml({ ...input, limits: resolveMarkdownLimits(input.limits) });
  return composed && agentHtmlToMarkdown(composed, input);
}

/**
 * The second half of `renderAgentMarkdown`: a composition's HTML converted with turndown within the
 * limits (by `input.converter`, else in process), for a caller that composed with `renderAgentHtml`
 * itself (to read the content in one transaction and convert outside it).
 */
export async function agentHtmlToMarkdown(
  composed: AgentHtml,
  input: Pick<RenderAgentMarkdownInput, 'baseUrl' | 'limits' | 'converter'>,
): Promise<AgentMarkdown> {
  const limits = resolveMarkdownLimits(input.limits);
  const converter = input.converter ?? inProcess;
  const converted = await converter.convert(composed.html, { baseUrl: input.baseUrl, documentUrl: composed.documentUrl }, limits);
  return { markdown: converted.markdown, contentComplete: composed.contentComplete && converted.complete };
}
