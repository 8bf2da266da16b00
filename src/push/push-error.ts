import type { z } from 'zod';
import { classifyError } from '../http/errors.js';

/** Why a call of the push API failed, each code with its meaning (the reference lists them). */
export const CONTENT_PUSH_ERROR_CODES = Object.freeze({
  invalid_input: 'a value does not validate, or the database refused one; `field` names it. Nothing was written',
  not_found: 'a reference names no resource, or not one of the kind needed (a category, a predicate)',
  conflict:
    "a unique name or a string id is taken, a reference is ambiguous (one resource's name and another's string id), or the write met another writer's at the same time (then `retryable`)",
  not_allowed:
    'vocabulary where content is expected or the reverse, a root of the vocabulary, a category still in use, an edge whose end is in a category the predicate does not allow on its side',
  remove_limit:
    "`reconcile` would remove more than `maxRemove` allows (default 10 % of what is in scope), or anything at all from an empty list: nothing was removed",
  read_only: 'the database is read-only (a replica): write to the primary with `createContentWriter(kysely)`',
  unavailable:
    'the connection was lost, reset or refused, the backend terminated or the pool closed: `retryable`; nothing of the failed call (of a bulk call: of the failed batch) is visible',
  timeout:
    'a statement ran past its time limit (`statement_timeout`, or a cancel): nothing of the failed call (of a bulk call: of the failed batch) is visible. Not `retryable` as it is: the same statement will likely run as long again; write smaller batches (`batchSize`) or raise the limit',
  database_error: "the database refused the write for a reason the push API does not know (the driver's error is `cause`)",
} as const);

/** Why a write of the push API was refused (see {@link CONTENT_PUSH_ERROR_CODES}). */
export type ContentPushErrorCode = keyof typeof CONTENT_PUSH_ERROR_CODES;

/** Where a push error comes from beyond its call, code and field. */
export interface ContentPushErrorDetails {
  /** The same call may succeed when tried again (a lost connection, a write racing another). */
  readonly retryable?: boolean | undefined;
  /** In a bulk call, the position (from 0) of the item at fault in what was passed. */
  readonly index?: number | undefined;
  /** The driver's error, when the database refused. */
  readonly cause?: unknown;
  /** In a bulk call, how many items were written (by the batches before the failed one). */
  readonly written?: number | undefined;
}

/**
 * The error every call of `agent.content` throws for bad input, a refused write or a database
 * failure, naming the call and the field (`express-agent-discovery: content.put: title.nl: expected
 * string`). Nothing of the call was written (of a bulk call: nothing of the failed batch).
 */
