import { z } from 'zod';
import { DEFAULT_BATCH_SIZE } from './bulk-writes.js';
import { MAX_JSON_DEPTH, MAX_PROPS_CHARACTERS } from './json-value.js';
import { PUSH_CALLS, type PushCall } from './push-calls.js';
import { CONTENT_PUSH_ERROR_CODES } from './push-error.js';
import { MAX_BLOCKS, MAX_BLOCKS_CHARACTERS, MAX_HOST_ID, MAX_RESOURCE_ID, MAX_TEXT_LENGTH, pushDocs } from './resource-input.js';

/**
 * The push API (`agent.content`) as a Markdown reference page (`docs/reference/content-api.md`),
 * from the table of calls and the zod schemas that validate their input; a test keeps the page equal
 * to it.
 */

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A schema's checks of one kind (`max_length`, `greater_than`, …). */
function checks(schema: z.core.$ZodType): z.core.$ZodCheckDef[] {
  return (schema._zod.def.checks ?? []).map((c) => c._zod.def);
}

/** The type of a schema in words: `string`, `integer (1 to 999,999,999,999,999)`, `reference[]`. */
export function typeText(schema: z.core.$ZodType): string {
  const s = schema as z.ZodType;
  if (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodPrefault) return typeText(s.unwrap());
  if (s instanceof z.ZodNullable) return `${typeText(s.unwrap())} | null`;
  if (s instanceof z.ZodPipe) return typeText(s.in);
  if (s instanceof z.ZodUnion) {
    const parts = s.options.map((o) => typeText(o));
    if (parts.includes('Date') && parts.some((p) => p.startsWith('date-time'))) return 'Date or ISO 8601 date-time string (with a time zone)';
    return [...new Set(parts)].join(' | ');
  }
  const def = s._zod.def as { type: string; format?: string };
  if (def.type === 'string' && def.format === 'datetime') return 'date-time';
  if (s instanceof z.ZodString) return s.maxLength === null ? 'string' : `string (≤ ${s.maxLength.toLocaleString('en')})`;
  if (s instanceof z.ZodNumber) {
    const range = s.minValue !== null && s.maxValue !== null && s.maxValue < Number.MAX_SAFE_INTEGER ? ` (${s.minValue.toLocaleString('en')} to ${s.maxValue.toLocaleString('en')})` : '';
    return `${s.isInt ? 'integer' : 'number'}${range}`;
  }
  if (s instanceof z.ZodBoolean) return 'boolean';
  if (s instanceof z.ZodDate) return 'Date';
  if (s instanceof z.ZodRecord) return s.valueType instanceof z.ZodUnknown ? 'JSON object' : `{ [${s.keyType instanceof z.ZodString ? 'language' : 'key'}]: ${typeText(s.valueType)} }`;
  if (s instanceof z.ZodArray) {
    const max = checks(s).find((c) => c.check === 'max_length') as { maximum?: number } | undefined;
    return `${typeText(s.element)}[]${max?.maximum === undefined ? '' : ` (≤ ${max.maximum.toLocaleString('en')})`}`;
  }
  if (s instanceof z.ZodObject) return `{ ${Object.keys(s.shape).join(', ')} }`;
  return 'any';
}

/** Whether the caller must give the field. */
function required(schema: z.core.$ZodType): boolean {
  return !(schema instanceof z.ZodOptional || schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault);
}

/** The default in words: the doc's, else the schema's `.default()`, else none; `required` when it must be given. */
function defaultText(schema: z.core.$ZodType, doc: { default?: string } | undefined): string {
  if (doc?.default !== undefined) return doc.default;
  if (schema instanceof z.ZodDefault) {
    const value = schema.def.defaultValue;
    return `\`${JSON.stringify(value)}\``;
  }
  return required(schema) ? '**required**' : 'none';
}

/** The fields of a call's input, one row each: name, type, default, meaning. */
export function fieldRows(input: z.ZodType): Array<{ field: string; type: string; default: string; description: string }> {
  if (!(input instanceof z.ZodObject)) return [];
  return Object.entries(input.shape as Record<string, z.ZodType>).map(([field, schema]) => {
    const doc = pushDocs.get(schema);
    if (!doc) throw new TypeError(`the push API's field ${field} has no documentation (pushDocs)`);
    return { field, type: typeText(schema), default: defaultText(schema, doc), description: doc.description };
  });
}

/** The block fields (the element of `blocks`). */
function blockRows(): ReturnType<typeof fieldRows> {
  const blocks = (PUSH_CALLS[0]!.input as z.ZodObject).shape.blocks as z.ZodOptional<z.ZodArray<z.ZodObject>>;
  return fieldRows(blocks.unwrap().element);
}

function fieldTable(rows: ReturnType<typeof fieldRows>): string[] {
  return ['| field | type | default | meaning |', '|---|---|---|---|', ...rows.map((r) => `| \`${r.field}\` | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.description)} |`)];
}

/** A call's section: its summary and, for an object input, its fields (a bulk call's items point to the one-item call's). */
function callSection(call: PushCall): string[] {
  const out = [`### \`${call.signature}\``, '', `${call.summary} Resolves to ${call.returns}.`, ''];
  const single = call.bulk ? PUSH_CALLS.find((c) => !c.bulk && c.input === call.input) : undefined;
  const rows = fieldRows(call.input);
  if (single) out.push(`Each item is what [\`${single.name}\`](${anchor(single)}) takes.`, '');
  else if (rows.length) out.push(call.bulk ? 'Each item:' : 'Fields:', '', ...fieldTable(rows), '');
  else out.push(`Takes ${typeText(call.input)}.`, '');
  return out;
}

