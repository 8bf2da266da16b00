/**
 * Every check `runSiteChecks` makes, in report order: its name for people and its weight in the
 * readiness score (see `readinessScore`). The weights follow what an agent loses when the check
 * fails: the entry points every agent and scanner reads first (the Link header, llms.txt, Markdown
 * on the page URL) weigh most; conventions fewer clients use weigh least.
 */
export const CHECK_CATALOG = {
  'home-link-header': { name: 'Home page Link header', weight: 10 },
  'home-head': { name: 'Home page <head> links', weight: 5 },
  probes: { name: 'Conventional paths (HEAD, direct answers)', weight: 4 },
  'catch-all': { name: 'Unpublished /.well-known/ path is 404', weight: 3 },
  'discovery-documents': { name: 'Discovery documents published', weight: 5 },
  'home-markdown': { name: 'Home page in Markdown', weight: 4 },
  'llms-txt': { name: 'llms.txt (llmstxt.org reference grammar)', weight: 10 },
  page: { name: 'A resource page', weight: 5 },
  'page-link-header': { name: 'Page Link header', weight: 8 },
  'page-head': { name: 'Page <head> links', weight: 4 },
  'markdown-negotiation': { name: 'Markdown negotiation on the page URL', weight: 8 },
  'resource-read': { name: 'Resource read (the page alternates)', weight: 6 },
  'resource-language': { name: 'Resource language', weight: 4 },
  translations: { name: 'Translations linked (hreflang)', weight: 3 },
  'md-twins': { name: '.md twins of the page and home', weight: 3 },
  'markdown-404': { name: 'Markdown 404 on a page URL', weight: 3 },
  'api-catalog': { name: 'API catalog (RFC 9264 linkset)', weight: 8 },
  'api-catalog-links': { name: 'API catalog links resolve', weight: 4 },
  openapi: { name: 'OpenAPI document', weight: 8 },
  ard: { name: 'ARD manifest entries', weight: 6 },
  'mcp-card': { name: 'MCP server card', weight: 5 },
  'mcp-protocol': { name: 'MCP endpoint (2025-11-25 and 2026-07-28, Origin checked)', weight: 5 },
  'robots-txt': { name: 'robots.txt', weight: 5 },
  'content-signals': { name: 'AI preferences (Content Signals)', weight: 4 },
  'license-policy': { name: 'RSL licence agrees with robots.txt', weight: 3 },
  sitemap: { name: 'Sitemap (full date-time lastmod, hreflang)', weight: 4 },
  cors: { name: 'Public CORS on the discovery documents', weight: 4 },
  'cors-page-markdown': { name: 'CORS on the page\'s Markdown', weight: 3 },
  'change-feed': { name: 'Change feed (what changed since a visit)', weight: 4 },
  'skills-index': { name: 'Agent Skills index (digests match)', weight: 3 },
  'oauth-metadata': { name: 'OAuth metadata', weight: 2 },
} as const satisfies Record<string, { name: string; weight: number }>;

export type CheckId = keyof typeof CHECK_CATALOG;

/** The weight of a `--private` or `--noindex` check (`private:<ref>`, `noindex:<ref>`). */
export const HIDDEN_CHECK_WEIGHT = 5;

/** A check's name. */
export const checkName = (id: CheckId): string => CHECK_CATALOG[id].name;

/** A check's weight, by its id (`private:…` and `noindex:…` included). */
export function checkWeight(id: string): number {
  return id in CHECK_CATALOG ? CHECK_CATALOG[id as CheckId].weight : HIDDEN_CHECK_WEIGHT;
}
