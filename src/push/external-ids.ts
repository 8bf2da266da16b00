import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { PushDatabase } from './push-database.js';
import { ContentPushError } from './push-error.js';
import { reserveIds } from './surrogate-ids.js';
import type { ContentRef, ResourceId } from './resource-input.js';

export type { ExternalIdTable, PushDatabase } from './push-database.js';

/**
 * The `rsc` id a string id stands for, creating the mapping (with a free id in the read API's range,
 * see `reserveIds`) when it is new; `created` tells which. Two writers creating the same new mapping
 * at once get the same id: the second waits for the first's commit, then reads its row.
 *
 * ```sql
 * INSERT INTO "agent_discovery_external_id" ("external_id", "rsc_id") VALUES ($1, $2)
 *   ON CONFLICT ("external_id") DO NOTHING RETURNING "rsc_id"
 * SELECT "rsc_id" FROM "agent_discovery_external_id" WHERE "external_id" = $1   -- when it existed
 * ```
 */
export async function mapExternalId(db: Kysely<PushDatabase>, externalId: string): Promise<{ id: number; created: boolean }> {
  const existing = await db.selectFrom('agent_discovery_external_id').select('rsc_id').where('external_id', '=', externalId).executeTakeFirst();
  if (existing) return { id: Number(existing.rsc_id), created: false };
  const [id] = await reserveIds(db, 1);
  const inserted = await db
    .insertInto('agent_discovery_external_id')
    .values({ external_id: externalId, rsc_id: id! })
    .onConflict((oc) => oc.column('external_id').doNothing())
    .returning('rsc_id')
    .executeTakeFirst();
  if (inserted) return { id: Number(inserted.rsc_id), created: true };
  const row = await db.selectFrom('agent_discovery_external_id').select('rsc_id').where('external_id', '=', externalId).executeTakeFirstOrThrow();
  return { id: Number(row.rsc_id), created: false };
}

/** The `rsc` id of a resource id as the host gives it, without creating anything; undefined when unmapped. */
export async function findResourceId(db: Kysely<PushDatabase>, id: ResourceId): Promise<number | undefined> {
  if (typeof id === 'number') return id;
  const row = await db.selectFrom('agent_discovery_external_id').select('rsc_id').where('external_id', '=', id).executeTakeFirst();
  return row ? Number(row.rsc_id) : undefined;
}

/**
 * The condition that `alias` is the referenced resource.
 *
 * ```sql
 * "r"."id" = $1                                  -- 42 or { id: 42 }
 * "r"."name" = $1                                -- { name: 'news' }
 * "r"."id" IN (SELECT "rsc_id" FROM "agent_discovery_external_id" WHERE "external_id" = $1)   -- { externalId }
 * ("r"."name" = $1 OR "r"."id" IN (SELECT …))   -- 'news' or '5f2b…': name or string id
 * ```
 */
function refCondition(alias: string, ref: ContentRef): RawBuilder<SqlBool> {
  const id = sql.ref(`${alias}.id`);
  const name = sql.ref(`${alias}.name`);
  const mapped = (externalId: string) => sql<SqlBool>`${id} IN (SELECT rsc_id FROM agent_discovery_external_id WHERE external_id = ${externalId})`;
  if (typeof ref === 'number') return sql<SqlBool>`${id} = ${ref}`;
  if (typeof ref === 'string') return sql<SqlBool>`(${name} = ${ref} OR ${mapped(ref)})`;
  if ('id' in ref) return sql<SqlBool>`${id} = ${ref.id}`;
  if ('name' in ref) return sql<SqlBool>`${name} = ${ref.name}`;
  return mapped(ref.externalId);
}

/** The resource a removal names, if any (ambiguous references are still refused). */
export async function findRef(db: Kysely<PushDatabase>, call: string, field: string, ref: ContentRef): Promise<number | undefined> {
  if (typeof ref === 'number' || (typeof ref === 'object' && 'id' in ref)) return typeof ref === 'number' ? ref : ref.id;
  if (typeof ref === 'object' && 'externalId' in ref) return findResourceId(db, ref.externalId);
  const { rows } = await sql<{ id: number }>`SELECT r.id FROM rsc r WHERE ${refCondition('r', ref)} LIMIT 2`.execute(db);
  if (rows.length > 1) throw new ContentPushError(call, 'conflict', field, `${describeRef(ref)} is one resource's name and another's string id: say { name } or { externalId }`);
  return rows[0] ? Number(rows[0].id) : undefined;
}

/** A reference as an error message shows it. */
export function describeRef(ref: ContentRef): string {
  if (typeof ref === 'number') return `id ${ref}`;
  if (typeof ref === 'string') return `'${ref}'`;
  if ('id' in ref) return `id ${ref.id}`;
  if ('name' in ref) return `name '${ref.name}'`;
  return `string id '${ref.externalId}'`;
}

/** A row found by a reference, with what the caller asked to know about it. */
export interface FoundRef<T> {
  readonly id: number;
  readonly row: T;
}

/**
 * Resolves a reference to exactly one resource, with `columns` (SQL expressions over `r`, the `rsc`
 * row) read alongside; a push error naming `field` when it names none, or two (a string that is one
 * resource's name and another's string id).
 */
export async function resolveRef<T extends Record<string, unknown>>(
  db: Kysely<PushDatabase>,
  call: string,
  field: string,
  ref: ContentRef,
  columns: RawBuilder<T> = sql<T>`NULL AS "none"`,
): Promise<FoundRef<T>> {
  const { rows } = await sql<T & { id: number }>`SELECT r.id, ${columns} FROM rsc r WHERE ${refCondition('r', ref)} LIMIT 2`.execute(db);
  const [first, second] = rows;
  if (!first) throw new ContentPushError(call, 'not_found', field, `no resource has ${describeRef(ref)}`);
  if (second) {
    throw new ContentPushError(call, 'conflict', field, `${describeRef(ref)} is one resource's name and another's string id: say { name } or { externalId }`);
  }
  return { id: Number(first.id), row: first };
}
