import type { Request, Response } from 'express';
import { classifyError, internalError } from './errors.js';
import { sendErrorEnvelope } from './representation.js';
import type { RouteContext } from './route-context.js';

/**
 * How every plugin route answers an error: a classified error (a bad parameter, 404, 413, a database
 * that is unavailable or over budget) is its envelope; anything else is reported once through the
 * `onError` option and answered `500 internal_error`, never passed to the host's error handler (whose
 * page may be HTML with a stack). The envelope never carries the error's own message or stack.
 * When the headers are already out, or the client is gone, nothing more can be sent: the socket is
 * closed instead.
 */
export function answerRouteError(ctx: RouteContext, req: Request, res: Response, error: unknown): void {
  const known = classifyError(error);
  if (!known) reportUnexpected(ctx, req, error);
  if (res.headersSent || res.writableEnded || req.socket?.destroyed) {
    if (!res.writableEnded) res.destroy();
    return;
  }
  sendErrorEnvelope(res, known ?? internalError());
}

/** Hands an unexpected error to the `onError` option; a hook that throws is itself ignored. */
export function reportUnexpected(ctx: RouteContext, req: Request, error: unknown): void {
  try {
    ctx.options.onError(error, req);
  } catch {
    // The report is best effort: the response must still go out.
  }
}
