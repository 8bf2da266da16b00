import type { AgentContext } from '../context.js';
import type { ResourceRow } from '../content/resource.js';
import { renderAgentMarkdown, TemplateRenderError } from '../markdown/index.js';
import { toComposable } from '../content/composable-resources.js';
import { notFound, unavailable } from '../http/errors.js';

/**
 * The composed Markdown of a visible resource (as `readVisibleResource` returned it) in an already
 * chosen language, shared by the JSON read and the Markdown route. A template that cannot render is a 503 (never an empty 200); a
 * resource that turned invisible meanwhile is a 404.
 */
export async function composeResourceContent(
  ctx: AgentContext,
  row: ResourceRow,
  language: string,
  base: string,
): Promise<{ markdown: string; contentComplete: boolean }> {
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
