import type { Block } from '../db/schema.js';
import type { ComposableResource } from '../content/composable-resources.js';
import {
  languageOf,
  localText,
  composedPageUrl,
  resourceUri,
  type CompositionContext,
  type Owner,
  type Rendered,
} from './composition-context.js';
import { markerHtml, markerText } from './markers.js';
import { lookupKey } from './resource-accessor.js';
import { blockTemplateName, isSurveyBlock, renderTemplate } from './template-selection.js';
import { truncateHtml } from './truncate-html.js';
import { byteLength } from './utf8.js';

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

/** A resource's body in `language`, cut to `maxHtmlBytes` with a marker. */
export function boundedBody(ctx: CompositionContext, r: ComposableResource, language: string): Rendered {
  const { maxHtmlBytes } = ctx.limits;
  const cut = truncateHtml(localText(ctx, r.body, language), maxHtmlBytes);
  return cut.truncated
    ? { html: cut.html + markerHtml(markerText.htmlTruncated(maxHtmlBytes)), complete: false }
    : { html: cut.html, complete: true };
}

/**
 * Renders blocks in order (survey blocks never); stops with a marker once the budget is spent or the
 * HTML so far exceeds `maxHtmlBytes`. `inReference`: the blocks of a referenced page, where only
 * header and text blocks are rendered.
 */
export function renderBlocks(ctx: CompositionContext, blocks: readonly Block[], owner: Owner, inReference: boolean): Rendered {
  const { budget, limits } = ctx;
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
    const rendered = renderBlock(ctx, block, owner, inReference);
    complete &&= rendered.complete;
    parts.push(rendered.html);
    bytes += byteLength(rendered.html);
  }
  return { html: parts.join('\n'), complete };
}

/** The marker standing for a block that is not rendered inside a referenced page, if `type` is one. */
function referenceOmission(block: Block, type: string): Rendered | undefined {
  if (type === 'page') {
    const rscId = typeof lookupKey(block.rsc_id) === 'number' ? Number(block.rsc_id) : undefined;
    return { html: markerHtml(markerText.nestedPage(rscId)), complete: false };
  }
  if (type !== 'header' && type !== 'text') return { html: markerHtml(markerText.referencedBlock(type)), complete: false };
  return undefined;
}

/** One block through its `_agent_block_<type>` template; a page block with its reference expanded. */
function renderBlock(ctx: CompositionContext, block: Block, owner: Owner, inReference: boolean): Rendered {
  const type = typeof block.type === 'string' ? block.type : '';
  const omitted = inReference ? referenceOmission(block, type) : undefined;
  if (omitted) return omitted;
  const template = blockTemplateName(ctx.env, type, owner.categories);
  if (!template) return { html: markerHtml(markerText.unsupportedBlock(type)), complete: false };
  const refKey = lookupKey(block.rsc_id);
  let expanded: { reference: TemplateReference; complete: boolean } | undefined;
  if (type === 'page') {
    const target = typeof refKey === 'number' && refKey !== owner.resource.id ? ctx.references.get(refKey) : undefined;
    // A missing, private, unpublished or out-of-window reference is left out silently.
    if (!target) return { html: '', complete: true };
    expanded = expandReference(ctx, target);
  }
  const blk: TemplateBlock = {
    type,
    name: typeof block.name === 'string' ? block.name : '',
    header: localText(ctx, block.header, owner.language),
    body: localText(ctx, block.body, owner.language),
    props: block.props && typeof block.props === 'object' ? block.props : {},
    rsc_id: typeof refKey === 'number' ? refKey : undefined,
  };
  const html = renderTemplate(ctx.env, template, {
    id: owner.resource.id,
    blk,
    reference: expanded?.reference,
    rsc: ctx.rsc,
    language: owner.language,
    category: owner.resource.category,
  });
  return { html, complete: expanded?.complete ?? true };
}

/** A page block's referenced resource with its body and its header and text blocks rendered. */
function expandReference(ctx: CompositionContext, target: ComposableResource): { reference: TemplateReference; complete: boolean } {
  const lang = languageOf(ctx, target);
  const language = lang.language;
  const owner: Owner = { resource: target, categories: ctx.chains.get(target.category_id) ?? [], language };
  const body = boundedBody(ctx, target, language);
  const blocks = renderBlocks(ctx, target.blocks, owner, true);
  const reference: TemplateReference = {
    id: target.id,
    name: target.name,
    title: localText(ctx, target.title, language),
    summary: localText(ctx, target.summary, language),
    body_html: body.html,
    blocks_html: blocks.html,
    language,
    is_fallback: lang.is_fallback,
    category: target.category,
    page_url: composedPageUrl(ctx, target, language),
    uri: resourceUri(ctx, target),
    license: localText(ctx, target.license, language),
    attribution: localText(ctx, target.attribution, language),
  };
  return { reference, complete: body.complete && blocks.complete };
}
