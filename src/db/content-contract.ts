import type { ColumnType } from 'kysely';

/**
 * The content contract, written once: every relation and column the plugin reads, the types a
 * host's table or view may give it, what each column drives, and the indexes each hot statement
 * needs. The Kysely table types (`schema.ts`), the start-up check of a host's schema
 * (`contract-check.ts`), the plan doctor's advice and the reference page in the docs
 * (`contract-reference.ts`) are all derived from this file.
 */

/** A text value given once for all languages, or per language code. */
export type LocalizedText = string | Record<string, string>;

/** One editorial block of a resource. */
export interface Block {
  type: string;
  name?: string;
  header?: LocalizedText;
  body?: LocalizedText;
  rsc_id?: number;
  props?: Record<string, unknown>;
}

/**
 * One column of the contract. `S`, `I`, `U` are its Kysely select, insert and update types (carried
 * as a phantom, so the table types come from this same definition).
 */
export interface ContractColumn<S = unknown, I = S, U = I> {
  /** The type as the docs name it. */
  readonly type: string;
  /** The type family the start-up check accepts (see {@link TYPE_FAMILIES}). */
  readonly family: TypeFamily;
  /** Whether the plugin copes with null here. */
  readonly nullable: boolean;
  /** A view may leave the column out (the plugin then reads null). */
  readonly optional?: true;
  /** What the column drives, for the docs. */
  readonly drives: string;
  readonly __types?: [S, I, U];
}

/** Which PostgreSQL types (as `format_type` writes them) each family accepts. */
export const TYPE_FAMILIES = {
  id: { describe: 'bigint (integer and smallint accepted)', accepts: [/^bigint$/, /^integer$/, /^smallint$/] },
  integer: { describe: 'integer (smallint and bigint accepted)', accepts: [/^integer$/, /^smallint$/, /^bigint$/] },
  text: { describe: 'text (varchar accepted)', accepts: [/^text$/, /^character varying(\(\d+\))?$/] },
  textArray: { describe: 'text[] (varchar[] accepted)', accepts: [/^text\[\]$/, /^character varying(\(\d+\))?\[\]$/] },
  boolean: { describe: 'boolean', accepts: [/^boolean$/] },
  timestamptz: { describe: 'timestamptz', accepts: [/^timestamp with time zone$/] },
  jsonb: { describe: 'jsonb', accepts: [/^jsonb$/] },
  tsvector: { describe: 'tsvector', accepts: [/^tsvector$/] },
} as const;

export type TypeFamily = keyof typeof TYPE_FAMILIES;

const column =
  <S, I = S, U = I>() =>
  (type: string, family: TypeFamily, nullable: boolean, drives: string, extra: { optional?: true } = {}): ContractColumn<S, I, U> =>
    Object.freeze({ type, family, nullable, drives, ...extra });

const id = (drives: string) => column<number>()('bigint', 'id', false, drives);
const generatedId = (drives: string) => column<number, number | undefined, number>()('bigint', 'id', false, drives);
const flag = (drives: string) => column<boolean, boolean | undefined, boolean>()('boolean', 'boolean', false, drives);
const time = (drives: string) => column<Date, Date | string | undefined, Date | string>()('timestamptz', 'timestamptz', false, drives);
const json = <T>(drives: string, nullable = false) => column<T, T | string | undefined, T | string>()('jsonb', 'jsonb', nullable, drives);

/** The resource relation: one row per resource (articles, pages, media, and the vocabulary itself). */
export const RSC_COLUMNS = {
  id: generatedId('the resource id in every URL and reference; positive, at most 2^53 − 1'),
  name: column<string | null>()('text', 'text', true, 'the unique name a resource can be read by (`^[a-z][a-z0-9_]*$`); categories and predicates are referenced by it'),
  category_id: id('its category (a `category` row); template selection, the `cat` filter, noindex and vocabulary rules'),
  is_published: flag('anonymous-visible: must be true'),
  visibility: column<string, string | undefined, string>()('text', 'text', false, "anonymous-visible: must be 'public' (anything else is private)"),
  publication_start: time('anonymous-visible: must be at or before now; the `newest`/`oldest` sorts and date filters'),
  publication_end: column<Date | null, Date | string | null | undefined, Date | string | null>()('timestamptz', 'timestamptz', true, 'anonymous-visible: null or later than now'),
  created: time('the JSON read'),
  modified: time('the `modified` sort, front matter, llms.txt'),
  language: column<string[], string[] | undefined, string[]>()('text[]', 'textArray', false, 'available language codes, the first being the resource\'s own; language fallback'),
  title: json<Record<string, string>>('per-language title: every list and read'),
  summary: json<Record<string, string>>('per-language summary: list items, reads, llms.txt'),
  body: json<Record<string, string>>('per-language body HTML: Markdown and the JSON read'),
  blocks: json<Block[]>('ordered editorial blocks (`[]` when the CMS has none)'),
  props: json<Record<string, unknown>>('free custom fields for templates (`{}` when none)'),
  seo_noindex: flag('indexable: must be false'),
  uri: column<string | null>()('text', 'text', true, 'the entity identifier; null means `<base>/id/<id>`'),
  license: json<LocalizedText | null>('licensing in reads and front matter', true),
  attribution: json<LocalizedText | null>('attribution in reads and front matter', true),
  fts: column<string, never, never>()('tsvector', 'tsvector', false, 'full-text search (`text`): any tsvector the host maintains, matched with the `textSearch.configuration` option'),
  page_url: column<LocalizedText | null, LocalizedText | string | null | undefined, LocalizedText | string | null>()(
    'jsonb',
    'jsonb',
    true,
    "the CMS's own page (a path or absolute URL, one string or `{language: url}`): `page_url` of reads, front matter, citations; null falls back to the `pageUrl` option",
    { optional: true },
  ),
} as const;

