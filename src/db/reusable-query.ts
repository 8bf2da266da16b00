import type { CompiledQuery } from 'kysely';

/**
 * Hot reads built by Kysely once per *shape* and then reused with new parameter values.
 *
 * Kysely builds and compiles a query on every call (immutable operation nodes, then the SQL text):
 * about 60 µs of CPU per statement here, a quarter of a primary-key read's Node time. For a read
 * whose SQL text depends only on a few shape facts, that work is the same on every request. A
 * reusable query builds it once per shape with *placeholders* in place of the values, and later
 * calls put the values into the placeholders' parameter positions: same SQL text (so the prepared
 * statement's name is found without hashing a new string), new parameters.
 *
 * What makes the shape: the `shapeKeys` of the parameters, taken by value (enums, flags,
 * booleans: anything the builder compares), every falsy value (absent, `0`, `''`) by value, and for
 * every other value its type (and for arrays their length), so a builder may branch on `typeof`,
 * truthiness and length. Any other use of a
 * placeholder in JavaScript (arithmetic, comparison, `String()`, a method call) throws while
 * building, and that shape is then built on every call, as without this helper. The first build of
 * each shape is checked against an ordinary build with the real values (same SQL, same
 * parameters); with `EXPRESS_AGENT_DISCOVERY_VERIFY_QUERIES=1` (the test suite) every call is.
 */

/** A placeholder value: compiled into exactly one parameter, and refusing every other use. */
class Placeholder {
  constructor(
    readonly index: number,
    /** The `typeof` of the value it stands for. */
    readonly type: string,
  ) {}
  [Symbol.toPrimitive](): never {
    throw new TypeError('a reusable query placeholder was used as a value while building the query');
  }
}

type Leaf = string | number | boolean | bigint | Date | null | undefined;

interface Template {
  sql: string;
  /** Each compiled parameter: a constant of the query, or the index of the value that goes there. */
  parameters: readonly ({ constant: unknown } | { value: number })[];
  compiled: CompiledQuery;
}

const MAX_SHAPES = 256;

/**
 * `typeof value`, also for a placeholder (the type of the value it stands for): a builder that
 * branches on a value's type asks this instead of `typeof`, so its shapes are reused too.
 *
 * ```ts
 * typeOfValue(7) // 'number' (and so for the placeholder standing for 7)
 * ```
 */
export function typeOfValue(value: unknown): string {
  return value instanceof Placeholder ? value.type : typeof value;
}
const verifyEveryCall = process.env.EXPRESS_AGENT_DISCOVERY_VERIFY_QUERIES === '1';

/** Replaces every non-shape leaf of `params` by a placeholder; returns the copy, the values and the shape signature. */
function placehold<P extends object>(params: P, shapeKeys: readonly (keyof P)[]): { slotted: P; values: unknown[]; signature: string } {
  const values: unknown[] = [];
  const signature: string[] = [];
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      signature.push(`[${value.length}`);
      const out = value.map(walk);
      signature.push(']');
      return out;
    }
    if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
      signature.push('{');
      const out = Object.fromEntries(Object.entries(value).map(([k, v]) => (signature.push(k), [k, walk(v)])));
      signature.push('}');
      return out;
    }
    if (typeof value === 'boolean') {
      // Booleans are compared (`=== true`): always shape, never a placeholder.
      signature.push(String(value));
      return value;
    }
    const type = value === null ? 'null' : value instanceof Date ? 'date' : typeof value;
    if (!value) {
      // A falsy value (absent, 0, '') is shape: the builder may test it (`if (q.offset)`), and a
      // placeholder, an object, would always be truthy.
      signature.push(`${type}=${String(value)}`);
      return value;
    }
    signature.push(type);
    values.push(value as Leaf);
    return new Placeholder(values.length - 1, typeof value);
  };
  const slotted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (shapeKeys.includes(key as keyof P)) {
      signature.push(`${key}=${JSON.stringify(value)}`);
      slotted[key] = value;
    } else {
      signature.push(key);
      slotted[key] = walk(value);
    }
  }
  return { slotted: slotted as P, values, signature: signature.join(' ') };
}

const sameParameters = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((v, i) => v === b[i] || (v instanceof Date && b[i] instanceof Date && v.getTime() === (b[i] as Date).getTime()));

/**
 * A read reusable across calls of the same shape. `build` must only hand the parameters' values to
 * Kysely (as values), branching at most on the shape (see above).
 *
 * ```ts
 * const readById = reusableQuery((db: Kysely<Database>, p: { id: number }) => db.selectFrom('rsc').selectAll().where('id', '=', p.id))
 * await db.executeQuery(readById(db, { id: 7 }))
 * ```
 */
export function reusableQuery<D extends object, P extends object, O>(
  build: (db: D, params: P) => { compile(): CompiledQuery<O> },
  shapeKeys: readonly (keyof P)[] = [],
): (db: D, params: P) => CompiledQuery<O> {
  const templates = new WeakMap<D, Map<string, Template | null>>();
  return (db, params) => {
    let byShape = templates.get(db);
    if (!byShape) templates.set(db, (byShape = new Map()));
    const { slotted, values, signature } = placehold(params, shapeKeys);
    let template = byShape.get(signature);
    if (template === undefined) {
      // The shape's first call: build it with placeholders, and check that against an ordinary build.
      template = makeTemplate(build, db, slotted, values.length);
      const reference = build(db, params).compile();
      if (template && (template.sql !== reference.sql || !sameParameters(fill(template, values).parameters, reference.parameters))) template = null;
      if (byShape.size >= MAX_SHAPES) byShape.clear();
      byShape.set(signature, template);
      return template ? fill(template, values) : reference;
    }
    if (!template) return build(db, params).compile();
    const compiled = fill<O>(template, values);
    if (verifyEveryCall) {
      const reference = build(db, params).compile();
      if (compiled.sql !== reference.sql || !sameParameters(compiled.parameters, reference.parameters)) {
        throw new Error(`express-agent-discovery: a reusable query differs from its ordinary build (shape ${signature})`);
      }
    }
    return compiled;
  };
}

/** Builds the query with placeholders; null when the builder used one as a value or lost one. */
function makeTemplate<D, P, O>(build: (db: D, params: P) => { compile(): CompiledQuery<O> }, db: D, slotted: P, count: number): Template | null {
  let compiled: CompiledQuery<O>;
  try {
    compiled = build(db, slotted).compile();
  } catch {
    return null;
  }
  const seen = new Set<number>();
  const parameters = compiled.parameters.map((p) => {
    if (!(p instanceof Placeholder)) return { constant: p };
    seen.add(p.index);
    return { value: p.index };
  });
  // Every value must reach a parameter: one that did not went into the SQL text some other way.
  if (seen.size !== count) return null;
  return { sql: compiled.sql, parameters, compiled: compiled as CompiledQuery };
}

function fill<O>(template: Template, values: readonly unknown[]): CompiledQuery<O> {
  return {
    ...template.compiled,
    sql: template.sql,
    parameters: template.parameters.map((p) => ('value' in p ? values[p.value] : p.constant)),
  } as CompiledQuery<O>;
}
