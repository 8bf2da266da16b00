import { sql, type Kysely, type SqlBool } from 'kysely';
import { findResourceId, mapExternalId, type PushDatabase } from './external-ids.js';
import { isModelVocabulary } from './model-vocabulary.js';
import { ContentPushError, sqlState } from './push-error.js';
import { putResources, resourceRow, type BatchResource } from './resource-batch.js';
import { fastPut } from './resource-fast-path.js';
import type { ResourceId } from './resource-input.js';
import { reservedIdProblem, reserveIds } from './surrogate-ids.js';

export type { ParsedResource } from './resource-batch.js';

/** What a write settles on: the `rsc` id the facade reads the resource by. */
export interface PutResult {
  readonly id: number;
}

/** The stored resource under `id`, if any, and whether it is the model's vocabulary (a category, a predicate, a root). */
async function storedKind(db: Kysely<PushDatabase>, id: number): Promise<{ vocabulary: boolean } | undefined> {
  return db.selectFrom('rsc as r').select(isModelVocabulary('r').as('vocabulary')).where('r.id', '=', id).executeTakeFirst();
}

/**
 * The `rsc` id a vocabulary put writes under (a category or predicate given an `id`), mapping a string
 * id on first use; refuses an id that is a content resource.
 */
export async function targetId(db: Kysely<PushDatabase>, call: string, id: ResourceId, vocabulary: boolean): Promise<{ id: number; exists: boolean }> {
  const mapped = typeof id === 'string' ? await mapExternalId(db, id) : { id, created: false };
  const stored = mapped.created ? undefined : await storedKind(db, mapped.id);
  const reserved = typeof id === 'number' && !stored ? reservedIdProblem(id) : undefined;
  if (reserved) throw new ContentPushError(call, 'invalid_input', 'id', reserved);
  if (stored && stored.vocabulary !== vocabulary) {
    const what = vocabulary ? 'a resource, not vocabulary' : 'a category or predicate: write it with putCategory or putPredicate';
    throw new ContentPushError(call, 'not_allowed', 'id', `${String(id)} is ${what}`);
  }
  return { id: mapped.id, exists: stored !== undefined };
}

/** A new id for a resource pushed without one (a category or predicate found by name only). */
export async function newResourceId(db: Kysely<PushDatabase>): Promise<number> {
  const [id] = await reserveIds(db, 1);
  return id!;
}

/** A unique `name` already taken, as a conflict naming it. */
export function nameTaken(call: string, name: string | null | undefined, error: unknown): ContentPushError | undefined {
  if (sqlState(error) !== '23505' || !String((error as Error).message).includes('name')) return undefined;
  return new ContentPushError(call, 'conflict', 'name', `'${name ?? ''}' is already the name of another resource`, { cause: error });
}

/**
 * Writes resources: inserts each, or replaces every column of the stored one (`created` and
 * `publication_start` stay when not given; `modified` is now when not given). One statement for the
 * whole batch (see `putResources`); a batch of one (`put`) tries the smaller statement of
 * `fastPut` first. The ids in order.
 */
export async function putResourceBatch(db: Kysely<PushDatabase>, call: string, items: readonly BatchResource[], defaultLanguage: string): Promise<number[]> {
  try {
    const [only] = items;
    // An id in the writer's own block goes to the batch statement, which names why it is refused.
    if (items.length === 1 && only && !(typeof only.resource.id === 'number' && reservedIdProblem(only.resource.id))) {
      const r = only.resource;
      const id = await fastPut(db, resourceRow(call, 0, r, 0, defaultLanguage), r.category, { publicationStart: r.publication_start !== undefined, created: r.created !== undefined });
      if (id !== undefined) return [id];
    }
    return await putResources(db, call, items, defaultLanguage);
  } catch (error) {
    // Two resources of one batch that swap names meet the unique index before the statement ends.
    throw nameTaken(call, 'a name of this batch', error) ?? error;
  }
}

/**
 * Removes a resource (its edges, medium and string-id mapping go with it); `false` when there is
 * none under `id`. A category or predicate is refused: remove it with removeCategory or removePredicate.
 *
 * ```sql
 * DELETE FROM "rsc" WHERE "id" = $1 AND "category_id" NOT IN (…the model's vocabulary categories…)
 * ```
 */
export async function removeResource(db: Kysely<PushDatabase>, id: ResourceId): Promise<{ removed: boolean }> {
  const rscId = await findResourceId(db, id);
  const stored = rscId === undefined ? undefined : await storedKind(db, rscId);
  if (rscId === undefined || !stored) return { removed: false };
  if (stored.vocabulary) {
    throw new ContentPushError('remove', 'not_allowed', 'id', `${String(id)} is a category or predicate: remove it with removeCategory or removePredicate`);
  }
  const gone = await db
    .deleteFrom('rsc')
    .where('id', '=', rscId)
    .where(sql<SqlBool>`NOT ${isModelVocabulary('rsc')}`)
    .executeTakeFirst();
  return { removed: gone.numDeletedRows > 0n };
}
