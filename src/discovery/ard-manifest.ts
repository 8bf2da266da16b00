import { MCP_ARD_NAME, type ResolvedOptions } from '../options.js';
import { PATHS, absoluteUrl } from '../http/paths.js';
import { MEDIA } from './site-links.js';

/** `urn:air:<public host>:<namespace>:<name>`: the host lower-case, without port. */
export function ardIdentifier(base: string, namespace: string, name: string): string {
  return `urn:air:${new URL(base).hostname.toLowerCase()}:${namespace}:${name}`;
}

/**
 * The ARD manifest (ARD `specVersion` 1.0): one entry for the content API, pointing at the
 * OpenAPI document, and one for the MCP server's card when `mcp` is on. A trust manifest only when the operator configured an identity.
 */
export function buildArdManifest(options: ResolvedOptions, base: string, updatedAt: Date) {
  const { ard } = options;
  const title = options.siteTitle.replace(/\s+/g, ' ').trim();
  const entry = {
    identifier: ardIdentifier(base, ard.namespace, ard.name),
    displayName: `${title} content API`,
    type: MEDIA.openapi,
    url: absoluteUrl(base, PATHS.openapi),
    description:
      (options.description ? `${options.description.replace(/\s+/g, ' ').trim()} ` : '') +
      'Read-only, anonymous API over the public content of the site: full-text search, localized reads with citation URLs, relationships, vocabulary and Markdown.',
    representativeQueries: [...ard.representativeQueries],
    updatedAt: updatedAt.toISOString(),
    ...(ard.identity ? { trustManifest: { identity: ard.identity.trustManifestUrl, identityType: 'https' } } : {}),
  };
  // With the `mcp` option on: an entry for the MCP server, pointing at its server card.
  const mcp = options.mcp
    ? {
        ...entry,
        identifier: ardIdentifier(base, ard.namespace, MCP_ARD_NAME),
        displayName: `${title} MCP server`,
        type: MEDIA.mcpServerCard,
        url: absoluteUrl(base, PATHS.mcpServerCard),
        description:
          (options.description ? `${options.description.replace(/\s+/g, ' ').trim()} ` : '') +
          'Read-only, anonymous MCP server (Streamable HTTP) over the public content of the site: tools to search, read resources as Markdown with citation URLs, follow relationships and list the vocabulary.',
      }
    : undefined;
  return {
    specVersion: '1.0',
    host: { displayName: title, documentationUrl: absoluteUrl(base, PATHS.apiHelp) },
    entries: mcp ? [entry, mcp] : [entry],
  };
}
