import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import { buildApiCatalog } from './api-catalog.js';
import { documentRoute } from './document-route.js';
import { formatAgentLink } from './link-format.js';
import { MEDIA } from './site-links.js';

/** `GET /.well-known/api-catalog`: the RFC 9727 linkset, with its own `rel="api-catalog"` Link. */
export function apiCatalogRoute() {
  return documentRoute(PATHS.apiCatalog, MEDIA.linkset, (_ctx, base) => ({
    body: JSON.stringify(buildApiCatalog(base)),
    headers: { Link: formatAgentLink({ href: absoluteUrl(base, PATHS.apiCatalog.url()), rel: 'api-catalog' }) },
  }));
}
