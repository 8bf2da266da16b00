import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { withBudget } from './budget.js';
import { HttpError } from './errors.js';
import { callFromRequest, type FacadeCall } from './facade-call.js';
import { parsePairs, parseValues } from './parameters.js';
import { markPluginResponse } from './plugin-response.js';
import {
  API_ROBOTS,
  CONTENT_CACHE_CONTROL,
  DISCOVERY_CACHE_CONTROL,
  fixedBodyOf,
  JSON_CONTENT_TYPE,
  sendErrorEnvelope,
  sendPerCaller,
  sendRepresentation,
} from './representation.js';
import type { CachePolicy, Route, RouteOutput, RouteResponse, TextBody } from './route.js';
import type { RouteContext } from './route-context.js';
import { answerRouteError } from './route-errors.js';
import { routeSurface } from './route-surface.js';
import { markSurface } from '../traffic/traffic-mark.js';

const CACHE_CONTROL: Record<Exclude<CachePolicy, 'perCaller'>, string> = {
  content: CONTENT_CACHE_CONTROL,
  discovery: DISCOVERY_CACHE_CONTROL,
};

/**
 * Whether every envelope result is checked against the route's documented result schema: in the test
 * suite (`EXPRESS_AGENT_DISCOVERY_VERIFY_QUERIES=1`, which also checks every reusable query), not on
 * the hot path. The handlers build their results in the schema's shape and order, so parsing them in
 * production only spent time (a zod object walk per item and its garbage).
 */
const checkResults = process.env.EXPRESS_AGENT_DISCOVERY_VERIFY_QUERIES === '1';

/**
 * A result exactly as its schema passes it (no property stripped, none reordered, no value changed),
 * else an error naming the route: a handler that built more or other than its documented result.
 */
function documentedResult(route: Route<unknown>, result: z.ZodType, output: unknown): unknown {
  const built = JSON.stringify(output);
  if (JSON.stringify(result.parse(output)) !== built) {
    throw new Error(`express-agent-discovery: the result of ${route.path.template} is not its documented schema: ${built.slice(0, 500)}`);
  }
  return output;
}

/**
 * Runs a route for one call, whoever asks (the HTTP responder, an MCP tool): validates the path
 * parameters (`rawParams`), then the query (strictly, when the route has a query schema), and runs
 * the handler; in the test suite an envelope result is also checked against the route's result
 * schema (`documentedResult`). A bad parameter is a 400 naming it.
 */
export async function runRoute<C, R extends RouteResponse>(
  route: Route<C, z.ZodObject | undefined, z.ZodObject | undefined, R>,
  ctx: C,
  call: FacadeCall,
  rawParams: Record<string, string>,
  req?: Request,
): Promise<RouteOutput<R>> {
  const params = route.params ? parseValues(route.params, rawParams) : {};
  const query = route.query ? parsePairs(call.query, route.query) : {};
  const output: unknown = await route.handler({ ctx, call, params, query, req });
  return (checkResults && route.response.kind === 'envelope' ? documentedResult(route, route.response.result, output) : output) as RouteOutput<R>;
}

const NO_PATH_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** The route's path parameters as the router decoded them. */
function pathParams(req: Request, route: Route<unknown>): Record<string, string> {
  const names = route.path.params;
  if (names.length === 0) return NO_PATH_PARAMS;
  const params: Record<string, string> = {};
  for (const name of names) params[name] = String(req.params[name]);
  return params;
}

/**
 * Sends a route's output under its policy: the envelope or text body, cache rules, ETag and size
 * bound. A text body marked by `fixedBody` goes out as its bytes and ETag, computed once.
 */
function sendOutput(req: Request, res: Response, route: Route<unknown>, output: unknown, maxBodyBytes: number): void {
  const { response, policy } = route;
  let body: string | Buffer;
  let contentType: string;
  let headers: Record<string, string> | undefined;
  let tag: string | undefined;
  let markdownTokens = false;
  if (response.kind === 'envelope') {
    body = `{"status":"ok","result":${JSON.stringify(output)}}`;
    contentType = JSON_CONTENT_TYPE;
  } else {
    const text = output as TextBody;
    const fixed = fixedBodyOf(text);
    body = fixed ? fixed.bytes : text.body;
    tag = fixed?.etag;
    contentType = response.contentType;
    headers = text.headers;
    markdownTokens = response.markdownTokens === true;
  }
  if (policy.cache === 'perCaller') return sendPerCaller(req, res, { body, contentType });
  sendRepresentation(req, res, {
    body,
    contentType,
    headers,
    cacheControl: CACHE_CONTROL[policy.cache],
    ...(policy.sizeBound ? { maxBytes: maxBodyBytes } : {}),
    ...(tag !== undefined ? { etag: tag } : {}),
    ...(markdownTokens ? { markdownTokens } : {}),
  });
}

/**
 * The one responder of every plugin route: marks the response as the plugin's, adds the robots
 * header the policy asks for, runs the route under the time budget and answers under its policy
 * (a content answer with `Content-Usage` when the operator set preferences, read alongside the
 * route); every error becomes the error envelope with `no-store` (an unexpected fault is `500
 * internal_error`, reported through `onError`).
 */
export function respond<C extends RouteContext>(ctx: C, route: Route<C, z.ZodObject | undefined, z.ZodObject | undefined>): RequestHandler {
  const contentUsage = route.policy.contentUsage ? ctx.contentUsage : undefined;
  const surface = routeSurface(route.path.template);
  const budgetMs = Math.max(ctx.options.budgetMs, route.waitMs ?? 0);
  return async function routeResponder(req: Request, res: Response) {
    markPluginResponse(res);
    markSurface(req, surface);
    if (route.policy.noindex) res.setHeader('X-Robots-Tag', API_ROBOTS);
    try {
      const call = callFromRequest(req, route.policy.absoluteUrls ? ctx.baseUrl(req) : () => ctx.baseUrl(req));
      const params = pathParams(req, route);
      let output: unknown;
      if (contentUsage) {
        const [routeOutput, usage] = await withBudget(budgetMs, () => Promise.all([runRoute(route, ctx, call, params, req), contentUsage()]));
        output = routeOutput;
        if (usage) res.setHeader('Content-Usage', usage);
      } else {
        output = await withBudget(budgetMs, () => runRoute(route, ctx, call, params, req));
      }
      sendOutput(req, res, route, output, ctx.options.maxBodyBytes);
    } catch (error) {
      if (!res.headersSent) res.removeHeader('Content-Usage');
      answerRouteError(ctx, req, res, error);
    }
  };
}

/** 405 with `Allow: GET, HEAD` for every other method on a plugin path. */
export function methodNotAllowed(_req: Request, res: Response): void {
  markPluginResponse(res);
  sendErrorEnvelope(res, new HttpError(405, 'method_not_allowed', 'only GET and HEAD are supported'), { Allow: 'GET, HEAD' });
}

/** Registers a route: GET (and HEAD) answer it, every other method gets 405 with `Allow: GET, HEAD`. */
export function mountRoute<C extends RouteContext>(router: Router, ctx: C, route: Route<C, z.ZodObject | undefined, z.ZodObject | undefined>): void {
  router.get(route.path.expressPath, respond(ctx, route));
  router.all(route.path.expressPath, methodNotAllowed);
}
