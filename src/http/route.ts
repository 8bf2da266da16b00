import type { Request } from 'express';
import { z } from 'zod';
import type { FacadeCall } from './facade-call.js';
import type { OperationSpec, OperationTag } from './operations.js';
import type { PathTemplate } from './urls.js';

/** How caches may keep a route's answers. */
export type CachePolicy =
  /** `public, max-age=0, must-revalidate` with a strong ETag and 304: the facade reads. */
  | 'content'
  /** `no-cache` with a strong ETag and 304: the discovery documents. */
  | 'discovery'
  /** `private, no-store`, no ETag: answers that depend on who asks (the compatibility reads). */
  | 'perCaller';

/** The HTTP rules a route's answers follow, apart from its body. */
export interface RoutePolicy {
  readonly cache: CachePolicy;
  /** A body over `maxBodyBytes` is refused with 413. */
  readonly sizeBound: boolean;
  /** `X-Robots-Tag: noindex, nofollow` on every answer (API responses are not for search engines). */
  readonly noindex: boolean;
  /**
   * The answer carries absolute URLs on the public base, so an unusable `Host` is a 400 before
   * anything else; without, the base is worked out only if the handler asks for it.
   */
  readonly absoluteUrls: boolean;
  /** The answer is the site's content: it carries the operator's AI usage preferences (`Content-Usage`) when any is set. */
  readonly contentUsage: boolean;
}

/** The policy of the facade's reads of the API and its vocabulary. */
export const API_READ: RoutePolicy = Object.freeze({ cache: 'content', sizeBound: true, noindex: true, absoluteUrls: true, contentUsage: false });
/** The policy of the facade's reads of content (search, a resource as JSON or Markdown, related lists). */
export const CONTENT_READ: RoutePolicy = Object.freeze({ ...API_READ, contentUsage: true });
/** The policy of the discovery documents (llms.txt, OpenAPI, the API catalog, ARD, API help, robots.txt, server cards). */
export const DISCOVERY_DOCUMENT: RoutePolicy = Object.freeze({ cache: 'discovery', sizeBound: false, noindex: false, absoluteUrls: true, contentUsage: false });
/** The policy of reads answered with the caller's own permissions. */
export const PER_CALLER_READ: RoutePolicy = Object.freeze({ cache: 'perCaller', sizeBound: false, noindex: true, absoluteUrls: false, contentUsage: false });

/**
 * Whether a route's answers are public: the same for every caller and never depending on a
 * credential (every policy but the per-caller one), so `cors` lets any origin read them.
 */
export function isPublicAnswer(policy: RoutePolicy): boolean {
  return policy.cache !== 'perCaller';
}

/** A text answer of the route's own media type, with optional extra headers (`Content-Language`). */
export interface TextBody {
  body: string;
  headers?: Record<string, string>;
}

/** What a route answers with: a JSON `result` in the `{ status: 'ok' }` envelope, or a text body. */
export type RouteResponse =
  | { kind: 'envelope'; result: z.ZodType }
  /** `markdownTokens`: the answer is Markdown (or an llms file) and carries `x-markdown-tokens`. */
  | { kind: 'text'; contentType: string; markdownTokens?: boolean };

/** What a handler returns: what its result schema accepts (the compiler checks it), or a text body. */
export type HandlerOutput<R extends RouteResponse> = R extends { kind: 'envelope'; result: infer S extends z.ZodType } ? z.input<S> : TextBody;
/** What a route answers: the handler's output, built to its result schema (checked against it in the test suite). */
export type RouteOutput<R extends RouteResponse> = R extends { kind: 'envelope'; result: infer S extends z.ZodType } ? z.output<S> : TextBody;

type Parsed<S extends z.ZodType | undefined> = S extends z.ZodType ? z.output<S> : Record<string, never>;

/** What a handler receives: the validated path and query parameters and the call they came with. */
export interface RouteInput<C, P extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  readonly ctx: C;
  readonly call: FacadeCall;
  readonly params: Parsed<P>;
  readonly query: Parsed<Q>;
  /** The HTTP request; undefined when an MCP tool runs the read. */
  readonly req: Request | undefined;
}