/** The category relation: one row per category; a category is itself a resource (`id` = its `rsc` id). */
export const CATEGORY_COLUMNS = {
  id: id("the category's own resource id"),
  parent_id: column<number | null>()('bigint', 'id', true, 'the parent category: subcategories, noindex inheritance, the vocabulary tree'),
  is_noindex: flag('indexable: a noindex category (or ancestor) makes its resources noindex'),
} as const;

/** Which categories a predicate connects, on its subject or its object side. */
export const PREDICATE_CATEGORY_COLUMNS = {
  predicate_id: id('the predicate resource'),
  is_subject: column<boolean>()('boolean', 'boolean', false, 'true: the subject side; false: the object side'),
  category_id: id('a category the predicate connects (the schema read)'),
} as const;

/** The relationships between resources (the related read, the compatibility edge reads). */
export const EDGE_COLUMNS = {
  id: generatedId('the edge id (editorial tie-breaker)'),
  subject_id: id('the subject resource'),
  predicate_id: id('the predicate resource'),
  object_id: id('the object resource'),
  seq: column<number, number | undefined, number>()('integer', 'integer', false, 'editorial order of the compatibility edge reads'),
  created: time('the edge property reads'),
} as const;

/** One optional downloadable file per resource. */
export const MEDIUM_COLUMNS = {
  rsc_id: id('the resource the file belongs to'),
  mime: column<string>()('text', 'text', false, 'the media type of the read and of an image resource\'s Markdown'),
  width: column<number | null>()('integer', 'integer', true, 'image width'),
  height: column<number | null>()('integer', 'integer', true, 'image height'),
  size: column<number | null>()('bigint', 'integer', true, 'file size in bytes'),
  filename: column<string>()('text', 'text', false, 'the file name in the download URL (`mediaUrl` option)'),
} as const;

/** An index a hot statement needs, on a contract relation. */
export interface ContractIndex {
  readonly relation: ContractRelationName;
  /** The key, as `CREATE INDEX … (<columns>)` takes it. */
  readonly columns: string;
  readonly using?: 'gin';
  readonly unique?: true;
  /** The statements it serves. */
  readonly serves: string;
}

/** The relations of the contract, their columns and their role. */
export const CONTRACT_RELATIONS = {
  rsc: { columns: RSC_COLUMNS, role: 'resources: every read, list and document' },
  category: { columns: CATEGORY_COLUMNS, role: 'the category tree (categories are resources too)' },
  predicate_category: { columns: PREDICATE_CATEGORY_COLUMNS, role: 'predicate constraints (the schema read)' },
  edge: { columns: EDGE_COLUMNS, role: 'relationships (the related read)' },
  medium: { columns: MEDIUM_COLUMNS, role: 'downloadable files (may be empty)' },
} as const;

export type ContractRelationName = keyof typeof CONTRACT_RELATIONS;

/** The contract's relation names, in dependency order. */
export const CONTRACT_RELATION_NAMES = Object.freeze(Object.keys(CONTRACT_RELATIONS) as ContractRelationName[]);

/**
 * The indexes the hot statements need (the plugin's own migrations create them all). On a host's
 * views they belong on the tables under the views (or the view's expressions); the plan doctor names
 * them when a plan scans instead.
 */
export const CONTRACT_INDEXES: readonly ContractIndex[] = Object.freeze([
  { relation: 'rsc', columns: 'id', unique: true, serves: 'every read by id; search sorted by id (the default)' },
  { relation: 'rsc', columns: 'name', unique: true, serves: 'reads by name; category and predicate names' },
  { relation: 'rsc', columns: 'publication_start DESC, id', serves: 'search `sort=newest`, llms.txt newest' },
  { relation: 'rsc', columns: 'publication_start, id', serves: 'search `sort=oldest`' },
  { relation: 'rsc', columns: 'modified DESC, id', serves: 'search `sort=modified`' },
  { relation: 'rsc', columns: 'category_id, id', serves: 'search `cat=`, vocabulary' },
  { relation: 'rsc', columns: 'fts', using: 'gin', serves: 'search `text=` (a rare word through the index)' },
  { relation: 'category', columns: 'id', unique: true, serves: 'category joins' },
  { relation: 'category', columns: 'parent_id', serves: 'subcategories, noindex inheritance' },
  { relation: 'edge', columns: 'subject_id, predicate_id, object_id', unique: true, serves: 'related `direction=out` (keyset edge page)' },
  { relation: 'edge', columns: 'object_id, predicate_id, subject_id', unique: true, serves: 'related `direction=in` (keyset edge page)' },
  { relation: 'edge', columns: 'subject_id, predicate_id, seq, id', serves: 'compatibility edge reads (object side)' },
  { relation: 'edge', columns: 'object_id, predicate_id, seq, id', serves: 'compatibility edge reads (subject side)' },
  { relation: 'medium', columns: 'rsc_id', unique: true, serves: 'the medium of a read' },
  { relation: 'predicate_category', columns: 'predicate_id, is_subject, category_id', unique: true, serves: 'the schema read of predicates' },
]);

/** A relation's Kysely table type, from its contract columns. */
export type ContractTable<C> = {
  -readonly [K in keyof C]: C[K] extends ContractColumn<infer S, infer I, infer U> ? ColumnType<S, I, U> : never;
};
