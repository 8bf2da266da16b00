import { AsyncLocalStorage } from 'node:async_hooks';

/** The time budget of the request a statement belongs to. */
export interface StatementBudget {
  /** `performance.now()` at which the budget is spent. */
  readonly deadline: number;
  readonly budgetMs: number;
}

const current = new AsyncLocalStorage<StatementBudget>();

/**
 * Runs `work` with a budget that every statement it sends on the plugin's own PostgreSQL pool
 * honours: a statement still running at the deadline is cancelled on the server, and a statement
 * asked for after it is refused without a round trip (see `guardClient`).
 */
export function runWithStatementBudget<T>(budgetMs: number, work: () => Promise<T>): Promise<T> {
  return current.run({ deadline: performance.now() + budgetMs, budgetMs }, work);
}

/** The budget of the work running now, if any (outside a request: none, e.g. migrations). */
export function currentStatementBudget(): StatementBudget | undefined {
  return current.getStore();
}

/** The error of a statement cancelled or refused for the budget: SQLSTATE 57014 (query_canceled), like `statement_timeout`'s. */
export function budgetSpentError(budgetMs: number): Error & { code: string } {
  return Object.assign(new Error(`canceling statement: the request exceeded its ${budgetMs} ms budget`), { code: '57014' });
}
