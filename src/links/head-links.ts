import type { Request } from 'express';
import type { AgentContext } from '../context.js';
import { escapeHtml, plainLine } from '../content/display-text.js';
import type { AgentLink } from './link-format.js';
import { pageLinks, requestPageLanguage, type PageOptions } from './resource-links.js';

/**
 * `<meta name>` equivalents of three relations, for agent fetchers (FetchKit, for one) that read
 * `<meta>` but skip `<link>` relations they do not know.
 */
const META_NAMES: Record<string, string> = { 'api-catalog': 'api-catalog', 'service-desc': 'service-desc', describedby: 'llms', mcp: 'mcp' };

/**
 * Renders links as `<link>` elements (plus the `<meta name="llms|api-catalog|service-desc|mcp">` hints),
 * one per line, every attribute escaped; a title is one line without control or format characters.
 *
 * ```html
 * <link rel="service-desc" href="https://example.com/openapi.json" type="application/openapi+json">
 * <link rel="alternate" href="https://example.com/agent/resource/21/markdown?language=nl" type="text/markdown" hreflang="nl">
 * <meta name="service-desc" content="https://example.com/openapi.json">
 * ```
 */
export function renderHeadLinks(links: readonly AgentLink[]): string {
  const lines = links.map((l) => {
    const type = l.type ? ` type="${escapeHtml(l.type)}"` : '';
    const hreflang = l.hreflang ? ` hreflang="${escapeHtml(l.hreflang)}"` : '';
    const title = l.title && plainLine(l.title) ? ` title="${escapeHtml(plainLine(l.title))}"` : '';
    return `<link rel="${escapeHtml(l.rel)}" href="${escapeHtml(l.href)}"${type}${hreflang}${title}>`;
  });
  for (const l of links) {
    const name = META_NAMES[l.rel];
    if (name) lines.push(`<meta name="${name}" content="${escapeHtml(l.href)}">`);
  }
  return lines.join('\n');
}

export type HeadLinks = (req: Request, id?: number | string, page?: PageOptions) => Promise<string>;

/**
 * The head-links renderer: `await agent.headLinks(req, id, { language })` gives the HTML for `<head>`.
 * Without a language, the one `resourceLinks`/`setResourceHeaders` resolved for this request, else the
 * site's default: the head always matches the Link header.
 */
export function createHeadLinks(ctx: AgentContext): HeadLinks {
  return async function headLinks(req: Request, id?: number | string, page: PageOptions = {}): Promise<string> {
    return renderHeadLinks(await pageLinks(ctx, req, id, requestPageLanguage(ctx.options, req, page.language)));
  };
}
