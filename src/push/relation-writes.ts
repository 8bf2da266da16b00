import { sql, type Kysely } from 'kysely';
import type { z } from 'zod';
import { writeEdges } from './edge-batch.js';
import { findRef, resolveRef, type PushDatabase } from './external-ids.js';
import type { ContentRef, edgeInput, edgeSetInput, mediumInput } from './resource-input.js';

/** Edges between resources through a predicate, and the one downloadable medium of a resource. */

type ParsedEdge = z.output<typeof edgeInput>;
type ParsedEdgeSet = z.output<typeof edgeSetInput>;
type ParsedMedium = z.output<typeof mediumInput>;

/**
 * Writes one edge `subject -predicate-> object` (one writing statement, see `writeEdges`): inserts it, or
 * sets its `seq` (editorial order) when given. Each end must be in a category the predicate allows on
 * its side, when it lists any. Returns the edge's id.
 *
 * ```sql
 * INSERT INTO "edge" ("subject_id", "predicate_id", "object_id", "seq") SELECT … WHERE <every check passed>
 *   ON CONFLICT ("subject_id", "predicate_id", "object_id") DO UPDATE SET "seq" = EXCLUDED."seq" RETURNING "id"
 * ```
 */
export async function putEdge(db: Kysely<PushDatabase>, input: ParsedEdge): Promise<{ id: number }> {
  const [ids] = await writeEdges(db, 'putEdge', [{ kind: 'put', index: undefined, ...input }]);
  return { id: ids![0]! };
}

/**
 * Makes `objects`, in this order (`seq` 1, 2, …), the subject's complete list through the predicate:
 * edges to other objects are removed (one writing statement, see `writeEdges`). Returns the edges' ids in
 * the same order.
 *
 * ```sql
 * DELETE FROM "edge" WHERE "subject_id" = $1 AND "predicate_id" = $2 AND <not one of the objects>
 * INSERT INTO "edge" (…) SELECT … ON CONFLICT (…) DO UPDATE SET "seq" = EXCLUDED."seq"   -- in the same statement
 * ```
 */
export async function setEdges(db: Kysely<PushDatabase>, input: ParsedEdgeSet): Promise<{ ids: number[] }> {
  const [ids] = await writeEdges(db, 'setEdges', [{ kind: 'set', index: undefined, ...input }]);
  return { ids: ids! };
}

/**
 * Removes the edge `subject -predicate-> object`; `false` when there is none (or a reference names nothing).
 *
 * ```sql
 * DELETE FROM "edge" WHERE "subject_id" = $1 AND "predicate_id" = $2 AND "object_id" = $3
 * ```
 */
export async function removeEdge(db: Kysely<PushDatabase>, input: ParsedEdge): Promise<{ removed: boolean }> {
  const subject = await findRef(db, 'removeEdge', 'subject', input.subject);
  const predicate = await findRef(db, 'removeEdge', 'predicate', input.predicate);
  const object = await findRef(db, 'removeEdge', 'object', input.object);
  if (subject === undefined || predicate === undefined || object === undefined) return { removed: false };
  const gone = await db
    .deleteFrom('edge')
    .where('subject_id', '=', subject)
    .where('predicate_id', '=', predicate)
    .where('object_id', '=', object)
    .executeTakeFirst();
  return { removed: gone.numDeletedRows > 0n };
}

/**
 * Writes the downloadable file of a resource (one per resource: replaces the stored one).
 *
 * ```sql
 * INSERT INTO "medium" ("rsc_id", "mime", "filename", "width", "height", "size") VALUES ($1, …)
 *   ON CONFLICT ("rsc_id") DO UPDATE SET "mime" = $2, …
 * ```
 */
export async function putMedium(db: Kysely<PushDatabase>, input: ParsedMedium): Promise<{ id: number }> {
  const id = (await resolveRef(db, 'putMedium', 'resource', input.resource)).id;
  const columns = {
    mime: input.mime,
    filename: input.filename,
    width: input.width ?? null,
    height: input.height ?? null,
    size: input.size ?? null,
  };
  await db
    .insertInto('medium')
    .values({ rsc_id: id, ...columns })
    .onConflict((oc) => oc.column('rsc_id').doUpdateSet(columns))
    .execute();
  return { id };
}

/**
 * Removes the medium of a resource; `false` when it has none.
 *
 * ```sql
 * DELETE FROM "medium" WHERE "rsc_id" = $1
 * ```
 */
export async function removeMedium(db: Kysely<PushDatabase>, ref: ContentRef): Promise<{ removed: boolean }> {
  const id = await findRef(db, 'removeMedium', 'resource', ref);
  if (id === undefined) return { removed: false };
  const gone = await db.deleteFrom('medium').where('rsc_id', '=', id).executeTakeFirst();
  return { removed: gone.numDeletedRows > 0n };
}
