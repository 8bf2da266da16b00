/**
 * The site-level link relations every agent-ready page advertises (the Link header and `<head>`):
 * the API catalog (RFC 9727), the OpenAPI document, the API help, llms.txt and the ARD manifest. A
 * leaf module: `links/site-links.ts` builds the links, `check/` looks for them on any site.
 */
export const SITE_LINK_RELS = ['api-catalog', 'service-desc', 'service-doc', 'describedby', 'ard'] as const;
