/**
 * What the push API stores as JSON (`props`, a block's `props`) and as text: values PostgreSQL's
 * `jsonb` and `text` take, checked before any statement is sent, with the limits the reference lists.
 */

/** `props` (and each block's `props`) may nest objects and arrays this deep. */
export const MAX_JSON_DEPTH = 32;
/** `props` (and each block's `props`) may hold at most this many characters as JSON. */
export const MAX_PROPS_CHARACTERS = 262_144;

/** Why a string cannot be stored, or undefined when it can: PostgreSQL refuses NUL, and UTF-8 has no lone surrogate. */
export function textProblem(value: string): string | undefined {
  if (!UNSTORABLE.test(value)) return undefined;
  if (value.includes('\u0000')) return 'must not contain NUL (U+0000), which PostgreSQL cannot store';
  return 'must not contain a lone surrogate (U+D800 to U+DFFF): not valid Unicode text';
}

/** NUL, or a surrogate code unit that is not half of a pair (in `u` mode a pair is one code point, not `Cs`). */
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** A problem found in a JSON value: where (a path below the value) and what. */
export interface JsonProblem {
  readonly path: (string | number)[];
  readonly message: string;
}

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * The first reason `value` is not storable JSON within the limits, or undefined: only null, booleans,
 * finite numbers, strings (see {@link textProblem}), arrays and plain objects (a member `undefined`
 * is left out, as `JSON.stringify` does; a valid `Date` becomes its ISO string), at most
 * {@link MAX_JSON_DEPTH} deep and {@link MAX_PROPS_CHARACTERS} characters as JSON. BigInt, functions,
 * symbols, `NaN`, cycles and class instances are refused, each with its path.
 *
 * ```ts
 * jsonProblem({ a: [1, 2n] }) // { path: ['a', 1], message: 'must be JSON: a BigInt is not (give a number or a string)' }
 * ```
 */
export function jsonProblem(value: unknown): JsonProblem | undefined {
  const ancestors = new Set<object>();
  let size = 0;
  const visit = (v: unknown, path: (string | number)[]): JsonProblem | undefined => {
    const refuse = (message: string) => ({ path, message });
    switch (typeof v) {
      case 'string': {
        size += v.length + 2;
        const problem = textProblem(v);
        return problem ? refuse(problem) : undefined;
      }
      case 'number':
        size += 1;
        return Number.isFinite(v) ? undefined : refuse(`must be JSON: ${v} is not a JSON number`);
      case 'boolean':
        size += 4;
        return undefined;
      case 'bigint':
        return refuse('must be JSON: a BigInt is not (give a number or a string)');
      case 'undefined':
        return refuse('must be JSON: undefined is not (give null)');
      case 'function':
      case 'symbol':
        return refuse(`must be JSON: a ${typeof v} is not`);
    }
    if (v === null) {
      size += 4;
      return undefined;
    }
    const object = v as object;
    if (object instanceof Date) {
      size += 26;
      return Number.isNaN(object.getTime()) ? refuse('must be JSON: an invalid Date') : undefined;
    }
    if (!Array.isArray(object) && !isPlainObject(object)) return refuse(`must be JSON: a ${object.constructor?.name ?? 'class'} instance is not (give a plain object)`);
    if (ancestors.has(object)) return refuse('must be JSON: it refers to itself (a cycle)');
    if (path.length >= MAX_JSON_DEPTH) return refuse(`nests deeper than ${MAX_JSON_DEPTH} levels`);
    ancestors.add(object);
    size += 2;
    const entries: [string | number, unknown][] = Array.isArray(object) ? object.map((item, i) => [i, item]) : Object.entries(object);
    for (const [key, item] of entries) {
      if (typeof key === 'string') {
        if (item === undefined) continue;
        const problem = textProblem(key);
        if (problem) return { path: [...path, key], message: `the key ${problem}` };
        size += key.length + 3;
      }
      const found = visit(item, [...path, key]);
      if (found) return found;
      if (size > MAX_PROPS_CHARACTERS) return { path, message: `must be at most ${MAX_PROPS_CHARACTERS.toLocaleString('en')} characters as JSON` };
    }
    ancestors.delete(object);
    return undefined;
  };
  // The running size is a lower bound (it stops a 10 MB value early); the exact length is checked last.
  const found = visit(value, []);
  if (found) return found;
  if (JSON.stringify(value).length > MAX_PROPS_CHARACTERS) return { path: [], message: `must be at most ${MAX_PROPS_CHARACTERS.toLocaleString('en')} characters as JSON` };
  return undefined;
}
