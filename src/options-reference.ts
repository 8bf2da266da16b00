import { z } from 'zod';
import { optionDocs, optionsShape, type OptionDoc } from './options.js';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** A default value as code: `'en'`, `['en']`, `false`, `10`. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TypeError(`no words for the default ${String(value)}: give the option's doc a default`);
}

/** The schema a pipe (its input side), a default or an optional wraps. */
function unwrapped(schema: z.core.$ZodType): z.core.$ZodType | undefined {
  if (schema instanceof z.ZodPipe) return schema.in;
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodOptional) return schema.unwrap();
  return undefined;
}

/** The schemas an option's schema wraps or is made of, with the key each adds to the option's path. */
function parts(schema: z.core.$ZodType): Array<[key: string | undefined, schema: z.core.$ZodType]> {
  const inner = unwrapped(schema);
  if (inner) return [[undefined, inner]];
  if (schema instanceof z.ZodUnion) return schema.options.map((option) => [undefined, option]);
  if (schema instanceof z.ZodObject) return Object.entries(schema.shape as Record<string, z.core.$ZodType>);
  return [];
}

/** The default an option's schema fills in, in words: its doc's, else its `.default()`, else required or none. */
function defaultText(schema: z.core.$ZodType, doc: OptionDoc): string {
  if (doc.default !== undefined) return doc.default;
  for (let s: z.core.$ZodType | undefined = schema; s; s = unwrapped(s)) {
    if (s instanceof z.ZodDefault) return `\`${literal(s.def.defaultValue)}\``;
    if (s instanceof z.ZodOptional) return 'none';
  }
  return 'required';
}

/** Every documented option under `schema`, nested ones as `ard.name`, in the schema's order. */
function* documented(schema: z.core.$ZodType, path: string[]): Generator<{ path: string; doc: OptionDoc; schema: z.core.$ZodType }> {
  const doc = optionDocs.get(schema);
  if (doc) yield { path: path.join('.'), doc, schema };
  for (const [key, part] of parts(schema)) yield* documented(part, key === undefined ? path : [...path, key]);
}

/** Every documented option, in the schema's order: its path, its meaning and its default in words. */
export function optionRows(shape: Record<string, z.core.$ZodType> = optionsShape): Array<{ path: string; description: string; default: string }> {
  return Object.entries(shape).flatMap(([key, schema]) => {
    if (!optionDocs.has(schema)) throw new TypeError(`option ${key} has no documentation (optionDocs)`);
    return [...documented(schema, [key])].map((row) => ({ path: row.path, description: row.doc.description, default: defaultText(row.schema, row.doc) }));
  });
}

/**
 * The options of `createAgentDiscovery` as a Markdown reference page (`docs/reference/options.md`),
 * from the schema that validates them; a test keeps the page equal to it.
 */
export function optionsReference(): string {
  const out: string[] = [
    '# Reference: options',
    '',
    '<!-- Generated from src/options.ts by `npm run docs`; a test fails when this page differs. -->',
    '',
    'Every option of `createAgentDiscovery(options)`, its default and what it does. They are validated',
    'once at start-up: a bad option throws a `TypeError` naming it. A "run-time setting" can also be',
    'changed on [the admin page](../guides/admin.md#the-admin-page-what-agents-see-and-run-time-settings),',
    'whose stored value wins over the option.',
    '',
    '| option | default | meaning |',
    '|---|---|---|',
  ];
  for (const row of optionRows()) out.push(`| \`${row.path}\` | ${cell(row.default)} | ${cell(row.description)} |`);
  out.push('');
  return out.join('\n');
}
