import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { AgentContext } from '../context.js';
import { withBudget } from './budget.js';
import { HttpError } from './errors.js';
import { answerRouteError } from './route-errors.js';
import { API_ROBOTS, CONTENT_CACHE_CONTROL, sendErrorEnvelope, sendRepresentation } from './representation.js';

/** What a content handler returns: a JSON `result`, or a text body of its own media type. */
export type HandlerOutput =
  | { kind: 'json'; result: unknown }
  | { kind: 'text'; body: string; contentType: string; headers?: Record<string, string> };

export interface AgentHandlerInput {
  req: Request;
  base: string;
}

/**
 * Wraps a facade handler with the common HTTP rules of the facade: the time budget, the envelope, the
 * documented result schema (unknown properties are stripped, so only documented fields ever leave),
 * ETag/304, cache headers, 413 over the size bound, `X-Robots-Tag`, and errors as envelopes with
 * `no-store` (an unexpected fault is `500 internal_error`, reported through `onError`).
 */
export function agentRoute(
  ctx: AgentContext,
  resultSchema: z.ZodType | undefined,
  handler: (input: AgentHandlerInput) => Promise<HandlerOutput>,
): RequestHandler {
  return async function agentContentRoute(req: Request, res: Response) {
    res.setHeader('X-Robots-Tag', API_ROBOTS);
    try {
      const base = ctx.baseUrl(req);
      const output = await withBudget(ctx.options.budgetMs, () => handler({ req, base }));
      if (output.kind === 'json') {
        const result = resultSchema ? resultSchema.parse(output.result) : output.result;
        sendRepresentation(req, res, {
          body: JSON.stringify({ status: 'ok', result }),
          contentType: 'application/json; charset=utf-8',
          cacheControl: CONTENT_CACHE_CONTROL,
          maxBytes: ctx.options.maxBodyBytes,
        });
      } else {
        sendRepresentation(req, res, {
          body: output.body,
          contentType: output.contentType,
          cacheControl: CONTENT_CACHE_CONTROL,
          maxBytes: ctx.options.maxBodyBytes,
          ...(output.headers ? { headers: output.headers } : {}),
        });
      }
    } catch (error) {
      answerRouteError(ctx, req, res, error);
    }
  };
}

/** 405 with `Allow: GET, HEAD` for every other method on a plugin path. */
export function methodNotAllowed(_req: Request, res: Response): void {
  sendErrorEnvelope(res, new HttpError(405, 'method_not_allowed', 'only GET and HEAD are supported'), { Allow: 'GET, HEAD' });
}
