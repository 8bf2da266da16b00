/** The error codes of the envelope and their HTTP statuses. */
export const ERROR_STATUS = {
  bad_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  internal_error: 500,
  unavailable: 503,
  timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An error that becomes an envelope response with its status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (parameter: string, reason: string): HttpError =>
  new HttpError(400, 'bad_request', `parameter "${parameter}": ${reason}`);

export const notFound = (what = 'resource'): HttpError => new HttpError(404, 'not_found', `${what} not found`);

export const unavailable = (message: string): HttpError =>
  new HttpError(503, 'unavailable', message, { 'Retry-After': '5' });

/** Over its time budget: the database did not answer in time (a stall may pass, so `Retry-After` too). */
export const timeout = (message: string): HttpError => new HttpError(504, 'timeout', message, { 'Retry-After': '5' });

export const internalError = (): HttpError =>
  new HttpError(500, 'internal_error', 'the server could not build this response; the error was reported to the site operator');

/** Socket-level codes of a connection that was refused, reset or lost. */
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Messages of the drivers for a database that is gone, as they really occur: `pg` ("Connection
 * terminated unexpectedly" for a killed backend, "… due to connection timeout", "Client has
 * encountered a connection error and is not queryable", "Client was closed and is not queryable"),
 * `pg-pool` ("timeout exceeded when trying to connect" for an exhausted pool, "Cannot use a pool after
 * calling end on the pool"), Kysely after `destroy()` ("driver has already been destroyed") and PGlite
 * ("PGlite is closed", "PGlite is closing").
 */
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|^Connection terminated|is not queryable|Cannot use a pool after calling end|driver has already been destroyed|PGlite is clos(ed|ing)/i;

/**
 * Maps an error thrown while building a response to the envelope error a client sees: a cancelled
 * statement is a timeout; a terminated backend (57P01–57P03), a connection failure (class 08), a
 * refused, reset or lost socket, an exhausted or closed pool and a closed embedded database are
 * unavailable (503 with `Retry-After`). Anything else is unexpected and gets `undefined`: the routes
 * answer it with `internal_error`.
 */
export function classifyError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (!error || typeof error !== 'object') return undefined;
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (code === '57014') return timeout('the query exceeded its time budget');
  if (/^57P0[1-3]$/.test(code) || /^08/.test(code) || CONNECTION_ERRORS.has(code)) {
    return unavailable('the content database is unavailable; retry later');
  }
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) {
    return unavailable('the content database is unavailable; retry later');
  }
  return undefined;
}
