import TurndownService from 'turndown';
import type { AgentContext } from '../context.js';
import { localize } from '../content/language.js';
import { readVisibleResource } from '../content/resource.js';

/**
 * Interim content of the JSON read until the Markdown composition lands: the body only, converted,
 * always marked incomplete.
 */
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' }).remove(['script', 'style']);

export async function composeResourceContent(
  ctx: AgentContext,
  id: number,
  language: string,
  _base: string,
): Promise<{ markdown: string; contentComplete: boolean }> {
  const row = await readVisibleResource(ctx.db, id);
  if (!row) return { markdown: '', contentComplete: false };
  return { markdown: turndown.turndown(localize(row.body, language, ctx.options.defaultLanguage)), contentComplete: false };
}
