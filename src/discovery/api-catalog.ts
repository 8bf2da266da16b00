import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import { MEDIA } from '../links/site-links.js';

/**
 * The API catalog (RFC 9727) as an RFC 9264 linkset: `linkset` is the only member; one context for
 * the API, identified by its root document `/api/agent` (its description, documentation and
 * metadata), one anchored at the catalog itself that lists the API as an `item`.
 */
export function buildApiCatalog(base: string): { linkset: Record<string, unknown>[] } {
  const api = absoluteUrl(base, PATHS.apiRoot.url());
  return {
    linkset: [
      {
        anchor: api,
        'service-desc': [{ href: absoluteUrl(base, PATHS.openapi.url()), type: MEDIA.openapi }],
        'service-doc': [{ href: absoluteUrl(base, PATHS.apiHelp.url()), type: 'text/html' }],
        'service-meta': [{ href: absoluteUrl(base, PATHS.ard.url()), type: MEDIA.ard }],
      },
      {
        anchor: absoluteUrl(base, PATHS.apiCatalog.url()),
        item: [{ href: api }],
      },
    ],
  };
}
