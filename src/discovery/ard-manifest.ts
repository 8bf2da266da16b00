import { MCP_ARD_NAME, type ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import { MEDIA } from '../links/site-links.js';
import { plainLine } from '../content/display-text.js';

/**
 * The publisher used when the public host is not a domain name (an IP address, `localhost`, a
 * single-label name): a name under the reserved `.localhost` top-level domain, so the identifier stays
 * valid for ARD validators and can never claim somebody else's domain.
 */
export const ARD_PLACEHOLDER_PUBLISHER = 'agent.localhost';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * The publisher segment of the ARD identifier: the public base URL's host name, lower-case, without
 * port or trailing dot (IDNs in their `xn--` form), when it is a domain name of two or more labels
 * whose last label is not numeric; otherwise `ARD_PLACEHOLDER_PUBLISHER`.
 *
 * ```text
 * https://Example.org:8443 → example.org      http://[::1]:3000 → agent.localhost
 * http://127.0.0.1:3000    → agent.localhost  http://localhost  → agent.localhost
 * ```
 */
export function ardPublisher(base: string): string {
  if (!URL.canParse(base)) return ARD_PLACEHOLDER_PUBLISHER;
  const host = new URL(base).hostname.toLowerCase().replace(/\.$/, '');
  const labels = host.split('.');
  const domain = host.length <= 253 && labels.length >= 2 && labels.every((l) => LABEL.test(l)) && !/^[0-9]+$/.test(labels.at(-1)!);
  return domain ? host : ARD_PLACEHOLDER_PUBLISHER;
}

/** `urn:air:<publisher>:<namespace>:<name>`, the publisher from `ardPublisher`. */
export function ardIdentifier(base: string, namespace: string, name: string): string {
  return `urn:air:${ardPublisher(base)}:${namespace}:${name}`;
}

/**
 * The ARD manifest, also a valid AI Catalog (`specVersion` 1.0, `host`, `entries`): one entry for the
 * content API, pointing at the OpenAPI document, and one for the MCP server's card when `mcp` is on.
 * Each entry carries what an ARD v0.91 entry requires (`identifier`, `displayName`, `type`, `url`) and
 * the 2 to 5 `representativeQueries` search depends on. A trust manifest only when the operator
 * configured an identity.
 */
export function buildArdManifest(options: ResolvedOptions, base: string, updatedAt: Date) {
  const { ard } = options;
  const title = options.siteTitle.replace(/\s+/g, ' ').trim();
  // JSON carries the description as the plain text it is, on one line, before each entry's own sentence.
  const described = options.description ? `${plainLine(options.description)} ` : '';
  const entry = {
    identifier: ardIdentifier(base, ard.namespace, ard.name),
    displayName: `${title} content API`,
    type: MEDIA.openapi,
    url: absoluteUrl(base, PATHS.openapi.url()),
    description:
      described +
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
        url: absoluteUrl(base, PATHS.mcpServerCard(options.mcp.path).url()),
        description:
          described +
          'Read-only, anonymous MCP server (Streamable HTTP) over the public content of the site: tools to search, read resources as Markdown with citation URLs, follow relationships and list the vocabulary.',
      }
    : undefined;
  return {
    specVersion: '1.0',
    host: { displayName: title, documentationUrl: absoluteUrl(base, PATHS.apiHelp.url()) },
    entries: mcp ? [entry, mcp] : [entry],
  };
}
