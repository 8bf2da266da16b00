import type { AgentContext } from '../context.js';
import type { FacadeCall } from '../http/facade-call.js';
import { runRoute } from '../http/responder.js';
import { markdownRoute } from './markdown-route.js';
import { relatedRoute } from './related-route.js';
import { resourceRoute } from './resource-route.js';
import { schemaRoute } from './schema-route.js';
import { searchRoute } from './search-route.js';

/**
 * The facade's reads as functions of a `FacadeCall` (`id` is the raw path parameter): the MCP tools
 * run the very routes the HTTP router registers, so parameters, limits, errors and results cannot
 * drift apart. Each result has passed through its route's result schema.
 */
export function facadeReads(ctx: AgentContext) {
  const { options } = ctx;
  const search = searchRoute(options);
  const resource = resourceRoute(options);
  const schema = schemaRoute(options);
  const related = relatedRoute(options);
  const markdown = markdownRoute(options);
  return {
    search: (call: FacadeCall) => runRoute(search, ctx, call, {}),
    resource: (call: FacadeCall, id: string) => runRoute(resource, ctx, call, { id }),
    schema: (call: FacadeCall) => runRoute(schema, ctx, call, {}),
    related: (call: FacadeCall, id: string) => runRoute(related, ctx, call, { id }),
    markdown: (call: FacadeCall, id: string) => runRoute(markdown, ctx, call, { id }),
  };
}
