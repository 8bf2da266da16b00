import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { typeOfValue } from '../db/reusable-query.js';

/**
 * How any resource is referenced, defined once: by its numeric id or by its unique name. Parameters,
 * the template accessor `rsc(idOrName)`, page-block references, markers and template selection all
 * read references (and names) through this module, and every query finds a resource by {@link byRef}.
 */

/** A resource reference: its numeric id or its unique name. */
export type ResourceRef = number | string;

/** A name is at most this long (resource names, category names in template names, block types). */
export const MAX_NAME_LENGTH = 100;

/** An id has at most this many digits, so every id accepted is a safe integer (2^53 − 1 has 16). */
export const MAX_ID_DIGITS = 15;

/** The name grammar (as the `rsc.name` CHECK constraint has it), without a length bound. */
export const NAME_GRAMMAR = /^[a-z][a-z0-9_]*$/;

/** A reference as text: a positive id of at most 15 digits, or a name of at most 100 characters. */
export const RESOURCE_REF_PATTERN = new RegExp(`^(?:[1-9][0-9]{0,${MAX_ID_DIGITS - 1}}|[a-z][a-z0-9_]{0,${MAX_NAME_LENGTH - 1}})$`);

/** Whether `value` is a usable name: the grammar and the length bound. */
export function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_NAME_LENGTH && NAME_GRAMMAR.test(value);
}

/**
 * A reference from text that already matches {@link RESOURCE_REF_PATTERN}: an id as a number, a
 * name as itself.
 */
export function refFromText(text: string): ResourceRef {
  return text.charCodeAt(0) <= 57 ? Number(text) : text;
}

/**
 * A reference from anything (a path parameter, a template argument, a block's `rsc_id`): a number
 * or numeric text becomes the id, a name stays a name; `undefined` for anything else (zero,
 * negative, fractional or unsafe numbers, malformed or overlong text).
 */
export function parseResourceRef(value: unknown): ResourceRef | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
  return text !== undefined && RESOURCE_REF_PATTERN.test(text) ? refFromText(text) : undefined;
}

/**
 * The resource `alias` is the referenced one: `alias.id = $1` for an id, `alias.name = $1` for a name.
 *
 * ```sql
 * "r"."id" = $1::bigint    -- or --    "r"."name" = $1
 * ```
 */
export function byRef(alias: string, ref: ResourceRef): RawBuilder<SqlBool> {
  // `typeOfValue`: the branch holds for the placeholders of a reusable query too.
  return typeOfValue(ref) === 'number' ? sql<SqlBool>`${sql.ref(`${alias}.id`)} = ${idValue(ref as number)}` : sql<SqlBool>`${sql.ref(`${alias}.name`)} = ${ref}`;
}

/**
 * An id as a statement parameter, typed `bigint`: compared with an `integer` id column of a host's
 * view, an id beyond that column's range then simply matches nothing (a 404), where an untyped
 * parameter would take the column's type and fail the statement. PostgreSQL's integer operators
 * compare across widths through the same index.
 *
 * ```sql
 * "r"."id" = $1::bigint
 * ```
 */
export function idValue(id: number): RawBuilder<number> {
  return sql<number>`${id}::bigint`;
}
