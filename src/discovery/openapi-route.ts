import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import type { OperationSpec } from '../http/operations.js';
import { documentRoute } from './document-route.js';
import { buildOpenApi } from './openapi.js';
import { cachedPerSettings } from './cached-document.js';
import { effectiveOptions } from '../settings/effective-settings.js';
import { MEDIA } from '../links/site-links.js';
import { markdownLine } from './llms-txt.js';

/** `GET /openapi.json`: the OpenAPI 3.1 document of every documented route, built once per base. */
export function openapiRoute(options: ResolvedOptions, operations: () => readonly OperationSpec[]) {
  const document = cachedPerSettings('openapi', (options, base) => {
    const site = {
      title: options.siteTitle,
      base,
      // OpenAPI descriptions are CommonMark: the description is escaped to read as the plain text it is.
      ...(options.description ? { description: markdownLine(options.description) } : {}),
      ...(options.apiLicense ? { license: options.apiLicense } : {}),
    };
    return JSON.stringify(buildOpenApi(operations(), site));
  });
  return documentRoute(PATHS.openapi, MEDIA.openapi, async (ctx, base) => ({ body: document(ctx, await effectiveOptions(ctx), base) }));
}
