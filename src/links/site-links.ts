import { PATHS } from '../paths.js';
import { absoluteUrl, resolveOnBase } from '../http/urls.js';
import type { AgentLink } from './link-format.js';

/** Media types the discovery documents are served and advertised with. */
export const MEDIA = {
  openapi: 'application/openapi+json',
  linkset: 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
  llmsTxt: 'text/plain; charset=utf-8',
  ard: 'application/json',
  aiCatalog: 'application/ai-catalog+json',
  html: 'text/html; charset=utf-8',
  markdown: 'text/markdown',
  json: 'application/json',
  mcpServerCard: 'application/mcp-server-card+json',
} as const;

/**
 * The site-level Link set, defined once: headers, `<head>` and the home page all use it.
 *
 * ```text
 * <https://example.com/.well-known/api-catalog>; rel="api-catalog"; type="application/linkset+json"
 * <https://example.com/openapi.json>; rel="service-desc"; type="application/openapi+json"
 * <https://example.com/api-help>; rel="service-doc"; type="text/html"
 * <https://example.com/llms.txt>; rel="describedby"; type="text/plain"
 * <https://example.com/.well-known/ard.json>; rel="ard"; type="application/json"
 * ```
 */
export function siteLinks(base: string, mcpPath?: string): AgentLink[] {
  return [
    { href: absoluteUrl(base, PATHS.apiCatalog.url()), rel: 'api-catalog', type: 'application/linkset+json' },
    { href: absoluteUrl(base, PATHS.openapi.url()), rel: 'service-desc', type: MEDIA.openapi },
    { href: absoluteUrl(base, PATHS.apiHelp.url()), rel: 'service-doc', type: 'text/html' },
    { href: absoluteUrl(base, PATHS.llmsTxt.url()), rel: 'describedby', type: 'text/plain' },
    { href: absoluteUrl(base, PATHS.ard.url()), rel: 'ard', type: MEDIA.ard },
    // With the `mcp` option on: `<https://example.com/mcp>; rel="mcp"` (the Streamable HTTP endpoint).
    ...(mcpPath ? [{ href: absoluteUrl(base, mcpPath), rel: 'mcp' }] : []),
  ];
}

/**
 * The per-resource alternates (only for anonymous-visible and indexable resources), in the page's
 * language: the JSON read first and the Markdown last, so that parsers keeping the last value per
 * relation find the Markdown.
 *
 * ```text
 * <https://example.com/api/agent/resource/21?language=nl>; rel="alternate"; type="application/json"; hreflang="nl"
 * <https://example.com/agent/resource/21/markdown?language=nl>; rel="alternate"; type="text/markdown"; hreflang="nl"
 * ```
 */
export function resourceAlternates(base: string, ref: number | string, language: string): AgentLink[] {
  return [
    { href: absoluteUrl(base, PATHS.resource.url({ id: ref }), { language }), rel: 'alternate', type: MEDIA.json, hreflang: language },
    { href: absoluteUrl(base, PATHS.markdown.url({ id: ref }), { language }), rel: 'alternate', type: MEDIA.markdown, hreflang: language },
  ];
}

/**
 * The human page in each of its languages (only for anonymous-visible and indexable resources with
 * two or more of the site's languages): hreflang alternates of the page, before the JSON and Markdown
 * alternates so that the Markdown stays the last `alternate`.
 *
 * ```text
 * <https://example.com/en/page/21>; rel="alternate"; type="text/html"; hreflang="en"
 * <https://example.com/nl/page/21>; rel="alternate"; type="text/html"; hreflang="nl"
 * ```
 */
export function translationLinks(base: string, pages: readonly { language: string; url: string }[]): AgentLink[] {
  if (pages.length < 2) return [];
  return pages.map((p) => ({ href: resolveOnBase(base, p.url), rel: 'alternate', type: 'text/html', hreflang: p.language }));
}

/**
 * The home page's Markdown (with `markdownHome`: `/` answers a request preferring Markdown with the
 * llms.txt body), advertised on `/` only.
 *
 * ```text
 * <https://example.com/>; rel="alternate"; type="text/markdown"
 * ```
 */
export function homeMarkdownAlternate(base: string): AgentLink {
  return { href: absoluteUrl(base, '/'), rel: 'alternate', type: MEDIA.markdown };
}
