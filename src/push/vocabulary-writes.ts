import { sql, type Kysely, type SqlBool } from 'kysely';
import type { z } from 'zod';
import { namedCategoryTree } from '../content/visibility.js';
import { describeRef, findRef, resolveRef, type PushDatabase } from './external-ids.js';
import { jsonValue, languageMap, resourceLanguages } from './localized-columns.js';
import { ContentPushError } from './push-error.js';
import type { categoryInput, ContentRef, predicateInput } from './resource-input.js';
import { modelCategoryIds } from './model-vocabulary.js';
import { nameTaken, newResourceId, targetId, type PutResult } from './resource-writes.js';
import { reserveIds } from './surrogate-ids.js';

/**
 * The vocabulary a pushing CMS writes: categories (resources in the `category` category, plus their
 * `category` row) and predicates (resources in `predicate`, plus the categories they connect), under
 * the roots `meta`, `category` and `predicate`, which the first call creates on an empty database.
 */

type ParsedCategory = z.output<typeof categoryInput>;
type ParsedPredicate = z.output<typeof predicateInput>;
type Roots = { meta: number; category: number; predicate: number };

/** The names of the vocabulary's roots, which the writer keeps. */
const ROOT_NAMES: readonly string[] = Object.freeze(['meta', 'category', 'predicate']);

const YEAR_MS = 365 * 86_400_000;

/**
 * The roots' ids, creating the missing ones: `meta` (top level) and `category` (under it) refer to each
 * other, so their ids are reserved first (the foreign key is checked at commit); `predicate` goes under `meta`.
 */
async function vocabularyRoots(db: Kysely<PushDatabase>, call: string, defaultLanguage: string): Promise<Roots> {
  const rows = await db.selectFrom('rsc').select(['id', 'name']).where('name', 'in', ROOT_NAMES).execute();
  const found = new Map(rows.map((r) => [r.name, Number(r.id)]));
  const root = (id: number | undefined, name: string, categoryId: number) => ({
    ...(id === undefined ? {} : { id }),
    name,
    category_id: categoryId,
    is_published: true,
    publication_start: new Date(Date.now() - YEAR_MS),
    language: [defaultLanguage],
    title: jsonValue({ [defaultLanguage]: name }),
  });
  let meta = found.get('meta');
  let category = found.get('category');
  if (meta === undefined && category === undefined) {
    [meta, category] = (await reserveIds(db, 2)) as [number, number];
    await db.insertInto('rsc').values([root(meta, 'meta', category), root(category, 'category', category)]).execute();
    await db.insertInto('category').values([{ id: meta, parent_id: null }, { id: category, parent_id: meta }]).execute();
  }
  if (meta === undefined || category === undefined) {
    throw new ContentPushError(call, 'not_allowed', undefined, 'the vocabulary is incomplete: the database has one of the resources named meta and category, not both');
  }
  let predicate = found.get('predicate');
  if (predicate === undefined) {
    predicate = await newResourceId(db);
    await db.insertInto('rsc').values(root(predicate, 'predicate', category)).execute();
    await db.insertInto('category').values({ id: predicate, parent_id: meta }).execute();
  }
  return { meta, category, predicate };
}

