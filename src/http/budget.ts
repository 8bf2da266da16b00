import { HttpError } from './errors.js';

/**
 * Runs `work` under the time budget. Past it the caller gets a 504 at once; on PostgreSQL the pool
 * cancels a statement running longer than the same budget on the server (src/db/statement-guard.ts),
 * on PGlite the wait is abandoned.
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