/** The Markdown anchor of a call's heading. */
const anchor = (call: PushCall) => `#${call.signature.replace(/[^a-zA-Z0-9 -]/g, '').toLowerCase().replace(/ /g, '-')}`;

/** The whole reference page. */
export function contentApiReference(): string {
  const out: string[] = [
    '# Reference: the push API (`agent.content`)',
    '',
    '<!-- Generated from src/push/ (push-calls.ts, resource-input.ts) by `npm run docs`; a test fails when this page differs. -->',
    '',
    'Typed writes into the plugin\'s own content tables, for a CMS whose content lives elsewhere',
    '([the guide](../guides/cms-content.md#road-2-pushing-content-into-the-plugins-tables)). `agent.content` writes to the',
    'plugin\'s database; `createContentWriter(kysely, { defaultLanguage })` makes one on any Kysely of the same schema',
    '(the primary, when the plugin reads from a replica). Every call validates its input first (nothing is written when',
    'a value is refused) and runs as one transaction, or inside the host\'s: `{ transaction: trx }` (a Kysely transaction',
    'on the same database, under a savepoint). `put`, `putEdge` and `setEdges` are one statement each. Every failure',
    'is a `ContentPushError` (below). The same calls are records of the `push` command',
    '(`npx express-agent-discovery push --database-url … [file|-]`, one JSON object a line: `{"put": {…}}`,',
    '`{"remove": "5f2b…"}`), and `reconcile` reads a list of `{ id, modified }` lines.',
    '',
    '**References.** Wherever a call names an existing resource (`category`, `parent`, an edge\'s ends, `subjects`),',
    'it takes its numeric id, or a string that is its unique name or its string id, or one of `{ id }`, `{ name }`,',
    '`{ externalId }` (a string that is one resource\'s name and another\'s string id is refused as ambiguous).',
    '',
    '**Localized text** (`title`, `summary`, `body`, `license`, `attribution`, a block\'s `header` and `body`) is one',
    'string for every language of the resource, or `{ language: text }` (`{ "en": "Harbour", "nl": "Haven" }`).',
    '',
    '## Calls',
    '',
    '| call | resolves to |',
    '|---|---|',
    ...PUSH_CALLS.map((c) => `| [\`${c.signature}\`](${anchor(c)}) | ${cell(c.returns)} |`),
    '',
    'Options of every call: `transaction` (a Kysely transaction of the host\'s; default: a transaction of its own).',
    `Options of the bulk calls (\`putMany\`, \`putEdgeMany\`, \`setEdgesMany\`): \`batchSize\` (default ${DEFAULT_BATCH_SIZE}, at most 10,000;`,
    'a batch also ends at about 8,000,000 characters of text) and `onProgress({ written, ids })`, called after each batch',
    'is written.',
    '',
  ];
  for (const call of PUSH_CALLS) out.push(...callSection(call));
  out.push('### Blocks (`blocks` of `put`)', '', ...fieldTable(blockRows()), '');
  out.push(
    '## Limits',
    '',
    '| what | limit |',
    '|---|---|',
    `| a numeric id | a new resource: 1 to ${MAX_HOST_ID.toLocaleString('en')}, yours. ${(MAX_HOST_ID + 1).toLocaleString('en')} to ${MAX_RESOURCE_ID.toLocaleString('en')} (the top of the 15 digits the read API takes) are the ids the writer chooses, counted down from the top: a string id's numeric id, the vocabulary's roots (\`meta\`, \`category\`, \`predicate\`), a category or predicate pushed without an id. Every one is read back like yours; a category written again by the id it was given keeps it |`,
    '| a string id | 1 to 200 printable characters, no space at either end |',
    `| a text, per language | ${MAX_TEXT_LENGTH.toLocaleString('en')} characters; no NUL (U+0000) and no lone surrogate, in any string (props and keys included) |`,
    `| \`props\`, a block's \`props\` | JSON: null, booleans, finite numbers, strings, arrays, plain objects (a member set to \`undefined\` is left out; a \`Date\` becomes its ISO string), at most ${MAX_JSON_DEPTH} levels deep and ${MAX_PROPS_CHARACTERS.toLocaleString('en')} characters as JSON |`,
    `| \`blocks\` | ${MAX_BLOCKS.toLocaleString('en')} blocks, ${MAX_BLOCKS_CHARACTERS.toLocaleString('en')} characters as JSON |`,
    '| a date | a `Date` or an ISO 8601 date-time with a time zone, in the years 1 to 9999 (UTC) |',
    '| `publication_end` | not before `publication_start` (the one given, or the stored one) |',
    '',
    '## Errors: `ContentPushError`',
    '',
    'Every call rejects with a `ContentPushError` (exported by the package): `call` (`put`), `code` (below), `field`',
    '(the path at fault: `title.nl`, `blocks.2.type`, `props.tags.3`, `current.1041.id`), `retryable` (the same call',
    'may succeed later), `index` (in a bulk call, the position of the item at fault) and `cause` (the driver\'s error,',
    'when the database refused). The message names all of them:',
    '`express-agent-discovery: content.putMany: [3] title: must not contain NUL (U+0000), which PostgreSQL cannot store`.',
    '',
    '| code | when |',
    '|---|---|',
    ...Object.entries(CONTENT_PUSH_ERROR_CODES).map(([code, text]) => `| \`${code}\` | ${cell(text)} |`),
    '',
  );
  return out.join('\n');
}
