import { createHash } from 'node:crypto';
import type { PostgresPool } from 'kysely';
import type pg from 'pg';

/**
 * Named prepared statements for the plugin's reads (the `preparedStatements` database option).
 *
 * Kysely sends every query as an unnamed statement, so PostgreSQL parses and plans it on every
 * call. With this wrapper each distinct read text gets a stable name (a hash of the text), and `pg`
 * prepares it once per connection: later calls send only Bind/Execute, PostgreSQL skips the parse
 * and can reuse a plan. Only `select`/`with` statements are named (never DDL, migrations or
 * multi-statement text), and at most {@link MAX_NAMED_STATEMENTS} distinct texts per process, so a
 * connection never holds an unbounded set of statements; texts past the bound run unnamed.
 *
 * Named statements live in the server session, so this must be off behind a pooler that hands one
 * client's statements to different server connections (PgBouncer in transaction pooling mode,
 * Debian 12's 1.18 included).
 */
const MAX_NAMED_STATEMENTS = 500;

/** Whether a `{ url }` database uses named prepared statements when the option is not given. */
export const PREPARED_STATEMENTS_DEFAULT = false;

const names = new Map<string, string | null>();

/** The statement name of a read's SQL text; `undefined` when the text is to run unnamed. */
export function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined) {
    const named = /^\s*(select|with)\s/i.test(text) && names.size < MAX_NAMED_STATEMENTS;
    name = named ? `ead_${createHash('sha1').update(text).digest('base64url')}` : null;
    if (named) names.set(text, name);
  }
  return name ?? undefined;
}

type QueryFn = (...args: unknown[]) => unknown;
const patched = new WeakSet<object>();

/** Makes one pg client send reads as named statements (once per client; the pool reuses clients). */
function nameStatements(client: pg.PoolClient): pg.PoolClient {
  if (patched.has(client)) return client;
  patched.add(client);
  const query = client.query.bind(client) as QueryFn;
  (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text === 'string' && (args.length === 1 || Array.isArray(values))) {
      const name = statementName(text);
      if (name !== undefined) return query({ name, text, values: values ?? [] });
    }
    return query(...args);
  };
  return client;
}

/** What `statementPool` needs of a pool: its options, a client (promise form) and its end. */
export type SessionPool = Pick<pg.Pool, 'options' | 'end'> & { connect(): Promise<pg.PoolClient> };

/**
 * The pool Kysely's PostgreSQL dialect is given: `pool` itself, or (with `prepared`) the same pool
 * whose clients send reads as named prepared statements.
 *
 * ```ts
 * new PostgresDialect({ pool: statementPool(pool, config.preparedStatements ?? false) })
 * ```
 */
export function statementPool(pool: SessionPool, prepared: boolean): PostgresPool {
  if (!prepared) return pool as unknown as PostgresPool;
  return {
    options: pool.options,
    connect: async () => nameStatements(await pool.connect()) as unknown as Awaited<ReturnType<PostgresPool['connect']>>,
    end: () => pool.end(),
  };
}
