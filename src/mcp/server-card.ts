import type { ResolvedOptions } from '../options.js';
import { MCP_ARD_NAME } from '../options.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import type { SiteTerms } from '../settings/site-license.js';

/** The JSON Schema a server card declares: the server-card extension's schema accepts only its `v1` URL. */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
/** The version of the tools' contract (the same as the OpenAPI document's `info.version`). */
export const MCP_SERVER_VERSION = '1.0.0';
/** The card's `title` and `description` are at most 100 characters. */
const CARD_TEXT_MAX = 100;

const clip = (text: string): string => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= CARD_TEXT_MAX ? one : `${one.slice(0, CARD_TEXT_MAX - 1).trimEnd()}…`;
};

/**
 * The reverse-DNS server name of the card, from the public host: `docs.example.org` →
 * `org.example.docs/mcp`. An IP literal is kept in its order; characters the card's pattern
 * (`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`) does not allow (an IPv6 literal's `[`, `:`) become `-`.
 */
export function serverCardName(base: string): string {
  const host = new URL(base).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const ipv4 = /^[0-9]+(?:\.[0-9]+){3}$/.test(host);
  const dns = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/.test(host);
  const namespace = dns && !ipv4 ? host.split('.').reverse().join('.') : host.replace(/[^a-z0-9.-]/g, '-');
  return `${namespace}/${MCP_ARD_NAME}`;
}

/**
 * The MCP server card (the server-card extension's `ServerCard`): identity and where to connect,
 * nothing about primitives (clients list the tools over the protocol). `options` are the options in
 * force (`effectiveOptions`): the site's licence and copyright, when set, are in `_meta` (see
 * {@link siteTermsMeta}).
 *
 * ```json
 * { "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
 *   "name": "org.example/mcp", "version": "1.0.0", "title": "Example", "description": "…",
 *   "websiteUrl": "https://example.org/api-help",
 *   "remotes": [{ "type": "streamable-http", "url": "https://example.org/mcp" }],
 *   "_meta": { "org.schema/license": { "name": "CC BY 4.0", "url": "https://creativecommons.org/licenses/by/4.0/" } } }
 * ```
 */
export function buildServerCard(options: ResolvedOptions, base: string, mcpPath: string) {
  const meta = siteTermsMeta(options);
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: serverCardName(base),
    version: MCP_SERVER_VERSION,
    title: clip(options.siteTitle),
    description: clip(mcpDescription(options)),
    websiteUrl: absoluteUrl(base, PATHS.apiHelp.url()),
    remotes: [{ type: 'streamable-http' as const, url: absoluteUrl(base, mcpPath) }],
    ...(meta ? { _meta: meta } : {}),
  };
}

/**
 * The site's licence and copyright for the card's `_meta`, which the card keeps for metadata under
 * reverse-DNS keys (it has no licence field): schema.org's `license` (`{ name, url }`, as set) and
 * `copyrightNotice`; undefined when neither is set.
 */
export function siteTermsMeta(options: SiteTerms): Record<string, unknown> | undefined {
  const { siteLicense: license, siteCopyright: copyright } = options;
  if (!license && !copyright) return undefined;
  return {
    ...(license ? { 'org.schema/license': { ...license } } : {}),
    ...(copyright ? { 'org.schema/copyrightNotice': copyright } : {}),
  };
}

/** What the MCP server offers, in one sentence (the card, the ARD entry and the server's instructions). */
export function mcpDescription(options: ResolvedOptions): string {
  return `Read-only, anonymous MCP access to the public content of ${options.siteTitle.replace(/\s+/g, ' ').trim()}.`;
}
