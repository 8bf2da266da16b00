import type { AgentContext } from '../context.js';
import { routeDefiner } from '../http/route.js';

/** Defines a route of the facade: its handler gets the plugin's context. */
export const facadeRoute = routeDefiner<AgentContext>();
