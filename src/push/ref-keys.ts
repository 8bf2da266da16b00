import { sql, type RawBuilder } from 'kysely';
import type { ContentRef } from './resource-input.js';

/**
 * References of a batch sent to the database once each: every distinct reference gets a key, and a
 * statement resolves them all in one `LATERAL` join (`resolvedRefs`).
 */

/** A reference as the statement's JSON takes it: one of `id`, `name`, `external_id`, or `either` (a name or a string id). */
interface RefRow {
  key: number;
  id: number | null;
  name: string | null;
  external_id: string | null;
  either: string | null;
}

/** A reference as columns: exactly one of `id`, `name`, `external_id`, `either` is set. */
export function refColumns(ref: ContentRef): Omit<RefRow, 'key'> {
  const row: Omit<RefRow, 'key'> = { id: null, name: null, external_id: null, either: null };
  if (typeof ref === 'number') row.id = ref;
  else if (typeof ref === 'string') row.either = ref;
  else if ('id' in ref) row.id = ref.id;
  else if ('name' in ref) row.name = ref.name;
  else row.external_id = ref.externalId;
  return row;
}

/** The distinct references of a batch, each with its key. */
export class RefKeys {
  private readonly keys = new Map<string, number>();
  private readonly rows: RefRow[] = [];
  readonly refs: ContentRef[] = [];

  /** The key of `ref`, added when new. */
  key(ref: ContentRef): number {
    const text = JSON.stringify(ref);
    let key = this.keys.get(text);
    if (key === undefined) {
      key = this.rows.length;
      this.keys.set(text, key);
      this.refs.push(ref);
      this.rows.push({ key, ...refColumns(ref) });
    }
    return key;
  }

  /** The references as one JSON parameter. */
  json(): string {
    return JSON.stringify(this.rows);
  }
}

/**
 * Every reference of `refsJson` with what it names: `found` (0, 1, or 2 for a string that is one
 * resource's name and another's string id), the resource's `id` and its `category_id`. A CTE body.
 *
 * ```sql
 * SELECT k.key, count(f.id)::int AS found, min(f.id) AS id, min(r.category_id) AS category_id
 * FROM jsonb_to_recordset($1::jsonb) AS k(key int, id bigint, name text, external_id text, either text)
 * LEFT JOIN LATERAL (SELECT r.id FROM rsc r WHERE r.id = k.id
 *   UNION SELECT r.id FROM rsc r WHERE r.name = coalesce(k.name, k.either)
 *   UNION SELECT m.rsc_id FROM agent_discovery_external_id m WHERE m.external_id = coalesce(k.external_id, k.either)) f ON true
 * LEFT JOIN rsc r ON r.id = f.id GROUP BY k.key
 * ```
 */
export function resolvedRefs(refsJson: string): RawBuilder<unknown> {
  return sql`
    SELECT k.key, count(f.id)::int AS found, min(f.id) AS id, min(r.category_id) AS category_id
    FROM jsonb_to_recordset(${refsJson}::jsonb) AS k(key int, id bigint, name text, external_id text, either text)
    LEFT JOIN LATERAL (
      SELECT r.id FROM rsc r WHERE r.id = k.id
      UNION SELECT r.id FROM rsc r WHERE r.name = coalesce(k.name, k.either)
      UNION SELECT m.rsc_id FROM agent_discovery_external_id m WHERE m.external_id = coalesce(k.external_id, k.either)
    ) f ON true
    LEFT JOIN rsc r ON r.id = f.id
    GROUP BY k.key`;
}
