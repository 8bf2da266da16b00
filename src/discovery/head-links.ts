import type { Request } from 'express';
import type { AgentContext } from '../context.js';
import { plainLine } from '../content/display-text.js';
import type { AgentLink } from './link-format.js';
import { pageLinks } from './resource-links.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an HTML attribute value or text node. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** `<meta name>` equivalents FetchKit-style clients read for relations HTML `<link>` does not cover. */
const META_NAMES: Record<string, string> = { 'api-catalog': 'api-catalog', 'service-desc': 'service-desc', describedby: 'llms' };

/**
 * Renders links as `<link>` elements (plus the `<meta name="llms|api-catalog|service-desc">` hints),
 * one per line, every attribute escaped; a title is one line without control or format characters.
 *
 * ```html
 * <link rel="service-desc" href="https://example.com/openapi.json" type="application/openapi+json">
 * <meta name="service-desc" content="https://example.com/openapi.json">
 * ```
 */
export function renderHeadLinks(links: readonly AgentLink[]): string {
  const lines = links.map((l) => {
    const type = l.type ? ` type="${escapeHtml(l.type)}"` : '';
    const title = l.title && plainLine(l.title) ? ` title="${escapeHtml(plainLine(l.title))}"` : '';
    return `<link rel="${escapeHtml(l.rel)}" href="${escapeHtml(l.href)}"${type}${title}>`;
  });
  for (const l of links) {
    const name = META_NAMES[l.rel];
    if (name) lines.push(`<meta name="${name}" content="${escapeHtml(l.href)}">`);
  }
  return lines.join('\n');
}

/** The head-links renderer: `await agent.headLinks(req, id)` gives the HTML for `<head>`. */
export function createHeadLinks(ctx: AgentContext): (req: Request, id?: number | string) => Promise<string> {
  return async function headLinks(req: Request, id?: number | string): Promise<string> {
    return renderHeadLinks(await pageLinks(ctx, req, id));
  };
}
