import { DISCOVERY_DOCUMENT, routeDefiner, type TextBody } from './route.js';
import type { PathTemplate } from './urls.js';

/** Builds a discovery document for one request, on its public base URL. */
export type DocumentBuilder<C> = (ctx: C, base: string) => TextBody | Promise<TextBody>;

/**
 * A discovery document's route: GET and HEAD (same headers, no body on HEAD), `Cache-Control:
 * no-cache`, a strong ETag with 304, the time budget, absolute URLs on the public base; the query is
 * ignored. Defined per context type, as `routeDefiner` is. `markdownTokens`: the document is an llms
 * file and carries `x-markdown-tokens`. `waitMs`: see `Route.waitMs`.
 */
export function documentRouteDefiner<C>() {
  const defineRoute = routeDefiner<C>();
  return (path: PathTemplate, contentType: string, build: DocumentBuilder<C>, markdownTokens = false, waitMs?: number) =>
    defineRoute({
      ...(waitMs !== undefined ? { waitMs } : {}),
      path,
      params: undefined,
      query: undefined,
      response: { kind: 'text', contentType, ...(markdownTokens ? { markdownTokens } : {}) },
      policy: DISCOVERY_DOCUMENT,
      async handler({ ctx, call }) {
        return build(ctx, call.base);
      },
    });
}
