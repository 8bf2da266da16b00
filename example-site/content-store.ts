import { sql, type Kysely } from 'kysely';
import type { Block, Database, LocalizedText } from '../src/index.js';

/**
 * The example CMS's own writes: how a host creates categories, resources, edges and media in the
 * content schema. Tests use the same functions to build fixtures.
 */

export interface NewResource {
  name?: string | null;
  category: number | string;
  title?: Record<string, string>;
  summary?: Record<string, string>;
  body?: Record<string, string>;
  blocks?: Block[];
  props?: Record<string, unknown>;
  language?: string[];
  isPublished?: boolean;
  visibility?: string;
  publicationStart?: Date | string;
  publicationEnd?: Date | string | null;
  created?: Date | string;
  modified?: Date | string;
  seoNoindex?: boolean;
  uri?: string | null;
  license?: LocalizedText | null;
  attribution?: LocalizedText | null;
}

const DAY = 86_400_000;

async function categoryId(db: Kysely<Database>, category: number | string): Promise<number> {
  if (typeof category === 'number') return category;
  const row = await db.selectFrom('rsc').select('id').where('name', '=', category).executeTakeFirst();
  if (!row) throw new Error(`no category named ${category}`);
  return row.id;
}

/** Inserts a resource; defaults: published, public, started a day ago, languages from the title. */
export async function insertResource(db: Kysely<Database>, r: NewResource): Promise<number> {
  const title = r.title ?? { en: r.name ?? 'Untitled' };
  const row = await db
    .insertInto('rsc')
    .values({
      name: r.name ?? null,
      category_id: await categoryId(db, r.category),
      is_published: r.isPublished ?? true,
      visibility: r.visibility ?? 'public',
      publication_start: r.publicationStart ?? new Date(Date.now() - DAY),
      publication_end: r.publicationEnd ?? null,
      created: r.created ?? new Date(),
      modified: r.modified ?? new Date(),
      language: r.language ?? Object.keys(title),
      title: JSON.stringify(title),
      summary: JSON.stringify(r.summary ?? {}),
      body: JSON.stringify(r.body ?? {}),
      blocks: JSON.stringify(r.blocks ?? []),
      props: JSON.stringify(r.props ?? {}),
      seo_noindex: r.seoNoindex ?? false,
      uri: r.uri ?? null,
      license: r.license === undefined || r.license === null ? null : JSON.stringify(r.license),
      attribution: r.attribution === undefined || r.attribution === null ? null : JSON.stringify(r.attribution),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface NewCategory {
  name: string;
  parent?: number | string | null;
  title?: Record<string, string>;
  summary?: Record<string, string>;
  isNoindex?: boolean;
  isPublished?: boolean;
  visibility?: string;
}

/**
 * Inserts a category: a resource in the `category` category plus its `category` row. The very first
 * call (`meta`, `category`) bootstraps the tree inside one transaction.
 */
export async function insertCategory(db: Kysely<Database>, c: NewCategory): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const categoryCat = await categoryId(tx, 'category');
    const parentId = c.parent === undefined || c.parent === null ? null : await categoryId(tx, c.parent);
    const title = c.title ?? { en: c.name };
    const row = await tx
      .insertInto('rsc')
      .values({
        name: c.name,
        category_id: categoryCat,
        is_published: c.isPublished ?? true,
        visibility: c.visibility ?? 'public',
        publication_start: new Date(Date.now() - 365 * DAY),
        language: Object.keys(title),
        title: JSON.stringify(title),
        summary: JSON.stringify(c.summary ?? {}),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx.insertInto('category').values({ id: row.id, parent_id: parentId, is_noindex: c.isNoindex ?? false }).execute();
    return row.id;
  });
}

/** Creates the vocabulary root every content schema starts with: `meta`, `category`, `predicate`. */
export async function bootstrapVocabulary(db: Kysely<Database>): Promise<{ meta: number; category: number; predicate: number }> {
  return db.transaction().execute(async (tx) => {
    // `meta` and `category` refer to each other; the deferred foreign key allows it inside one transaction.
    const ids = await sql<{ id: number }>`SELECT nextval(pg_get_serial_sequence('rsc', 'id'))::bigint AS id FROM generate_series(1, 2)`.execute(tx);
    const [meta, category] = ids.rows.map((r) => Number(r.id)) as [number, number];
    const old = new Date(Date.now() - 365 * DAY);
    for (const [id, name] of [[meta, 'meta'], [category, 'category']] as const) {
      await tx
        .insertInto('rsc')
        .values({ id, name, category_id: category, publication_start: old, is_published: true, language: ['en'], title: JSON.stringify({ en: name }) })
        .execute();
    }
    await tx.insertInto('category').values({ id: meta, parent_id: null }).execute();
    await tx.insertInto('category').values({ id: category, parent_id: meta }).execute();
    return { meta, category };
  }).then(async (ids) => ({ ...ids, predicate: await insertCategory(db, { name: 'predicate', parent: ids.meta }) }));
}

/** Inserts a predicate resource and its subject/object category constraints. */
export async function insertPredicate(
  db: Kysely<Database>,
  p: { name: string; title?: Record<string, string>; subjects?: number[]; objects?: number[]; isPublished?: boolean; visibility?: string },
): Promise<number> {
  const id = await insertResource(db, {
    name: p.name,
    category: 'predicate',
    title: p.title ?? { en: p.name },
    isPublished: p.isPublished ?? true,
    visibility: p.visibility ?? 'public',
    publicationStart: new Date(Date.now() - 365 * DAY),
  });
  const constraints = [
    ...(p.subjects ?? []).map((category_id) => ({ predicate_id: id, is_subject: true, category_id })),
    ...(p.objects ?? []).map((category_id) => ({ predicate_id: id, is_subject: false, category_id })),
  ];
  if (constraints.length) await db.insertInto('predicate_category').values(constraints).execute();
  return id;
}

/** Inserts edges `subject -predicate-> object`, in the given editorial order. */
export async function insertEdges(
  db: Kysely<Database>,
  edges: { subject: number; predicate: number; object: number; seq?: number }[],
): Promise<void> {
  if (!edges.length) return;
  await db
    .insertInto('edge')
    .values(edges.map((e, i) => ({ subject_id: e.subject, predicate_id: e.predicate, object_id: e.object, seq: e.seq ?? i + 1 })))
    .execute();
}

/** Attaches a downloadable medium to a resource. */
export async function insertMedium(
  db: Kysely<Database>,
  m: { rscId: number; mime: string; filename: string; width?: number; height?: number; size?: number },
): Promise<void> {
  await db
    .insertInto('medium')
    .values({ rsc_id: m.rscId, mime: m.mime, filename: m.filename, width: m.width ?? null, height: m.height ?? null, size: m.size ?? null })
    .execute();
}
