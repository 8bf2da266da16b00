import { sql, type Kysely, type SqlBool } from 'kysely';
import { metaCategoryIds } from '../content/visibility.js';
import { findResourceId, mapExternalId, resolveRef, type PushDatabase } from './external-ids.js';
import { advanceIdSequence } from './id-sequence.js';
import { jsonValue, languageMap, nullableJson, resourceLanguages } from './localized-columns.js';
import { ContentPushError, sqlState } from './push-error.js';
import type { resourceInput, ResourceId } from './resource-input.js';
import type { z } from 'zod';

/** A resource after validation. */
export type ParsedResource = z.output<typeof resourceInput>;

/** What a write settles on: the `rsc` id the facade reads the resource by. */
export interface PutResult {
  readonly id: number;
}

/** The stored resource under `id`, if any, and whether it is vocabulary (a category or predicate). */
async function storedKind(db: Kysely<PushDatabase>, id: number): Promise<{ vocabulary: boolean } | undefined> {
  return db
    .selectFrom('rsc as r')
    .select(sql<boolean>`r.category_id IN ${metaCategoryIds()}`.as('vocabulary'))
    .where('r.id', '=', id)
    .executeTakeFirst();
}

/**
 * The `rsc` id a put writes under, mapping a string id on first use; refuses an id that is vocabulary.
 * A new numeric id moves the id sequence past it.
 */
export async function targetId(db: Kysely<PushDatabase>, call: string, id: ResourceId, vocabulary: boolean): Promise<{ id: number; exists: boolean }> {
  const mapped = typeof id === 'string' ? await mapExternalId(db, id) : { id, created: false };
  const stored = mapped.created ? undefined : await storedKind(db, mapped.id);
  if (stored && stored.vocabulary !== vocabulary) {
    const what = vocabulary ? 'a resource, not vocabulary' : 'a category or predicate: write it with putCategory or putPredicate';
    throw new ContentPushError(call, 'not_allowed', 'id', `${String(id)} is ${what}`);
  }
  if (!stored && typeof id === 'number') await advanceIdSequence(db, id);
  return { id: mapped.id, exists: stored !== undefined };
}

/** The category a resource goes in: an existing category that is not vocabulary (`meta` or below). */
async function contentCategory(db: Kysely<PushDatabase>, ref: ParsedResource['category']): Promise<number> {
  const found = await resolveRef(
    db,
    'put',
    'category',
    ref,
    sql<{ is_category: boolean; vocabulary: boolean }>`
      EXISTS (SELECT 1 FROM category c WHERE c.id = r.id) AS "is_category", r.id IN ${metaCategoryIds()} AS "vocabulary"`,
  );
  if (!found.row.is_category) throw new ContentPushError('put', 'not_found', 'category', `resource ${found.id} is not a category`);
  if (found.row.vocabulary) {
    throw new ContentPushError('put', 'not_allowed', 'category', `category ${found.id} holds vocabulary: use putCategory or putPredicate`);
  }
  return found.id;
}

/** A unique `name` already taken, as a conflict naming it. */
export function nameTaken(call: string, name: string | null | undefined, error: unknown): ContentPushError | undefined {
  if (sqlState(error) !== '23505' || !String((error as Error).message).includes('name')) return undefined;
  return new ContentPushError(call, 'conflict', 'name', `'${name ?? ''}' is already the name of another resource`);
}

/**
 * Writes a resource: inserts it, or replaces every column of the stored one (`created` and
 * `publication_start` stay when not given; `modified` is now when not given).
 *
 * ```sql
 * INSERT INTO "rsc" ("id", "name", "category_id", …) VALUES ($1, $2, $3, …)
 *   ON CONFLICT ("id") DO UPDATE SET "name" = $2, "category_id" = $3, …
 * ```
 */
export async function putResource(db: Kysely<PushDatabase>, input: ParsedResource, defaultLanguage: string): Promise<PutResult> {
  const languages = resourceLanguages('put', input.language, { title: input.title, summary: input.summary, body: input.body }, defaultLanguage);
  const categoryId = await contentCategory(db, input.category);
  const { id } = await targetId(db, 'put', input.id, false);
  const columns = {
    name: input.name ?? null,
    category_id: categoryId,
    is_published: input.is_published,
    visibility: input.visibility,
    publication_end: input.publication_end ?? null,
    modified: input.modified ?? sql<Date>`now()`,
    language: languages,
    title: jsonValue(languageMap(input.title, languages)),
    summary: jsonValue(languageMap(input.summary, languages)),
    body: jsonValue(languageMap(input.body, languages)),
    blocks: jsonValue(input.blocks ?? []),
    props: jsonValue(input.props ?? {}),
    seo_noindex: input.seo_noindex,
    uri: input.uri ?? null,
    license: nullableJson(input.license),
    attribution: nullableJson(input.attribution),
    page_url: nullableJson(input.page_url),
    ...(input.publication_start ? { publication_start: input.publication_start } : {}),
    ...(input.created ? { created: input.created } : {}),
  };
  try {
    await db
      .insertInto('rsc')
      .values({ id, ...columns })
      .onConflict((oc) => oc.column('id').doUpdateSet(columns))
      .execute();
  } catch (error) {
    throw nameTaken('put', input.name, error) ?? error;
  }
  return { id };
}

/**
 * Removes a resource (its edges, medium and string-id mapping go with it); `false` when there is
 * none under `id`. Vocabulary is refused: remove it with removeCategory or removePredicate.
 *
 * ```sql
 * DELETE FROM "rsc" WHERE "id" = $1 AND "category_id" NOT IN (…the meta category tree…)
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
    .where(sql<SqlBool>`category_id NOT IN ${metaCategoryIds()}`)
    .executeTakeFirst();
  return { removed: gone.numDeletedRows > 0n };
}
