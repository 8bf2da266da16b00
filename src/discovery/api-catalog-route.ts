import { PATHS } from '../paths.js';
import { fixedBody } from '../http/representation.js';
import { absoluteUrl } from '../http/urls.js';
import { buildApiCatalog } from './api-catalog.js';
import { documentRoute } from './document-route.js';
import { formatAgentLink } from '../links/link-format.js';
import { cachedPerBase } from './cached-document.js';
import { MEDIA } from '../links/site-links.js';

/** `GET /.well-known/api-catalog`: the RFC 9727 linkset, with its own `rel="api-catalog"` Link. */
export function apiCatalogRoute() {
  // It depends on the public base alone: built once per base, like OpenAPI, its bytes and ETag too.
  const catalog = cachedPerBase('api-catalog', (base) =>
    fixedBody({
      body: JSON.stringify(buildApiCatalog(base)),
      headers: { Link: formatAgentLink({ href: absoluteUrl(base, PATHS.apiCatalog.url()), rel: 'api-catalog' }) },
    }),
  );
  return documentRoute(PATHS.apiCatalog, MEDIA.linkset, (ctx, base) => catalog(ctx, base));
}
