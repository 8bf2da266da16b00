import type { AgentContext } from '../context.js';
import { documentRouteDefiner, type DocumentBuilder as Builder } from '../http/document-route.js';

/** Defines a discovery document's route: its builder gets the plugin's context. */
export const documentRoute = documentRouteDefiner<AgentContext>();

/** Builds a discovery document for one request, on its public base URL. */
export type DocumentBuilder = Builder<AgentContext>;
