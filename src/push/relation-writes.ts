import { sql, type Kysely } from 'kysely';
import type { z } from 'zod';
import { namedCategoryTree } from '../content/visibility.js';
import { describeRef, findRef, resolveRef, type PushDatabase } from './external-ids.js';
import { ContentPushError } from './push-error.js';
import type { ContentRef, edgeInput, edgeSetInput, mediumInput } from './resource-input.js';

/** Edges between resources through a predicate, and the one downloadable medium of a resource. */

type ParsedEdge = z.output<typeof edgeInput>;
type ParsedEdgeSet = z.output<typeof edgeSetInput>;
type ParsedMedium = z.output<typeof mediumInput>;

/** A predicate by reference: a resource in the `predicate` category tree. */
async function predicateId(db: Kysely<PushDatabase>, call: string, ref: ContentRef): Promise<number> {
  const found = await resolveRef(db, call, 'predicate', ref, sql<{ is_predicate: boolean }>`r.category_id IN ${namedCategoryTree('predicate')} AS "is_predicate"`);
  if (!found.row.is_predicate) throw new ContentPushError(call, 'not_found', 'predicate', `${describeRef(ref)} is not a predicate`);
  return found.id;
}

/**
 * Writes one edge `subject -predicate-> object`: inserts it, or sets its `seq` (editorial order) when
 * given. Returns the edge's id.
 *
 * ```sql
 * INSERT INTO "edge" ("subject_id", "predicate_id", "object_id", "seq") VALUES ($1, $2, $3, $4)
 *   ON CONFLICT ("subject_id", "predicate_id", "object_id") DO UPDATE SET "seq" = $4 RETURNING "id"
 * ```
 */
export async function putEdge(db: Kysely<PushDatabase>, input: ParsedEdge): Promise<{ id: number }> {
  const subject = (await resolveRef(db, 'putEdge', 'subject', input.subject)).id;
  const predicate = await predicateId(db, 'putEdge', input.predicate);
  const object = (await resolveRef(db, 'putEdge', 'object', input.object)).id;
  return upsertEdge(db, subject, predicate, object, input.seq);
}

async function upsertEdge(db: Kysely<PushDatabase>, subject: number, predicate: number, object: number, seq: number | undefined): Promise<{ id: number }> {
  const row = await db
    .insertInto('edge')
    .values({ subject_id: subject, predicate_id: predicate, object_id: object, ...(seq === undefined ? {} : { seq }) })
    .onConflict((oc) => oc.columns(['subject_id', 'predicate_id', 'object_id']).doUpdateSet((eb) => ({ seq: seq ?? eb.ref('edge.seq') })))
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: Number(row.id) };
}

/**
 * Makes `objects`, in this order (`seq` 1, 2, …), the subject's complete list through the predicate:
 * edges to other objects are removed. Returns the edges' ids in the same order.
 *
 * ```sql
 * DELETE FROM "edge" WHERE "subject_id" = $1 AND "predicate_id" = $2 AND "object_id" <> ALL($3)
 * INSERT INTO "edge" (…) VALUES (…) ON CONFLICT (…) DO UPDATE SET "seq" = …   -- per object
 * ```
 */
export async function setEdges(db: Kysely<PushDatabase>, input: ParsedEdgeSet): Promise<{ ids: number[] }> {
  const subject = (await resolveRef(db, 'setEdges', 'subject', input.subject)).id;
  const predicate = await predicateId(db, 'setEdges', input.predicate);
  const objects: number[] = [];
  for (const [i, ref] of input.objects.entries()) {
    const id = (await resolveRef(db, 'setEdges', `objects.${i}`, ref)).id;
    if (!objects.includes(id)) objects.push(id);
  }
  await db
    .deleteFrom('edge')
    .where('subject_id', '=', subject)
    .where('predicate_id', '=', predicate)
    .$if(objects.length > 0, (qb) => qb.where('object_id', 'not in', objects))
    .execute();
  const ids: number[] = [];
  for (const [i, object] of objects.entries()) ids.push((await upsertEdge(db, subject, predicate, object, i + 1)).id);
  return { ids };
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
