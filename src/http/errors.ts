/** The error codes of the envelope and their HTTP statuses. */
export const ERROR_STATUS = {
  bad_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
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

const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/**
 * Maps an error thrown while building a response to the envelope error a client sees: a cancelled
 * statement is a timeout, a lost or refused connection or an exhausted pool is unavailable. Anything
 * else is a server fault and is passed on to the host's error handler.
 */
export function classifyError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  const e = error as { code?: string; message?: string } | undefined;
  if (!e || typeof e !== 'object') return undefined;
  // 57014: query_canceled (statement_timeout); 57P01..57P03: server shutting down / cannot connect now.
  if (e.code === '57014') return new HttpError(504, 'timeout', 'the query exceeded its time budget');
  if (e.code && (/^57P0[1-3]$/.test(e.code) || /^08/.test(e.code) || CONNECTION_ERRORS.has(e.code))) {
    return unavailable('the content database is unavailable; retry later');
  }
  const message = e.message ?? '';
  if (/timeout exceeded when trying to connect|Connection terminated|connection.*(closed|ended)|Client has encountered a connection error|PGlite is closed|driver has already been destroyed/i.test(message)) {
    return unavailable('the content database is unavailable; retry later');
  }
  return undefined;
}