export class ContentPushError extends Error {
  override readonly name = 'ContentPushError';
  /** The same call may succeed when tried again. */
  readonly retryable: boolean;
  /** In a bulk call, the position (from 0) of the item at fault. */
  readonly index: number | undefined;
  /**
   * In a bulk call, how many items were written (committed, by the batches before the failed one):
   * the items from position `written` on were not; call again with those.
   */
  readonly written: number | undefined;
  /** What is wrong, without the call and the field. */
  readonly detail: string;
  constructor(
    readonly call: string,
    readonly code: ContentPushErrorCode,
    /** The field at fault as a path (`category`, `blocks.2.type`, `current.1041.id`), when there is one. */
    readonly field: string | undefined,
    detail: string,
    details: ContentPushErrorDetails = {},
  ) {
    const at = details.index === undefined ? '' : `[${details.index}] `;
    super(`express-agent-discovery: content.${call}: ${at}${field ? `${field}: ` : ''}${detail}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.retryable = details.retryable ?? false;
    this.index = details.index;
    this.written = details.written;
    this.detail = detail;
  }

  /** The same error said of the item at `index` of a bulk call. */
  atIndex(index: number): ContentPushError {
    return new ContentPushError(this.call, this.code, this.field, this.detail, { retryable: this.retryable, index, cause: this.cause, written: this.written });
  }

  /**
   * The same error of a bulk call that wrote `written` items before it failed: said in the message
   * ("the first 1,000 items were written; from item 1,000 on, none").
   */
  afterWritten(written: number): ContentPushError {
    const detail = this.detail.replace(/; nothing of this call was written/, '');
    const said = written ? `the first ${written.toLocaleString('en')} items were written; from item ${written.toLocaleString('en')} on, none` : 'no item was written';
    const error = new ContentPushError(this.call, this.code, this.field, detail, { retryable: this.retryable, index: this.index, cause: this.cause, written });
    error.message = `${error.message} (${said})`;
    return error;
  }
}

/** A path as the error names it: `blocks.2.type`. */
function fieldPath(path: readonly PropertyKey[]): string | undefined {
  return path.length ? path.map(String).join('.') : undefined;
}

/** The first issue of a failed parse as a push error (every issue is listed in the message). */
export function inputError(call: string, error: z.ZodError, prefix: readonly PropertyKey[] = []): ContentPushError {
  const [first, ...rest] = error.issues.map((issue) => ({ field: fieldPath([...prefix, ...issue.path]), message: issue.message }));
  const more = rest.map((r) => `; ${r.field ? `${r.field}: ` : ''}${r.message}`).join('');
  return new ContentPushError(call, 'invalid_input', first?.field, `${first?.message ?? 'invalid'}${more}`);
}

/** PostgreSQL's code on a driver error (pg and PGlite both set `code`). */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A read-only database (a standby, a read-only transaction) as a push error that names the fix. */
export function readOnlyError(call: string, error: unknown): ContentPushError | undefined {
  if (sqlState(error) !== '25006') return undefined;
  return new ContentPushError(
    call,
    'read_only',
    undefined,
    'the database is read-only (a read replica?): the push API writes to the primary; with `database: { readUrl }`, create a writer on the primary with `createContentWriter(kysely)`',
    { cause: error },
  );
}

/**
 * A failure of a call as a push error: push errors as they are; a statement cancelled (its time
 * limit: the rule the routes answer 504 by) as `timeout`, not retryable (it would run as long again);
 * a lost or refused connection, a terminated backend or a closed pool (503) as `unavailable` and
 * retryable; a serialization failure, a deadlock or a key written at the same
 * time by another writer as a retryable `conflict`; a value the database refuses (class 22) as
 * `invalid_input`; any other error of the driver (it has a SQLSTATE or socket `code`) as
 * `database_error`. The driver's error is the `cause`. An error that is not the database's (thrown by
 * the host's own iterable, say) is returned as it is.
 */
export function pushFailure(call: string, error: unknown): unknown {
  if (error instanceof ContentPushError) return error;
  const readOnly = readOnlyError(call, error);
  if (readOnly) return readOnly;
  const state = sqlState(error) ?? '';
  const message = error instanceof Error ? error.message : String(error);
  const classified = classifyError(error);
  if (!state && !classified) return error;
  if (classified?.code === 'timeout') {
    return new ContentPushError(call, 'timeout', undefined, `a statement ran past its time limit (${message}); nothing of this call was written: write smaller batches or raise the limit`, { cause: error });
  }
  if (classified) {
    return new ContentPushError(call, 'unavailable', undefined, `the database is unavailable (${message}); nothing of this call was written: retry later`, { retryable: true, cause: error });
  }
  if (state === '40001' || state === '40P01' || state === '23505' || state === '23503') {
    return new ContentPushError(call, 'conflict', undefined, `another writer changed the same rows at the same time (${message}): retry`, { retryable: true, cause: error });
  }
  if (state.startsWith('22')) return new ContentPushError(call, 'invalid_input', undefined, `the database refused a value: ${message}`, { cause: error });
  return new ContentPushError(call, 'database_error', undefined, `the database refused the write: ${message}`, { cause: error });
}
