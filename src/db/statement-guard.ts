import type pg from 'pg';
import { sendCancelRequest } from './cancel-request.js';

type QueryCallback = (error: Error | null, result?: unknown) => void;

/**
 * Gives every statement of `client` a time limit enforced on the server without a session setting:
 * a statement still running after `timeoutMs` is cancelled with a CancelRequest (the server answers
 * it with 57014, as for `statement_timeout`), and `cancelled(client)` is told so that the pool
 * discards the client on release (a late cancel can then never reach a later statement). It costs
 * one timer per statement: no round trip, no startup parameter, no `SET`, so it works behind
 * PgBouncer in transaction pooling mode, which refuses `statement_timeout` as a startup parameter.
 */
export function guardClient(client: pg.PoolClient, timeoutMs: number, cancelled: (client: pg.PoolClient) => void): void {
  const query = client.query as (...args: unknown[]) => unknown;
  const guarded = (...args: unknown[]): unknown => {
    const timer = setTimeout(() => {
      cancelled(client);
      void sendCancelRequest(client as unknown as Parameters<typeof sendCancelRequest>[0]);
    }, timeoutMs);
    const settle = () => clearTimeout(timer);
    const callback = typeof args.at(-1) === 'function' ? (args.at(-1) as QueryCallback) : undefined;
    if (callback) {
      args[args.length - 1] = (error: Error | null, result?: unknown) => {
        settle();
        callback(error, result);
      };
      return query.apply(client, args);
    }
    const result = query.apply(client, args) as { then?: unknown; once?: unknown } | undefined;
    if (result && typeof result.then === 'function') {
      (result as Promise<unknown>).then(settle, settle);
    } else if (result && typeof result.once === 'function') {
      // A submittable (a cursor or stream) reports its end with an event.
      const events = result as unknown as NodeJS.EventEmitter;
      events.once('end', settle);
      events.once('error', settle);
    } else {
      settle();
    }
    return result;
  };
  client.query = guarded as typeof client.query;
}
