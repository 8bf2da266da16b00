import type pg from 'pg';
import { sendCancelRequest } from './cancel-request.js';
import { budgetSpentError, currentStatementBudget } from './statement-budget.js';

type QueryCallback = (error: Error | null, result?: unknown) => void;

/**
 * Makes `client` honour the request's statement budget (`runWithStatementBudget`) on every query:
 * a query asked for after the deadline fails at once with 57014; a query still running at the
 * deadline is cancelled on the server with a CancelRequest, and `cancelled(client)` is told so the
 * pool discards the client on release (a late cancel can then never reach another request's
 * statement). Outside a budget (migrations, start-up checks, a host's own queries) queries run as
 * they are. Costs one timer per statement, no round trip and no session setting, so it works
 * behind PgBouncer in transaction pooling mode.
 */
export function guardClient(client: pg.PoolClient, cancelled: (client: pg.PoolClient) => void): void {
  const query = client.query as (...args: unknown[]) => unknown;
  const guarded = (...args: unknown[]): unknown => {
    const budget = currentStatementBudget();
    if (!budget) return query.apply(client, args);
    const callback = typeof args.at(-1) === 'function' ? (args.at(-1) as QueryCallback) : undefined;
    const left = budget.deadline - performance.now();
    if (left <= 0) {
      const error = budgetSpentError(budget.budgetMs);
      if (!callback) return Promise.reject(error);
      process.nextTick(callback, error);
      return undefined;
    }
    const timer = setTimeout(() => {
      cancelled(client);
      void sendCancelRequest(client as unknown as Parameters<typeof sendCancelRequest>[0]);
    }, left);
    const settle = () => clearTimeout(timer);
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
