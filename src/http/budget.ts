import { HttpError } from './errors.js';

/**
 * Runs `work` under the time budget. Past it the caller gets a 504 at once; on PostgreSQL the pool's
 * `statement_timeout` (set to the same budget) cancels the statement on the server, on PGlite the
 * wait is abandoned.
 */
export async function withBudget<T>(budgetMs: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HttpError(504, 'timeout', `the request exceeded its ${budgetMs / 1000}-second budget`)), budgetMs);
  });
  const running = work();
  running.catch(() => {});
  try {
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
