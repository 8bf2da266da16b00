import { ident } from './sql-text.js';

/** A PostgreSQL connection as the generator uses it (`pg.Client` and `pg.Pool` fit, structurally). */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/** Runs an SQL text in a transaction that is rolled back: it applies (or throws why not), and leaves nothing. */
export async function applyRolledBack(db: Queryable, text: string): Promise<void> {
  await db.query('BEGIN');
  try {
    await db.query(text);
  } finally {
    await db.query('ROLLBACK');
  }
}

/** One collection of the Directus model, with its table as PostgreSQL has it. */
export interface DirectusCollection {
  readonly name: string;
  /** Hidden in Directus's app (junction collections are). */
  readonly hidden: boolean;
  readonly singleton: boolean;
  /** The single-column primary key, when the table has one. */
  readonly primaryKey: string | undefined;
  /** The columns of a primary key of several columns (composite), else empty. */
  readonly compositeKey: readonly string[];
  /** Column name → PostgreSQL type (`format_type`), every column of the table. */
  readonly columns: ReadonlyMap<string, string>;
  /** Field name → what `directus_fields` says of it (alias fields such as `tags` or `translations` live only here). */
  readonly fields: ReadonlyMap<string, DirectusField>;
}

/** A row of `directus_fields`. */
export interface DirectusField {
  /** `special`, split on commas: `m2o`, `m2m`, `o2m`, `translations`, `date-created`, `date-updated`, … */
  readonly special: readonly string[];
  readonly interface: string | null;
}

/** A row of `directus_relations`: `many_collection.many_field` points at `one_collection`'s primary key. */
export interface DirectusRelation {
  readonly manyCollection: string;
  readonly manyField: string;
  readonly oneCollection: string | null;
  /** The alias field on the one side (`articles.tags`, `articles.translations`), if any. */
  readonly oneField: string | null;
  /** For a junction: the junction's other field (`articles_tags.tags_id`). */
  readonly junctionField: string | null;
  /** Many-to-any: the allowed collections (the recipe does not follow these). */
  readonly oneAllowedCollections: string | null;
}

/** What the generator reads of a Directus database. */
export interface DirectusModel {
  /** The schema of Directus's tables. */
  readonly schema: string;
  /** Every collection with a table, system collections (`directus_*`) left out. */
  readonly collections: ReadonlyMap<string, DirectusCollection>;
  readonly relations: readonly DirectusRelation[];
  /** `directus_settings.default_language` (`en-US`). */
  readonly defaultLanguage: string | null;
  /** Numbers given by an earlier run (read from the recipe's own tables), kept so ids do not move. */
  readonly previous: {
    readonly collections: ReadonlyMap<string, number>;
    /** `collection.field` → the predicate's number. */
    readonly predicates: ReadonlyMap<string, number>;
  };
}

/** The model could not be read: not a Directus database, or not this schema. */
export class DirectusModelError extends Error {
  override name = 'DirectusModelError';
}

/**
 * Reads the Directus model: `directus_collections`, `directus_fields` and `directus_relations`, the
 * tables' columns and primary keys from the catalog (Directus keeps no `directus_fields` row for a
 * plain column created without metadata), and the numbers an earlier run gave (from
 * `<recipeSchema>.collection` and `<recipeSchema>.predicate_field`, when they exist).
 *
 * ```sql
 * SELECT c.collection, c.hidden, c.singleton FROM public.directus_collections c WHERE c.collection NOT LIKE 'directus\_%'
 * SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE a.attrelid = 'public.articles'::regclass AND a.attnum > 0
 * ```
 */
