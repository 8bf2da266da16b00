import { PATHS } from '../paths.js';
import type { TrafficSurface } from '../traffic/traffic-mark.js';

/** The traffic surface of each plugin path that is not a discovery document, by path template. */
const SURFACE_OF_PATH: ReadonlyMap<string, TrafficSurface> = new Map<string, TrafficSurface>([
  [PATHS.resource.template, 'resource-json'],
  [PATHS.markdown.template, 'resource-markdown'],
  [PATHS.search.template, 'listing'],
  [PATHS.related.template, 'listing'],
  [PATHS.schema.template, 'listing'],
  [PATHS.changes.template, 'listing'],
  [PATHS.llmsTxt.template, 'llms-txt'],
  [PATHS.llmsCategory.template, 'llms-txt'],
  [PATHS.llmsFull.template, 'llms-full'],
  [PATHS.robotsTxt.template, 'robots-txt'],
]);

/**
 * The traffic surface of a route's answers: its own, else `discovery` (OpenAPI, api-catalog, ARD,
 * API help, the API root, server cards), or `listing` for the compatibility edge reads.
 */
export function routeSurface(template: string): TrafficSurface {
  return SURFACE_OF_PATH.get(template) ?? (template.startsWith('/api/model/') ? 'listing' : 'discovery');
}
