/** Markdown composition: the public surface of `src/markdown/`. */
export { createTemplateEnvironment, templateExists, templateSearchPaths, DEFAULT_TEMPLATE_PREFIX } from './template-environment.js';
export { renderAgentHtml, renderAgentMarkdown, MAX_RENDER_PASSES } from './compose.js';
export type { AgentHtml, AgentMarkdown, RenderAgentMarkdownInput, TemplateBlock, TemplateReference } from './compose.js';
export type { TemplateResource } from './resource-accessor.js';
export { htmlToMarkdown, boundedHtmlToMarkdown, type ConvertOptions } from './convert.js';
export { DEFAULT_MARKDOWN_LIMITS, resolveMarkdownLimits, type MarkdownLimits } from './limits.js';
export { TemplateRenderError } from './template-errors.js';
export { toMarkdown, type ToMarkdownOptions, type ToMarkdownResult } from './to-markdown.js';