export async function readDirectusModel(db: Queryable, schema: string, recipeSchema: string): Promise<DirectusModel> {
  const { rows: found } = await db.query<{ ok: boolean }>(`SELECT to_regclass(format('%I.directus_collections', $1::text)) IS NOT NULL AS ok`, [schema]);
  if (!found[0]?.ok) {
    throw new DirectusModelError(`no Directus tables in schema "${schema}" of this database (directus_collections is missing): is it Directus's database? Its schema is --directus-schema`);
  }
  const q = (table: string) => `${ident(schema)}.${ident(table)}`;
  const { rows: collections } = await db.query<{ collection: string; hidden: boolean; singleton: boolean }>(
    `SELECT collection, hidden, singleton FROM ${q('directus_collections')} WHERE collection NOT LIKE 'directus\\_%' ORDER BY collection`,
  );
  const { rows: columns } = await db.query<{ relation: string; name: string; type: string; primary: boolean; composite: boolean }>(
    `SELECT c.relname AS relation, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
       EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND i.indnatts = 1 AND i.indkey[0] = a.attnum) AS primary,
       EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND i.indnatts > 1 AND a.attnum = ANY (i.indkey)) AS composite
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY c.relname, a.attnum`,
    [schema],
  );
  const { rows: fields } = await db.query<{ collection: string; field: string; special: string | null; interface: string | null }>(
    `SELECT collection, field, special, interface FROM ${q('directus_fields')} ORDER BY collection, sort NULLS LAST, id`,
  );
  const { rows: relations } = await db.query<{
    many_collection: string; many_field: string; one_collection: string | null; one_field: string | null;
    junction_field: string | null; one_allowed_collections: string | null;
  }>(`SELECT many_collection, many_field, one_collection, one_field, junction_field, one_allowed_collections FROM ${q('directus_relations')} ORDER BY id`);
  const { rows: settings } = await db.query<{ default_language: string | null }>(
    `SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(format('%I.directus_settings', $1::text)) AND attname = 'default_language')
       THEN (SELECT default_language FROM ${q('directus_settings')} ORDER BY id LIMIT 1) END AS default_language`,
    [schema],
  ).catch(() => ({ rows: [{ default_language: null }] }));

  const model = new Map<string, DirectusCollection>();
  for (const c of collections) {
    const own = columns.filter((col) => col.relation === c.collection);
    if (!own.length) continue; // a folder (a collection without a table)
    model.set(c.collection, {
      name: c.collection,
      hidden: c.hidden,
      singleton: c.singleton,
      primaryKey: own.find((col) => col.primary)?.name,
      compositeKey: own.filter((col) => col.composite).map((col) => col.name),
      columns: new Map(own.map((col) => [col.name, col.type])),
      fields: new Map(
        fields.filter((f) => f.collection === c.collection).map((f) => [f.field, { special: splitList(f.special), interface: f.interface }]),
      ),
    });
  }
  return {
    schema,
    collections: model,
    relations: relations.map((r) => ({
      manyCollection: r.many_collection,
      manyField: r.many_field,
      oneCollection: r.one_collection,
      oneField: r.one_field,
      junctionField: r.junction_field,
      oneAllowedCollections: r.one_allowed_collections,
    })),
    defaultLanguage: settings[0]?.default_language ?? null,
    previous: await readPreviousNumbers(db, recipeSchema),
  };
}

/** The numbers an earlier run gave to collections and predicates, or none. */
async function readPreviousNumbers(db: Queryable, recipeSchema: string): Promise<DirectusModel['previous']> {
  const { rows: exists } = await db.query<{ collections: boolean; predicates: boolean }>(
    `SELECT to_regclass(format('%I.collection', $1::text)) IS NOT NULL AS collections, to_regclass(format('%I.predicate_field', $1::text)) IS NOT NULL AS predicates`,
    [recipeSchema],
  );
  const collections = exists[0]?.collections
    ? (await db.query<{ collection: string; number: number }>(`SELECT collection, number FROM ${ident(recipeSchema)}.collection`)).rows
    : [];
  const predicates = exists[0]?.predicates
    ? (await db.query<{ collection: string; field: string; number: number }>(`SELECT collection, field, number FROM ${ident(recipeSchema)}.predicate_field`)).rows
    : [];
  return {
    collections: new Map(collections.map((c) => [c.collection, Number(c.number)])),
    predicates: new Map(predicates.map((p) => [`${p.collection}.${p.field}`, Number(p.number)])),
  };
}

const splitList = (value: string | null): string[] => (value ? value.split(',').map((s) => s.trim()).filter(Boolean) : []);
