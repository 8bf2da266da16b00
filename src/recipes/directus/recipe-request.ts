/** What a served collection's fields can be mapped to (`--map articles.date=published_on`). */
export const FIELD_ROLES = ['title', 'slug', 'summary', 'body', 'date', 'created', 'modified'] as const;
export type FieldRole = (typeof FIELD_ROLES)[number];

/** A collection to serve, with the URL pattern of its pages on the site. */
export interface CollectionRequest {
  readonly name: string;
  /** `/articles/{slug}`: `{field}` is an item's field, `{lang}` the language; default `/<collection>/{slug}`. */
  readonly pattern: string | undefined;
}

/** What the generator is asked for, from the command line. */
export interface RecipeRequest {
  /** The collections to serve, in the order their numbers are given; empty: every collection shown in Directus's app. */
  readonly collections: readonly CollectionRequest[];
  /** `collection` → role → field (`null`: `none`, the collection has no such field). */
  readonly mappings: ReadonlyMap<string, ReadonlyMap<FieldRole, string | null>>;
  /** `collection.field` → the predicate's name. */
  readonly predicates: ReadonlyMap<string, string>;
  /** The public site the pages are on (`https://news.example`): page URLs are absolute; none: root-relative paths. */
  readonly siteUrl: string | undefined;
  /** The recipe's schema (default `agent`). */
  readonly recipeSchema: string;
  /** The schema of Directus's tables (default `public`). */
  readonly directusSchema: string;
  /** The Directus server's time zone, in which its Datetime fields are written (default `UTC`). */
  readonly timeZone: string;
  /** The text search configuration of the `fts` vectors (default `simple`). */
  readonly textSearch: string;
  /** The language of untranslated content; default: Directus's default language, lower case. */
  readonly language: string | undefined;
}

/** A request the generator cannot serve as it is, with what to pass instead. */
export class RecipeRequestError extends Error {
  override name = 'RecipeRequestError';
}

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * `--collection articles:/articles/{slug}` as a request. The pattern is optional; when given it is a
 * root-relative path whose `{…}` name fields of the item (or `{lang}`).
 */
export function parseCollection(value: string): CollectionRequest {
  const colon = value.indexOf(':');
  const name = colon < 0 ? value : value.slice(0, colon);
  const pattern = colon < 0 ? undefined : value.slice(colon + 1);
  if (!NAME.test(name)) throw new RecipeRequestError(`--collection ${JSON.stringify(value)}: "${name}" is not a collection name`);
  if (pattern !== undefined && !/^\/[^\s]*$/.test(pattern)) {
    throw new RecipeRequestError(`--collection ${value}: the page URL pattern must be a path starting with / (e.g. ${name}:/${name}/{slug})`);
  }
  return { name, pattern };
}

/** `--map articles.date=published_on` (or `=none`) as `[collection, role, field | null]`. */
export function parseMapping(value: string): [string, FieldRole, string | null] {
  const match = /^([A-Za-z_][A-Za-z0-9_-]*)\.([a-z]+)=(.+)$/.exec(value);
  if (!match) throw new RecipeRequestError(`--map ${JSON.stringify(value)}: expected <collection>.<role>=<field> (or =none), e.g. articles.date=published_on`);
  const [, collection, role, field] = match as unknown as [string, string, string, string];
  if (!(FIELD_ROLES as readonly string[]).includes(role)) {
    throw new RecipeRequestError(`--map ${value}: "${role}" is not a role; the roles are ${FIELD_ROLES.join(', ')}`);
  }
  return [collection, role as FieldRole, field === 'none' ? null : field];
}

/** `--predicate articles.tags=tagged` as `[collection.field, name]`. */
export function parsePredicate(value: string): [string, string] {
  const match = /^([A-Za-z_][A-Za-z0-9_-]*\.[A-Za-z_][A-Za-z0-9_-]*)=([a-z][a-z0-9_]*)$/.exec(value);
  if (!match) throw new RecipeRequestError(`--predicate ${JSON.stringify(value)}: expected <collection>.<field>=<name>, the name in lower case (^[a-z][a-z0-9_]*$)`);
  return [match[1]!, match[2]!];
}
