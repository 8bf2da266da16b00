import type { AgentContext } from '../context.js';
import { routeDefiner } from '../http/route.js';

/** Defines a route of the facade: its handler gets the plugin's context. */
export const facadeRoute = routeDefiner<AgentContext>();

/** The last sentence of every facade tool's description (MCP). */
export const TOOL_READ_ONLY = 'Read-only and anonymous: only public, published content is ever returned.';
/** How a paged tool continues (MCP). */
export const TOOL_PAGED = 'Paged: call again with next_arguments (the same arguments plus page and cursor) until it is null.';
