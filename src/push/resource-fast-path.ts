import { sql, type Kysely } from 'kysely';
import type { PushDatabase } from './push-database.js';
import { refColumns } from './ref-keys.js';
import type { ResourceRow } from './resource-batch.js';
import type { ContentRef } from './resource-input.js';

/**
 * `put` of one resource in the common case (a new or existing id, a category at the top level or
 * under `meta`): one call of the database function `agent_discovery_put_resource` (migration 0012),
 * whose statement PostgreSQL plans once per connection, where the same statement sent as text was
 * parsed and planned on every call. It writes only when every check passes, and returns no id
 * otherwise (or in a case it leaves out: a subcategory, a fresh id already taken); then the batch
 * statement runs, writes what the fast path left out and names the problem of what it refuses. The
 * checks there are the batch statement's, never looser (test/push-bulk.test.ts compares the two).
 *
 * ```sql
 * SELECT agent_discovery_put_resource($1::jsonb, $2, $3) AS id
 * ```
 */
export async function fastPut(db: Kysely<PushDatabase>, row: ResourceRow, category: ContentRef, given: { publicationStart: boolean; created: boolean }): Promise<number | undefined> {
  const ref = refColumns(category);
  const json = JSON.stringify({ ...row, cat_id: ref.id, cat_name: ref.name, cat_ext: ref.external_id, cat_either: ref.either });
  const { rows } = await sql<{ id: string | number | null }>`SELECT agent_discovery_put_resource(${json}::jsonb, ${given.publicationStart}, ${given.created}) AS id`.execute(db);
  const id = rows[0]?.id;
  return id === null || id === undefined ? undefined : Number(id);
}