/** The existing resource a vocabulary put updates: by `id` when given, else by `name`; its id or a new one. */
async function vocabularyTarget(db: Kysely<PushDatabase>, call: string, input: { id?: number | string | undefined; name: string }): Promise<number | undefined> {
  if (ROOT_NAMES.includes(input.name)) {
    throw new ContentPushError(call, 'not_allowed', 'name', `${input.name} is a root of the vocabulary, kept by the writer`);
  }
  if (input.id !== undefined) {
    const { id } = await targetId(db, call, input.id, true);
    const stored = await db.selectFrom('rsc').select('name').where('id', '=', id).executeTakeFirst();
    if (stored?.name && ROOT_NAMES.includes(stored.name)) throw new ContentPushError(call, 'not_allowed', 'id', `${String(input.id)} is ${stored.name}, a root of the vocabulary, kept by the writer`);
    return id;
  }
  const row = await db.selectFrom('rsc').select('id').where('name', '=', input.name).executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

/** Inserts or replaces the `rsc` row of a category or predicate; its id. */
async function upsertVocabularyResource(
  db: Kysely<PushDatabase>,
  call: string,
  id: number | undefined,
  input: ParsedCategory | ParsedPredicate,
  categoryId: number,
  defaultLanguage: string,
): Promise<number> {
  const title = input.title ?? input.name;
  const languages = resourceLanguages(call, input.language, { title, summary: input.summary }, defaultLanguage);
  const columns = {
    name: input.name,
    category_id: categoryId,
    is_published: input.is_published,
    visibility: input.visibility,
    language: languages,
    title: jsonValue(languageMap(title, languages)),
    summary: jsonValue(languageMap(input.summary, languages)),
    uri: input.uri ?? null,
    modified: input.modified ?? sql<Date>`now()`,
  };
  try {
    if (id === undefined) {
      const fresh = await newResourceId(db);
      await db.insertInto('rsc').values({ id: fresh, publication_start: new Date(Date.now() - YEAR_MS), ...columns }).execute();
      return fresh;
    }
    const row = await db
      .insertInto('rsc')
      .values({ id, publication_start: new Date(Date.now() - YEAR_MS), ...columns })
      .onConflict((oc) => oc.column('id').doUpdateSet(columns))
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  } catch (error) {
    throw nameTaken(call, input.name, error) ?? error;
  }
}

/**
 * A category by reference, for a parent or a predicate's constraint: any category but the model's own
 * (`meta`, `category`, `predicate`); a `vocabulary` category (tags, authors) is one.
 */
async function contentCategoryRef(db: Kysely<PushDatabase>, call: string, field: string, ref: ContentRef): Promise<number> {
  const found = await resolveRef(
    db,
    call,
    field,
    ref,
    sql<{ is_category: boolean; vocabulary: boolean }>`
      EXISTS (SELECT 1 FROM category c WHERE c.id = r.id) AS "is_category", r.id IN ${modelCategoryIds()} AS "vocabulary"`,
  );
  if (!found.row.is_category) throw new ContentPushError(call, 'not_found', field, `${describeRef(ref)} is not a category`);
  if (found.row.vocabulary) throw new ContentPushError(call, 'not_allowed', field, `${describeRef(ref)} is a category of the vocabulary`);
  return found.id;
}

/** Whether `ancestor` is `id` or above it in the category tree. */
async function isAncestorOrSelf(db: Kysely<PushDatabase>, ancestor: number, id: number): Promise<boolean> {
  const { rows } = await sql<{ hit: number }>`
    WITH RECURSIVE up(id, parent_id) AS (
      SELECT id, parent_id FROM category WHERE id = ${id}
      UNION
      SELECT c.id, c.parent_id FROM category c JOIN up ON c.id = up.parent_id
    ) SELECT 1 AS hit FROM up WHERE id = ${ancestor} LIMIT 1`.execute(db);
  return rows.length > 0;
}

/**
 * Writes a category: its resource in `category` and its `category` row (parent, noindex; a
 * `vocabulary` category goes under `meta`, which keeps its resources out of search and lists).
 *
 * ```sql
 * INSERT INTO "rsc" (…) VALUES (…) ON CONFLICT ("id") DO UPDATE SET …  RETURNING "id"
 * INSERT INTO "category" ("id", "parent_id", "is_noindex") VALUES ($1, $2, $3)
 *   ON CONFLICT ("id") DO UPDATE SET "parent_id" = $2, "is_noindex" = $3
 * ```
 */
export async function putCategory(db: Kysely<PushDatabase>, input: ParsedCategory, defaultLanguage: string): Promise<PutResult> {
  if (input.vocabulary && input.parent !== null && input.parent !== undefined) {
    throw new ContentPushError('putCategory', 'invalid_input', 'parent', 'a vocabulary category has no parent of its own (it goes under meta)');
  }
  const roots = await vocabularyRoots(db, 'putCategory', defaultLanguage);
  const existing = await vocabularyTarget(db, 'putCategory', input);
  if (existing !== undefined) await assertKind(db, 'putCategory', existing, 'category');
  const parent = input.vocabulary
    ? roots.meta
    : input.parent === null || input.parent === undefined
      ? null
      : await contentCategoryRef(db, 'putCategory', 'parent', input.parent);
  if (parent !== null && existing !== undefined && (await isAncestorOrSelf(db, existing, parent))) {
    throw new ContentPushError('putCategory', 'invalid_input', 'parent', `${describeRef(input.parent!)} is this category or below it`);
  }
  const id = await upsertVocabularyResource(db, 'putCategory', existing, input, roots.category, defaultLanguage);
  await db
    .insertInto('category')
    .values({ id, parent_id: parent, is_noindex: input.is_noindex })
    .onConflict((oc) => oc.column('id').doUpdateSet({ parent_id: parent, is_noindex: input.is_noindex }))
    .execute();
  return { id };
}

/**
 * Writes a predicate: its resource in `predicate`, and the categories it connects (replacing the
 * stored ones).
 *
 * ```sql
 * DELETE FROM "predicate_category" WHERE "predicate_id" = $1
 * INSERT INTO "predicate_category" ("predicate_id", "is_subject", "category_id") VALUES ($1, true, $2), …
 * ```
 */
export async function putPredicate(db: Kysely<PushDatabase>, input: ParsedPredicate, defaultLanguage: string): Promise<PutResult> {
  const roots = await vocabularyRoots(db, 'putPredicate', defaultLanguage);
  const existing = await vocabularyTarget(db, 'putPredicate', input);
  if (existing !== undefined) await assertKind(db, 'putPredicate', existing, 'predicate');
  const sides = async (refs: readonly ContentRef[], isSubject: boolean, field: string) => {
    const ids = new Set<number>();
    for (const [i, ref] of refs.entries()) ids.add(await contentCategoryRef(db, 'putPredicate', `${field}.${i}`, ref));
    return [...ids].map((category_id) => ({ is_subject: isSubject, category_id }));
  };
  const constraints = [...(await sides(input.subjects, true, 'subjects')), ...(await sides(input.objects, false, 'objects'))];
  const id = await upsertVocabularyResource(db, 'putPredicate', existing, input, roots.predicate, defaultLanguage);
  await db.deleteFrom('predicate_category').where('predicate_id', '=', id).execute();
  if (constraints.length) await db.insertInto('predicate_category').values(constraints.map((c) => ({ predicate_id: id, ...c }))).execute();
  return { id };
}

/** Refuses to write a category over a predicate, or either over a content resource. */
async function assertKind(db: Kysely<PushDatabase>, call: string, id: number, kind: 'category' | 'predicate'): Promise<void> {
  const row = await db
    .selectFrom('rsc as r')
    .select([
      sql<boolean>`EXISTS (SELECT 1 FROM category c WHERE c.id = r.id)`.as('is_category'),
      sql<boolean>`r.category_id IN ${namedCategoryTree('predicate')}`.as('is_predicate'),
    ])
    .where('r.id', '=', id)
    .executeTakeFirst();
  if (!row) return;
  const actual = row.is_category ? 'category' : row.is_predicate ? 'predicate' : 'resource';
  if (actual !== kind) throw new ContentPushError(call, 'not_allowed', 'id', `resource ${id} is a ${actual}, not a ${kind}`);
}

/**
 * Removes a category that holds no resources and no subcategories (its predicate constraints go with
 * it); `false` when the reference names nothing.
 *
 * ```sql
 * DELETE FROM "rsc" WHERE "id" = $1   -- the category row cascades
 * ```
 */
export async function removeCategory(db: Kysely<PushDatabase>, ref: ContentRef): Promise<{ removed: boolean }> {
  const id = await findRef(db, 'removeCategory', 'category', ref);
  if (id === undefined) return { removed: false };
  const row = await db
    .selectFrom('category as c')
    .innerJoin('rsc as r', 'r.id', 'c.id')
    .select([
      'r.name',
      sql<number>`(SELECT count(*) FROM rsc x WHERE x.category_id = c.id)`.as('resources'),
      sql<number>`(SELECT count(*) FROM category x WHERE x.parent_id = c.id)`.as('children'),
    ])
    .where('c.id', '=', id)
    .executeTakeFirst();
  if (!row) {
    const exists = await db.selectFrom('rsc').select('id').where('id', '=', id).executeTakeFirst();
    if (!exists) return { removed: false };
    throw new ContentPushError('removeCategory', 'not_allowed', 'category', `${describeRef(ref)} is not a category`);
  }
  if (row.name && ROOT_NAMES.includes(row.name)) throw new ContentPushError('removeCategory', 'not_allowed', 'category', `${row.name} is a root of the vocabulary`);
  if (Number(row.resources) > 0 || Number(row.children) > 0) {
    throw new ContentPushError('removeCategory', 'not_allowed', 'category', `${describeRef(ref)} still holds ${row.resources} resources and ${row.children} subcategories`);
  }
  const gone = await db.deleteFrom('rsc').where('id', '=', id).executeTakeFirst();
  return { removed: gone.numDeletedRows > 0n };
}

/**
 * Removes a predicate and every edge through it; `false` when the reference names nothing.
 *
 * ```sql
 * DELETE FROM "rsc" WHERE "id" = $1 AND "category_id" IN (…the predicate category tree…)
 * ```
 */
export async function removePredicate(db: Kysely<PushDatabase>, ref: ContentRef): Promise<{ removed: boolean }> {
  const id = await findRef(db, 'removePredicate', 'predicate', ref);
  if (id === undefined) return { removed: false };
  await assertKind(db, 'removePredicate', id, 'predicate');
  const gone = await db
    .deleteFrom('rsc')
    .where('id', '=', id)
    .where(sql<SqlBool>`category_id IN ${namedCategoryTree('predicate')}`)
    .executeTakeFirst();
  return { removed: gone.numDeletedRows > 0n };
}

