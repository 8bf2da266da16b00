import type { ResolvedOptions } from '../options.js';
import { MCP_ARD_NAME } from '../options.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';

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
 * nothing about primitives (clients list the tools over the protocol).
 *
 * ```json
 * { "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
 *   "name": "org.example/mcp", "version": "1.0.0", "title": "Example", "description": "…",
 *   "websiteUrl": "https://example.org/api-help",
 *   "remotes": [{ "type": "streamable-http", "url": "https://example.org/mcp" }] }
 * ```
 */
export function buildServerCard(options: ResolvedOptions, base: string, mcpPath: string) {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: serverCardName(base),
    version: MCP_SERVER_VERSION,
    title: clip(options.siteTitle),
    description: clip(mcpDescription(options)),
    websiteUrl: absoluteUrl(base, PATHS.apiHelp.url()),
    remotes: [{ type: 'streamable-http' as const, url: absoluteUrl(base, mcpPath) }],
  };
}

/** What the MCP server offers, in one sentence (the card, the ARD entry and the server's instructions). */
export function mcpDescription(options: ResolvedOptions): string {
  return `Read-only, anonymous MCP access to the public content of ${options.siteTitle.replace(/\s+/g, ' ').trim()}.`;
}
