import { pathTemplate } from './http/urls.js';

/**
 * Every path the plugin answers, each written once as an OpenAPI path template: the routes register
 * `expressPath`, OpenAPI lists `template`, and every link and item builds its URL with `url(…)`.
 */
export const PATHS = {
  apiHelp: pathTemplate('/api-help'),
  openapi: pathTemplate('/openapi.json'),
  apiCatalog: pathTemplate('/.well-known/api-catalog'),
  llmsTxt: pathTemplate('/llms.txt'),
  /** The llms.txt of one public, indexable top-level category, by the reference `cat=` takes (name, else id). */
  llmsCategory: pathTemplate('/llms/{category}.txt'),
  /** Only with the `llmsFull` option. */
  llmsFull: pathTemplate('/llms-full.txt'),
  /** Only with the `robotsTxt` option. */
  robotsTxt: pathTemplate('/robots.txt'),
  ard: pathTemplate('/.well-known/ard.json'),
  /** The legacy (ARD v0.9) location of the same manifest. */
  aiCatalog: pathTemplate('/.well-known/ai-catalog.json'),
  /** The MCP server card, under the endpoint's path (`<mcp-path>/server-card`, where the extension reserves it). */
  mcpServerCard: (mcpPath: string) => pathTemplate(`${mcpPath}/server-card`),
  /** Older locations of the same card, kept as aliases. */
  mcpServerCardAliases: [pathTemplate('/.well-known/mcp/server-card.json'), pathTemplate('/.well-known/mcp/server-card')],
  apiRoot: pathTemplate('/api/agent'),
  search: pathTemplate('/api/agent/search'),
  resource: pathTemplate('/api/agent/resource/{id}'),
  related: pathTemplate('/api/agent/related/{id}'),
  schema: pathTemplate('/api/agent/schema'),
  markdown: pathTemplate('/agent/resource/{id}/markdown'),
  /** The entity identifier of a resource without a stored `uri`; negotiated to the Markdown or JSON read. */
  entity: pathTemplate('/id/{id}'),
  /** The compatibility edge reads, one per form (`o`, `s`, `o_props`, `s_props`). */
  compatEdges: (form: string) => pathTemplate(`/api/model/edge/get/${form}/{id}/{predicate}`),
} as const;

