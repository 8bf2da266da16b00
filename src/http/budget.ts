import { runWithStatementBudget } from '../db/statement-budget.js';
import { HttpError } from './errors.js';

/**
 * Runs `work` under the time budget. Past it the caller gets a 504 at once; on the plugin's own
 * PostgreSQL pool the statement still running is cancelled on the server and later ones are refused
 * (`runWithStatementBudget`), on PGlite and a host's own Kysely the wait is abandoned.
 */
export async function withBudget<T>(budgetMs: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HttpError(504, 'timeout', `the request exceeded its ${budgetMs / 1000}-second budget`)), budgetMs);
  });
  const running = runWithStatementBudget(budgetMs, work);
  running.catch(() => {});
  try {
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
