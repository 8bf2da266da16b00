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
  /** Only with the `robotsTxt` option: the RSL 1.0 licence (`application/rsl+xml`) robots.txt's `License:` line names. */
  licenseXml: pathTemplate('/license.xml'),
  /** Only with the `sitemap` option: the sitemap, or the index of its parts. */
  sitemap: pathTemplate('/sitemap.xml'),
  /** A part of a big site's sitemap: the listable resources from id `from` on. */
  sitemapPart: pathTemplate('/sitemaps/{from}.xml'),
  ard: pathTemplate('/.well-known/ard.json'),
  /** The legacy (ARD v0.9) location of the same manifest. */
  aiCatalog: pathTemplate('/.well-known/ai-catalog.json'),
  /** The MCP server card, under the endpoint's path (`<mcp-path>/server-card`, where the extension reserves it). */
  mcpServerCard: (mcpPath: string) => pathTemplate(`${mcpPath}/server-card`),
  /** Older locations of the same card, kept as aliases. */
  mcpServerCardAliases: [pathTemplate('/.well-known/mcp/server-card.json'), pathTemplate('/.well-known/mcp/server-card')],
  /** The Agent Skills Discovery (v0.2) index. */
  agentSkillsIndex: pathTemplate('/.well-known/agent-skills/index.json'),
  /** The one skill the index lists (`SKILL_NAME`, `site-content`): how to use this site's read API. */
  agentSkill: pathTemplate('/.well-known/agent-skills/site-content/SKILL.md'),
  apiRoot: pathTemplate('/api/agent'),
  search: pathTemplate('/api/agent/search'),
  resource: pathTemplate('/api/agent/resource/{id}'),
  related: pathTemplate('/api/agent/related/{id}'),
  schema: pathTemplate('/api/agent/schema'),
  /** The change feed: public resources changed and ids removed since a time or an earlier answer. */
  changes: pathTemplate('/api/agent/changes'),
  markdown: pathTemplate('/agent/resource/{id}/markdown'),
  /** The IndexNow key file (only with the `indexNow` option): the key, at the root. */
  indexNowKey: (key: string) => pathTemplate(`/${key}.txt`),
  /** NLWeb's ask endpoint, in list mode (only with the `nlweb` option). */
  ask: pathTemplate('/ask'),
  /** The entity identifier of a resource without a stored `uri`; negotiated to the Markdown or JSON read. */
  entity: pathTemplate('/id/{id}'),
  /** The compatibility edge reads, one per form (`o`, `s`, `o_props`, `s_props`). */
  compatEdges: (form: string) => pathTemplate(`/api/model/edge/get/${form}/{id}/{predicate}`),
} as const;

