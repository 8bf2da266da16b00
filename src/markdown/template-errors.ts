/**
 * A Markdown representation could not be composed: a template is missing or threw. The Markdown
 * route answers 503 with `Cache-Control: no-store`, never an empty 200.
 */
export class TemplateRenderError extends Error {
  override readonly name = 'TemplateRenderError';
  constructor(
    /** The template that failed, e.g. `_agent_content.article.njk`. */
    readonly template: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`express-agent-discovery: template ${template}: ${message}`, options);
  }
}
