/**
 * What a request was for, as agent traffic counts it: the plugin's routes mark their requests (the
 * surface, the resource read, the MCP tool); a host page passing the plugin's middleware is counted by
 * what it answered (HTML or Markdown, or a 404). A leaf: the HTTP core and the route folders mark,
 * the recorder reads.
 */

/** The surfaces of the counts, in the order the Agents page lists them. */
export const TRAFFIC_SURFACES = [
  'page-html',
  'page-markdown',
  'resource-json',
  'resource-markdown',
  'listing',
  'llms-txt',
  'llms-full',
  'discovery',
  'mcp',
  'robots-txt',
  'not-found',
  'other',
] as const;
export type TrafficSurface = (typeof TRAFFIC_SURFACES)[number];

/** The surfaces whose answer is Markdown (the Markdown share of an agent's requests). */
export const MARKDOWN_SURFACES: ReadonlySet<string> = new Set(['page-markdown', 'resource-markdown', 'llms-txt', 'llms-full']);

/** What a request was marked with. */
export interface TrafficMark {
  surface?: TrafficSurface;
  /** The id of the resource the request read (a visible one). */
  resourceId?: number;
  /** The MCP tool called (one of the plugin's own tools). */
  tool?: string;
  /** The MCP client's name (`clientInfo.name` of an `initialize`), a signal of who asks. */
  mcpClient?: string;
  /** Not counted at all (the admin pages). */
  skip?: true;
  /** What the agent policy did (`served` when unset). */
  outcome?: TrafficOutcome;
}

/** What the agent policy (and the rate limits) did with a request. */
export const TRAFFIC_OUTCOMES = ['served', 'limited', 'blocked', 'charged', 'payment-required'] as const;
export type TrafficOutcome = (typeof TRAFFIC_OUTCOMES)[number];

const MARK = Symbol('express-agent-discovery.traffic');

/**
 * The mark of a request being counted: created by the counting middleware (`startMark`), so that
 * with traffic off (no mark) every marking below is one property read and nothing else.
 */
const markOf = (req: object): TrafficMark | undefined => (req as { [MARK]?: TrafficMark })[MARK];

/** Starts counting a request: its mark, empty; false when it is counted already (it passed the plugin's middleware before). */
export function startMark(req: object): boolean {
  const holder = req as { [MARK]?: TrafficMark };
  if (holder[MARK]) return false;
  holder[MARK] = {};
  return true;
}

/** Marks what a request was for (the first surface set wins: an inner route does not relabel an outer one). */
export function markSurface(req: object, surface: TrafficSurface): void {
  const mark = markOf(req);
  if (mark) mark.surface ??= surface;
}

/** Marks the visible resource a request read (for "most read by agents"). */
export function markResourceRead(req: object, id: number): void {
  const mark = markOf(req);
  if (mark) mark.resourceId = id;
}

/** Marks the MCP tool a request called. */
export function markTool(req: object, tool: string): void {
  const mark = markOf(req);
  if (mark) mark.tool = tool;
}

/** Marks the MCP client's name an `initialize` request gave. */
export function markMcpClient(req: object, name: string): void {
  const mark = markOf(req);
  if (mark) mark.mcpClient = name;
}

/** Marks a request that is not agent traffic (the admin pages). */
export function skipTraffic(req: object): void {
  const mark = markOf(req);
  if (mark) mark.skip = true;
}

/** Marks what the agent policy did with a request. */
export function markOutcome(req: object, outcome: TrafficOutcome): void {
  const mark = markOf(req);
  if (mark) mark.outcome = outcome;
}

/** The request's mark (undefined when it is not being counted). */
export function trafficMark(req: object): TrafficMark | undefined {
  return markOf(req);
}
