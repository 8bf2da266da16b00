/**
 * SQL text for the generated recipe: identifiers and literals quoted as PostgreSQL's `quote_ident`
 * and `quote_literal` quote them, so a collection or field named like a keyword (`order`, `user`) or
 * with capitals stays one name.
 *
 * ```ts
 * ident('articles') // '"articles"'
 * literal("it's") // "'it''s'"
 * qualified('public', 'articles') // '"public"."articles"'
 * ```
 */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A string literal (standard conforming strings: only the quote is doubled). */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** `schema.name`, both quoted. */
export function qualified(schema: string, name: string): string {
  return `${ident(schema)}.${ident(name)}`;
}

/** PostgreSQL's limit on an identifier's length, in bytes. */
export const MAX_IDENTIFIER_BYTES = 63;

/**
 * A name for a generated object about a collection (`refresh_articles`): the prefix and the
 * collection's name when that is a plain lower-case name that fits, else the prefix and the
 * collection's number (`refresh_c3`), so every generated name is valid and unique.
 */
export function objectName(prefix: string, collection: string, number: number): string {
  const name = `${prefix}${collection}`;
  return /^[a-z_][a-z0-9_]*$/.test(collection) && Buffer.byteLength(name) <= MAX_IDENTIFIER_BYTES ? name : `${prefix}c${number}`;
}
