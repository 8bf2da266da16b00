import { sql, type Kysely, type QueryExecutorProvider, type Transaction } from 'kysely';
import type { PushDatabase } from './external-ids.js';
import { ContentPushError, pushFailure } from './push-error.js';

/**
 * A Kysely transaction of the host's, on the database the plugin's tables are in; its table types do
 * not matter (`db.transaction().execute(async (trx) => agent.content.put(r, { transaction: trx }))`).
 */
export type HostTransaction = QueryExecutorProvider & { readonly isTransaction: true };

/** What every call of the push API accepts. */
export interface WriteOptions {
  /**
   * Run inside this transaction of the host's (under a savepoint: a refused call leaves the host's
   * earlier writes as they were), so that the write commits or rolls back with it. Default: the call
   * is a transaction of its own.
   */
  readonly transaction?: HostTransaction | undefined;
}

const SAVEPOINT = sql.id('agent_discovery_content');

/** How a call's work is run when the host gives no transaction. */
export interface WorkShape {
  /**
   * The work writes with one statement, which is atomic by itself (later statements only run when it
   * wrote nothing): no transaction around it, so the call is one round trip.
   */
  readonly oneStatement?: boolean;
}

/**
 * Runs one call of the push API as one transaction: its own, or a savepoint inside the host's
 * transaction, rolled back when the call fails. Every failure comes out as a `ContentPushError`
 * (`pushFailure`: a lost connection is `unavailable`, a read-only database names the fix).
 *
 * ```sql
 * BEGIN … COMMIT                                           -- without { transaction }
 * SAVEPOINT "agent_discovery_content" … RELEASE SAVEPOINT "agent_discovery_content"
 *                                 -- on failure: ROLLBACK TO SAVEPOINT "agent_discovery_content"
 * ```
 */
export async function writeTransaction<T>(
  db: Kysely<PushDatabase>,
  call: string,
  options: WriteOptions | undefined,
  work: (trx: Kysely<PushDatabase>) => Promise<T>,
  shape: WorkShape = {},
): Promise<T> {
  try {
    const host = options?.transaction;
    if (!host) return shape.oneStatement ? await work(db) : await db.transaction().execute(work);
    if ((host as { isTransaction?: unknown }).isTransaction !== true) {
      throw new ContentPushError(call, 'invalid_input', 'transaction', 'the transaction option must be a Kysely transaction (db.transaction().execute(async (trx) => …))');
    }
    // The same database and connection: the host's table types are its own, the tables the plugin's.
    const trx = host as unknown as Transaction<PushDatabase>;
    await sql`SAVEPOINT ${SAVEPOINT}`.execute(trx);
    try {
      const result = await work(trx);
      await sql`RELEASE SAVEPOINT ${SAVEPOINT}`.execute(trx);
      return result;
    } catch (error) {
      await sql`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`.execute(trx).catch(() => {});
      await sql`RELEASE SAVEPOINT ${SAVEPOINT}`.execute(trx).catch(() => {});
      throw error;
    }
  } catch (error) {
    throw pushFailure(call, error);
  }
}
