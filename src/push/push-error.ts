import type { z } from 'zod';

/**
 * Why a write of the push API was refused: `invalid_input` (the value does not validate),
 * `not_found` (a reference names no resource, or not one of the kind needed), `conflict` (a unique
 * name or mapping already taken, an ambiguous reference), `not_allowed` (vocabulary where content is
 * expected, or the reverse; a category still in use), `read_only` (the database is a read replica).
 */
export type ContentPushErrorCode = 'invalid_input' | 'not_found' | 'conflict' | 'not_allowed' | 'read_only';

/**
 * The error every call of `agent.content` throws for bad input or a refused write, naming the call and
 * the field (`express-agent-discovery: content.put: title.nl: expected string`). Nothing was written.
 */
export class ContentPushError extends Error {
  override readonly name = 'ContentPushError';
  constructor(
    readonly call: string,
    readonly code: ContentPushErrorCode,
    /** The field at fault as a path (`category`, `blocks.2.type`, `current.1041.id`), when there is one. */
    readonly field: string | undefined,
    detail: string,
  ) {
    super(`express-agent-discovery: content.${call}: ${field ? `${field}: ` : ''}${detail}`);
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
  );
}
