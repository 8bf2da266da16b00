import { timeout } from './errors.js';

/**
 * Runs `work` under the time budget. Past it the caller gets a 504 (with `Retry-After`) at once; on PostgreSQL the pool
 * cancels a statement running longer than the same budget on the server (src/db/statement-guard.ts),
 * on PGlite the wait is abandoned.
 */
export function withBudget<T>(budgetMs: number, work: () => Promise<T>): Promise<T> {
  // One promise and one timer per request (no race between two promises): this wraps every route.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timeout(`the request exceeded its ${budgetMs / 1000}-second budget`)), budgetMs);
    const fail = (error: unknown) => {
      clearTimeout(timer);
      reject(error);
    };
    let running: Promise<T>;
    try {
      running = work();
    } catch (error) {
      return fail(error);
    }
    running.then((value) => {
      clearTimeout(timer);
      resolve(value);
    }, fail);
  });
}
