import type { Request } from 'express';
import { rawQueryPairs } from './parameters.js';
import { requestTarget } from './request-target.js';

/**
 * One read of the facade as its handlers see it, whoever asks: an HTTP request or an MCP tool call.
 * Nothing else of the caller reaches a read (no session, no cookie), so both answer alike.
 */
export interface FacadeCall {
  /** The public base URL for absolute URLs. */
  readonly base: string;
  /** The read's path without the query (`/api/agent/search`): `next_url` continues on it. */
  readonly path: string;
  /** The query as ordered name/value pairs, validated strictly by the read's schema. */
  readonly query: readonly (readonly [string, string])[];
}

/**
 * The facade call of an HTTP request: its path and raw query (never `req.query`, which is the host's).
 * A base given as a function is worked out when a handler first reads it (a read that builds no URL
 * never depends on the `Host` header).
 */
export function callFromRequest(req: Request, base: string | (() => string)): FacadeCall {
  const { path } = requestTarget(req);
  const query = rawQueryPairs(req);
  if (typeof base === 'string') return { base, path, query };
  let known: string | undefined;
  return {
    get base() {
      return (known ??= base());
    },
    path,
    query,
  };
}
