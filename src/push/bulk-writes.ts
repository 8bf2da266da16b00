import type { Kysely } from 'kysely';
import type { PushDatabase } from './external-ids.js';
import { ContentPushError } from './push-error.js';
import { writeTransaction, type WriteOptions } from './write-transaction.js';

/** What the bulk calls (`putMany`, `putEdgeMany`, `setEdgesMany`) accept. */
export interface BulkOptions extends WriteOptions {
  /** Items per batch; each batch is one transaction (a savepoint inside `transaction`). Default 500, at most 10,000. */
  readonly batchSize?: number | undefined;
  /** Called after each batch is written (committed, or released inside the host's transaction). */
  readonly onProgress?: ((progress: BulkProgress) => void) | undefined;
}

/** How far a bulk call is. */
export interface BulkProgress {
  /** Items written so far (all batches up to this one). */
  readonly written: number;
  /** The ids this batch wrote, in order: resources' `rsc` ids, or edges' ids. */
  readonly ids: readonly number[];
}

/** What a bulk call wrote. */
export interface BulkResult {
  /** How many items were written. */
  readonly written: number;
}

/** Items per batch unless `batchSize` says otherwise. */
export const DEFAULT_BATCH_SIZE = 500;
const MAX_BATCH_SIZE = 10_000;
/** A batch also ends when its items weigh this much (about the characters of their text). */
const MAX_BATCH_WEIGHT = 8_000_000;

/** An item of a bulk call, validated: its value, its position in what was passed, and its weight. */
export interface BulkItem<T> {
  readonly index: number;
  readonly value: T;
  readonly weight: number;
}

/**
 * Streams `items` in batches of bounded size and weight: each item is validated as it arrives
 * (`parse`, a push error names its position), each batch written by `write` in a transaction of its
 * own. A batch that fails leaves nothing of itself; the batches before it stay written (their
 * progress was reported, and the error's `written` says how many items they held). The whole input
 * is never held in memory at once.
 */
export async function writeInBatches<T>(
  db: Kysely<PushDatabase>,
  call: string,
  items: Iterable<unknown> | AsyncIterable<unknown>,
  options: BulkOptions | undefined,
  parse: (raw: unknown, index: number) => BulkItem<T>,
  write: (trx: Kysely<PushDatabase>, batch: readonly BulkItem<T>[]) => Promise<number[]>,
): Promise<BulkResult> {
  const size = options?.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_BATCH_SIZE) {
    throw new ContentPushError(call, 'invalid_input', 'batchSize', `must be an integer from 1 to ${MAX_BATCH_SIZE.toLocaleString('en')}`);
  }
  if (items === null || typeof items !== 'object' || !(Symbol.iterator in items || Symbol.asyncIterator in items)) {
    throw new ContentPushError(call, 'invalid_input', undefined, 'expected an array or another iterable (sync or async) of items');
  }
  let written = 0;
  let batch: BulkItem<T>[] = [];
  let weight = 0;
  const flush = async () => {
    if (!batch.length) return;
    const current = batch;
    batch = [];
    weight = 0;
    let ids: number[];
    try {
      ids = await writeTransaction(db, call, options, (trx) => write(trx, current));
    } catch (error) {
      throw error instanceof ContentPushError ? error.afterWritten(written) : error;
    }
    written += current.length;
    options?.onProgress?.({ written, ids });
  };
  let index = 0;
  for await (const raw of items) {
    let item: BulkItem<T>;
    try {
      item = parse(raw, index++);
    } catch (error) {
      throw error instanceof ContentPushError ? error.afterWritten(written) : error;
    }
    if (batch.length && weight + item.weight > MAX_BATCH_WEIGHT) await flush();
    batch.push(item);
    weight += item.weight;
    if (batch.length >= size) await flush();
  }
  await flush();
  return { written };
}
