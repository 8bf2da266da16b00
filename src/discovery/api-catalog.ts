import { PATHS, absoluteUrl } from '../http/paths.js';
import { MEDIA } from './site-links.js';

/**
 * The API catalog (RFC 9727) as an RFC 9264 linkset: `linkset` is the only member; one context for
 * the API, identified by its root document `/api/agent` (its description, documentation and
 * metadata), one anchored at the catalog itself that lists the API as an `item`.
 */
export function buildApiCatalog(base: string): { linkset: Record<string, unknown>[] } {
  const api = absoluteUrl(base, PATHS.apiRoot);
  return {
    linkset: [
      {
        anchor: api,
        'service-desc': [{ href: absoluteUrl(base, PATHS.openapi), type: MEDIA.openapi }],
        'service-doc': [{ href: absoluteUrl(base, PATHS.apiHelp), type: 'text/html' }],
        'service-meta': [{ href: absoluteUrl(base, PATHS.ard), type: MEDIA.ard }],
      },
      {
        anchor: absoluteUrl(base, PATHS.apiCatalog),
        item: [{ href: api }],
      },
    ],
  };
}
