import type { AgentContext } from '../context.js';
import { DISCOVERY_DOCUMENT, routeDefiner, type TextBody } from '../http/route.js';
import type { PathTemplate } from '../http/urls.js';

const discoveryRoute = routeDefiner<AgentContext>();

/** Builds a discovery document for one request, on its public base URL. */
export type DocumentBuilder = (ctx: AgentContext, base: string) => TextBody | Promise<TextBody>;

/**
 * A discovery document's route: GET and HEAD (same headers, no body on HEAD), `Cache-Control:
 * no-cache`, a strong ETag with 304, the time budget, absolute URLs on the public base; the query is
 * ignored.
 */
export function documentRoute(path: PathTemplate, contentType: string, build: DocumentBuilder) {
  return discoveryRoute({
    path,
    params: undefined,
    query: undefined,
    response: { kind: 'text', contentType },
    policy: DISCOVERY_DOCUMENT,
    async handler({ ctx, call }) {
      return build(ctx, call.base);
    },
  });
}