/** What documents an operation in OpenAPI, the API help page and the API root. */
export interface RouteDoc {
  operationId: string;
  summary: string;
  description: string;
  tags: OperationTag[];
  /** Error statuses the operation can answer. */
  errors: number[];
  /** A query string for the API help's clickable example (without `?`), when meaningful. */
  example?: string;
}

/**
 * What makes a route an MCP tool: the MCP endpoint builds its tools from the routes that carry one.
 * The tool's arguments are the route's path and query parameters, its structured result the route's
 * result, and a call runs the route itself.
 */
export interface RouteTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Position in `tools/list` (agents read it top-down: search first). */
  readonly listed: number;
  /** A paged result: the tool adds `next_arguments`, the arguments of the next call (or null). */
  readonly paged?: boolean;
  /** The tool's text: the body of the route at this path, run with the same arguments (a read's Markdown). */
  readonly text?: PathTemplate;
  /** Result fields the tool leaves out of its structured result (the text carries them). */
  readonly omit?: readonly string[];
}

/**
 * One route, defined once: from it come the Express registration (GET, HEAD and the 405 with
 * `Allow: GET, HEAD`), the OpenAPI operation and API help entry (when `doc` is given), the MCP tool
 * (when `tool` is given), and the URLs built to it (`path.url(…)`). A `query` schema makes the query strict (an unknown or repeated
 * parameter is a 400); without one the query is ignored.
 */
export interface Route<
  C,
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  R extends RouteResponse = RouteResponse,
> {
  readonly path: PathTemplate;
  readonly params: P;
  readonly query: Q;
  readonly response: R;
  readonly policy: RoutePolicy;
  readonly doc?: RouteDoc;
  /** The MCP tool that runs this route, when it is one. */
  readonly tool?: RouteTool;
  /**
   * How long a request may wait for this route's answer, when longer than the `budgetMs` option: for
   * an answer that is a shared build kept in the cache (llms-full.txt), which a request waits for
   * rather than answer 504 while it runs.
   */
  readonly waitMs?: number;
  handler(input: RouteInput<C, P, Q>): Promise<HandlerOutput<R>>;
}

/**
 * Defines routes handled with the context `C`: the handler's input and output are typed by the
 * route's own schemas.
 *
 * ```ts
 * const facadeRoute = routeDefiner<AgentContext>()
 * const search = facadeRoute({ path: PATHS.search, params: undefined, query, response: { kind: 'envelope', result }, policy: API_READ, handler })
 * ```
 */
export function routeDefiner<C>() {
  return function defineRoute<P extends z.ZodObject | undefined, Q extends z.ZodObject | undefined, R extends RouteResponse>(
    route: Route<C, P, Q, R>,
  ): Route<C, P, Q, R> {
    return Object.freeze(route);
  };
}

const EMPTY_QUERY = z.object({}).strict();

/** The OpenAPI/API-help operation of a documented route, else undefined. */
function operationOf(route: Route<unknown>): OperationSpec | undefined {
  if (!route.doc) return undefined;
  const { response } = route;
  return {
    operationId: route.doc.operationId,
    path: route.path.template,
    summary: route.doc.summary,
    description: route.doc.description,
    tags: route.doc.tags,
    ...(route.params ? { pathParams: route.params } : {}),
    query: route.query ?? EMPTY_QUERY,
    response: response.kind === 'envelope' ? response : { kind: 'text', mediaType: response.contentType.split(';')[0]!.trim() },
    errors: route.doc.errors,
    ...(route.doc.example !== undefined ? { example: route.doc.example } : {}),
  };
}

/** The documented operations among `routes`, in their order. */
export function operationsOf(routes: readonly Route<unknown>[]): OperationSpec[] {
  return routes.flatMap((route) => operationOf(route) ?? []);
}

/** The MCP tools among `routes`, in their `tools/list` order. */
export function toolsInOrder(routes: readonly Route<unknown>[]): RouteTool[] {
  return routes.flatMap((route) => (route.tool ? [route.tool] : [])).sort((a, b) => a.listed - b.listed);
}
