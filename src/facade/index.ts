import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import type { OperationSpec } from '../http/operations.js';
import type { Route } from '../http/route.js';
import { apiRootRoute } from './api-root-route.js';
import { changesRoute } from './changes-route.js';
import { compatEdgeRoutes } from './compat-edge-routes.js';
import { markdownRoute } from './markdown-route.js';
import { relatedRoute } from './related-route.js';
import { resourceRoute } from './resource-route.js';
import { schemaRoute } from './schema-route.js';
import { searchRoute } from './search-route.js';

export { mountUnknownApiPath } from './api-root-route.js';
export { mountNlwebAsk } from './ask-route.js';

/**
 * The facade's routes in the order they are documented (OpenAPI, API help, the API root's list):
 * the API root, the reads, the change feed, the compatibility edge reads and the Markdown read.
 */
export function facadeRoutes(options: ResolvedOptions, operations: () => readonly OperationSpec[]): Route<AgentContext>[] {
  return [
    apiRootRoute(options, operations),
    searchRoute(options),
    resourceRoute(options),
    schemaRoute(options),
    relatedRoute(options),
    changesRoute(options),
    ...compatEdgeRoutes(),
    markdownRoute(options),
  ];
}
