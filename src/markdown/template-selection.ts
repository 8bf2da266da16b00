import type nunjucks from 'nunjucks';
import { templateExists } from './template-environment.js';
import { TemplateRenderError } from './template-errors.js';
import { isName } from '../content/resource-ref.js';

/** Block type and category names that may take part in a template name (names); anything else is unsupported. */
const usable = isName;

/** `survey_*` blocks are never rendered and never mark the content incomplete. */
export const isSurveyBlock = (type: unknown): boolean => typeof type === 'string' && /^survey(_|$)/.test(type);

/**
 * The composition template for a resource whose category chain (own category first, then each
 * ancestor) is `categories`: `_agent_content.<category>.njk` for the first category that has one,
 * else `_agent_content.njk`; `undefined` when not even that exists.
 */
export function contentTemplateName(env: nunjucks.Environment, categories: readonly string[]): string | undefined {
  for (const category of categories) {
    if (!usable(category)) continue;
    const name = `_agent_content.${category}.njk`;
    if (templateExists(env, name)) return name;
  }
  return templateExists(env, '_agent_content.njk') ? '_agent_content.njk' : undefined;
}

/**
 * The renderer of a block type: `_agent_block_<type>.<category>.njk` along the category chain, then
 * `_agent_block_<type>.njk`. `undefined` for an invalid type name, a survey block, or no renderer.
 */
export function blockTemplateName(env: nunjucks.Environment, type: unknown, categories: readonly string[]): string | undefined {
  if (typeof type !== 'string' || !usable(type) || isSurveyBlock(type)) return undefined;
  for (const category of categories) {
    if (!usable(category)) continue;
    const name = `_agent_block_${type}.${category}.njk`;
    if (templateExists(env, name)) return name;
  }
  const generic = `_agent_block_${type}.njk`;
  return templateExists(env, generic) ? generic : undefined;
}

/** Renders one template; whatever it throws becomes a `TemplateRenderError` naming it. */
export function renderTemplate(env: nunjucks.Environment, name: string, context: object): string {
  try {
    return env.render(name, context);
  } catch (error) {
    throw new TemplateRenderError(name, (error as Error)?.message ?? String(error), { cause: error });
  }
}
