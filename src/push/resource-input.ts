import { z } from 'zod';
import { isLanguageTag } from '../content/language.js';
import { MAX_ID_DIGITS, MAX_NAME_LENGTH, NAME_GRAMMAR } from '../content/resource-ref.js';
import { MAX_PAGE_URL_LENGTH, PAGE_URL_PATTERN } from '../content/page-url.js';
import { jsonProblem, MAX_JSON_DEPTH, MAX_PROPS_CHARACTERS, textProblem } from './json-value.js';

/**
 * What a pushing CMS writes, validated with zod: resources, categories, predicates, edges, media and
 * the reconcile list. Field names are the content schema's column names. Every field carries its
 * documentation (`pushDocs`), from which docs/reference/content-api.md is generated.
 */

/** The documentation of a field: what it means, and its default in words where the schema cannot say it. */
export interface PushFieldDoc {
  readonly description: string;
  readonly default?: string;
}

/** The documentation of each field of the push API's inputs (`.clone().register(pushDocs, …)`). */
export const pushDocs = z.registry<PushFieldDoc>();

/** The largest id the facade reads (15 digits), so every id pushed can be read back. */
export const MAX_RESOURCE_ID = 10 ** MAX_ID_DIGITS - 1;
/**
 * The largest numeric id a host creates a resource under (899,999,999,999,999). The ids above it, up
 * to {@link MAX_RESOURCE_ID}, are the ones the writer chooses itself (string ids' numeric ids, the
 * vocabulary's roots, categories and predicates pushed without an id), so the two never meet.
 */
export const MAX_HOST_ID = 9 * 10 ** (MAX_ID_DIGITS - 1) - 1;
/** An external id (a CMS's own string id) is at most this long. */
const MAX_EXTERNAL_ID_LENGTH = 200;
/** A text field holds at most this many characters per language. */
export const MAX_TEXT_LENGTH = 1_000_000;
/** A resource has at most this many blocks. */
export const MAX_BLOCKS = 1000;
/** A resource's blocks hold at most this many characters as JSON. */
export const MAX_BLOCKS_CHARACTERS = 2_000_000;
/** The dates PostgreSQL and every client agree on: years 1 to 9999 (UTC). */
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** A string PostgreSQL can store as text and UTF-8 (no NUL, no lone surrogate). */
const storable = <S extends z.ZodString>(schema: S) =>
  schema.superRefine((value, ctx) => {
    const problem = textProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const numericId = z
  .number()
  .int('must be an integer id')
  .min(1, 'must be a positive id')
  .max(MAX_RESOURCE_ID, `must be at most ${MAX_RESOURCE_ID}`);

/** A CMS's own string id: a uuid, a cuid, Ghost's 24-hex object id; printable text, no spaces at either end. */
export const externalId = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_EXTERNAL_ID_LENGTH, `must be at most ${MAX_EXTERNAL_ID_LENGTH} characters`)
  .regex(/^[^\s\p{Cc}\p{Cf}\p{Cs}](?:[^\p{Cc}\p{Cf}\p{Cs}]*[^\s\p{Cc}\p{Cf}\p{Cs}])?$/u, 'must be printable text without spaces at either end');

/** The id a resource is written under: the bigint `rsc.id` itself, or the CMS's string id (mapped to one). */
export const resourceId = z.union([numericId, externalId], { error: 'must be a positive integer id or a string id' });

const resourceName = z
  .string()
  .max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`)
  .regex(NAME_GRAMMAR, 'must match ^[a-z][a-z0-9_]*$');

/**
 * A reference to an existing resource: its id, or a string that is its external id or its unique name
 * (refused as ambiguous when it is both, for two resources), or one of those said explicitly.
 */
export const contentRef = z.union(
  [
    numericId,
    externalId,
    z.strictObject({ id: numericId }),
    z.strictObject({ name: resourceName }),
    z.strictObject({ externalId }),
  ],
  { error: 'must be an id, a string id or name, or { id }, { name } or { externalId }' },
);

const languageTag = z.string().refine(isLanguageTag, 'must be a language tag such as en or pt-BR');

const text = storable(z.string().max(MAX_TEXT_LENGTH, `must be at most ${MAX_TEXT_LENGTH.toLocaleString('en')} characters`));
/** Text given once for all the resource's languages, or per language code. */
const localizedText = z.union([text, z.record(languageTag, text)], { error: 'must be a string or { language: string }' });

const DATE_TIME = 'must be a Date or an ISO 8601 date-time with a time zone';

/** A Date, or an ISO 8601 date-time with a time zone (`2025-03-01T10:00:00Z`), in the years 1 to 9999. */
const dateTime = z
  .union([z.date({ error: DATE_TIME }), z.iso.datetime({ offset: true, error: DATE_TIME })], { error: DATE_TIME })
  .transform((value) => new Date(value))
  .refine((date) => date.getTime() >= EARLIEST && date.getTime() <= LATEST, 'must be in the years 1 to 9999 (UTC)');

const absoluteUri = storable(z.string().max(2048, 'must be at most 2,048 characters')).regex(/^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s\p{Cc}]+$/u, 'must be an absolute URI');

const pageUrl = storable(z.string().max(MAX_PAGE_URL_LENGTH, `must be at most ${MAX_PAGE_URL_LENGTH.toLocaleString('en')} characters`)).regex(
  PAGE_URL_PATTERN,
  'must be a path (/…) or an http(s) URL',
);

/** A JSON object (`props`): storable JSON within the documented depth and size. */
const jsonObject = z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).superRefine((value, ctx) => {
  const problem = jsonProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
});

const PROPS_LIMITS = `at most ${MAX_JSON_DEPTH} levels deep and ${MAX_PROPS_CHARACTERS.toLocaleString('en')} characters as JSON`;

const block = z.strictObject({
  type: resourceName.clone().register(pushDocs, { description: 'the block type (a template `blocks/<type>.njk` renders it)' }),
  name: storable(z.string().max(MAX_NAME_LENGTH)).optional().clone().register(pushDocs, { description: 'a name for templates to find the block by' }),
  header: localizedText.optional().clone().register(pushDocs, { description: 'the block heading, per language or one string' }),
  body: localizedText.optional().clone().register(pushDocs, { description: 'the block body (HTML), per language or one string' }),
  rsc_id: numericId.optional().clone().register(pushDocs, { description: 'a resource the block refers to' }),
  props: jsonObject.optional().clone().register(pushDocs, { description: `anything else the block's template reads (JSON, ${PROPS_LIMITS})` }),
});

const blocks = z
  .array(block)
  .max(MAX_BLOCKS, `must be at most ${MAX_BLOCKS.toLocaleString('en')} blocks`)
  .superRefine((value, ctx) => {
    // Runs after the blocks' own checks, also when one failed (then stringifying may throw: a BigInt, a cycle).
    let length = 0;
    try {
      length = JSON.stringify(value).length;
    } catch {
      return;
    }
    if (length > MAX_BLOCKS_CHARACTERS) ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_BLOCKS_CHARACTERS.toLocaleString('en')} characters as JSON` });
  });

/** What every resource, category and predicate carries. */
const resourceShape = {
  name: resourceName
    .nullable()
    .optional()
    .clone().register(pushDocs, { description: 'a unique name the resource can be referenced and read by (`^[a-z][a-z0-9_]*$`, at most 100 characters)' }),
  language: z
    .array(languageTag)
    .min(1, 'must list at least one language')
    .optional()
    .clone().register(pushDocs, { description: "the resource's languages, its own first; a per-language field may only use these", default: 'the languages of the per-language fields, else `defaultLanguage`' }),
  title: localizedText.optional().clone().register(pushDocs, { description: 'the title: one string for every language, or `{ language: text }`', default: 'the name' }),
  summary: localizedText.optional().clone().register(pushDocs, { description: 'a short summary (plain text), one string or per language' }),
  is_published: z.boolean().default(true).clone().register(pushDocs, { description: 'published; `false` keeps it stored and never served' }),
  visibility: storable(z.string().min(1).max(100))
    .default('public')
    .clone().register(pushDocs, { description: '`public` is served to anonymous agents; any other value (`members`, `internal`) never is' }),
  uri: absoluteUri.nullable().optional().clone().register(pushDocs, { description: 'its identifying URI', default: '`<base>/id/<id>`' }),
  modified: dateTime.optional().clone().register(pushDocs, { description: 'when it last changed (what `reconcile` compares)', default: 'now' }),
};

/**
 * A resource (`agent.content.put`). Replaces what is stored under `id`: a field left out takes its
 * default (`created` and `publication_start` keep the stored value, `modified` becomes now).
 */
export const resourceInput = z
  .strictObject({
    id: resourceId.clone().register(pushDocs, { description: 'the numeric `rsc` id (1 to 899,999,999,999,999 for a new resource: the ids above are the ones the writer chooses), or your string id (a uuid, a 24-hex id; at most 200 characters), mapped to a numeric id on first use' }),
    category: contentRef.clone().register(pushDocs, { description: 'its category (by id, name or string id): an existing category, not `meta`, `category` or `predicate`' }),
    ...resourceShape,
    title: localizedText.clone().register(pushDocs, { description: 'the title: one string for every language, or `{ language: text }` (at most 1,000,000 characters each)' }),
    body: localizedText.optional().clone().register(pushDocs, { description: 'the body as HTML (rendered as trusted), one string or per language' }),
    blocks: blocks.optional().clone().register(pushDocs, {
      description: `page blocks, in order (at most ${MAX_BLOCKS.toLocaleString('en')}, ${MAX_BLOCKS_CHARACTERS.toLocaleString('en')} characters as JSON in all)`,
      default: '`[]`',
    }),
    props: jsonObject.optional().clone().register(pushDocs, { description: `anything else your templates read (JSON, ${PROPS_LIMITS})`, default: '`{}`' }),
    publication_start: dateTime.optional().clone().register(pushDocs, { description: 'visible from then on (a later time schedules it)', default: 'now; the stored value on an update' }),
    publication_end: dateTime
      .nullable()
      .optional()
      .clone().register(pushDocs, { description: 'visible until then; not before `publication_start` (given or stored)', default: 'none' }),
    created: dateTime.optional().clone().register(pushDocs, { description: 'when it was created', default: 'now; the stored value on an update' }),
    seo_noindex: z.boolean().default(false).clone().register(pushDocs, { description: 'served when read by id, but left out of search and lists' }),
    license: localizedText.nullable().optional().clone().register(pushDocs, { description: 'its licence (`CC BY 4.0`), one string or per language' }),
    attribution: localizedText.nullable().optional().clone().register(pushDocs, { description: 'how to credit it, one string or per language' }),
    page_url: z
      .union([pageUrl, z.record(languageTag, pageUrl)], { error: 'must be a path or URL, or { language: path or URL }' })
      .nullable()
      .optional()
      .clone().register(pushDocs, { description: 'your page of it (a path or an http(s) URL, one or per language): what every read cites', default: 'the `pageUrl` option' }),
  })
  .superRefine((value, ctx) => {
    if (value.publication_end && value.publication_start && value.publication_end.getTime() < value.publication_start.getTime()) {
      ctx.addIssue({ code: 'custom', path: ['publication_end'], message: 'must not be before publication_start' });
    }
  });

/** A category (`agent.content.putCategory`): upserted by `id` when given, else by `name`. */
export const categoryInput = z.strictObject({
  ...resourceShape,
  id: resourceId.optional().clone().register(pushDocs, { description: 'its id (numeric or your string id); without one the category is found by `name`' }),
  name: resourceName.clone().register(pushDocs, { description: 'its unique name (`^[a-z][a-z0-9_]*$`), by which resources name it' }),
  parent: contentRef.nullable().optional().clone().register(pushDocs, { description: 'the category above it', default: 'none: a top-level category' }),
  is_noindex: z.boolean().default(false).clone().register(pushDocs, { description: 'its resources (and those of its subcategories) are left out of search and lists' }),
  vocabulary: z.boolean().default(false).clone().register(pushDocs, {
    description:
      'its resources are vocabulary of the site (tags, authors): readable by id and through edges, kept out of search, the newest lists and llms.txt (the category goes under `meta`, with no parent of its own)',
  }),
});

/** A predicate (`agent.content.putPredicate`) and the categories it connects. */
export const predicateInput = z.strictObject({
  ...resourceShape,
  id: resourceId.optional().clone().register(pushDocs, { description: 'its id (numeric or your string id); without one the predicate is found by `name`' }),
  name: resourceName.clone().register(pushDocs, { description: 'its unique name (`^[a-z][a-z0-9_]*$`), by which edges name it' }),
  subjects: z
    .array(contentRef)
    .max(1000)
    .default([])
    .clone().register(pushDocs, { description: 'the categories its subjects may be in (their subcategories too); none: any (at most 1,000)' }),
  objects: z
    .array(contentRef)
    .max(1000)
    .default([])
    .clone().register(pushDocs, { description: 'the categories its objects may be in (their subcategories too); none: any (at most 1,000)' }),
});

const seq = z.number().int('must be an integer').min(-(2 ** 31)).max(2 ** 31 - 1);

/** One edge `subject -predicate-> object` (`agent.content.putEdge`, `removeEdge`). */
export const edgeInput = z.strictObject({
  subject: contentRef.clone().register(pushDocs, { description: 'the resource the edge goes from (in one of the predicate\'s `subjects` categories, when it lists any)' }),
  predicate: contentRef.clone().register(pushDocs, { description: 'the predicate (by id, name or string id)' }),
  object: contentRef.clone().register(pushDocs, { description: 'the resource the edge goes to (in one of the predicate\'s `objects` categories, when it lists any)' }),
  seq: seq.optional().clone().register(pushDocs, { description: 'its editorial order among the subject\'s edges (a 32-bit integer)', default: 'the stored one; 1,000,000 for a new edge' }),
});

/** All edges of a subject through a predicate, in editorial order (`agent.content.setEdges`). */
export const edgeSetInput = z.strictObject({
  subject: contentRef.clone().register(pushDocs, { description: 'the resource the edges go from' }),
  predicate: contentRef.clone().register(pushDocs, { description: 'the predicate (by id, name or string id)' }),
  objects: z
    .array(contentRef)
    .max(10_000)
    .clone().register(pushDocs, { description: 'every object, in order (`seq` 1, 2, …; a repeated one counts once; at most 10,000); edges to others are removed' }),
});

const dimension = z.number().int('must be an integer').min(0).max(2 ** 31 - 1).nullable().optional();

/** The downloadable file of a resource (`agent.content.putMedium`). */
export const mediumInput = z.strictObject({
  resource: contentRef.clone().register(pushDocs, { description: 'the resource the file belongs to' }),
  mime: z
    .string()
    .max(255)
    .regex(/^[\w.+-]+\/[\w.+-]+(?:\s*;[^\p{Cc}\p{Cs}]*)?$/u, 'must be a media type such as image/png')
    .clone().register(pushDocs, { description: 'its media type (`image/png`)' }),
  filename: storable(z.string().min(1).max(255))
    .regex(/^[^/\\\p{Cc}]+$/u, 'must be a file name without slashes or control characters')
    .clone().register(pushDocs, { description: 'the file name in the download URL (no slashes)' }),
  width: dimension.clone().register(pushDocs, { description: 'its width in pixels' }),
  height: dimension.clone().register(pushDocs, { description: 'its height in pixels' }),
  size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional().clone().register(pushDocs, { description: 'its size in bytes' }),
});

/** One entry of the host's list for `agent.content.reconcile`. */
export const reconcileEntry = z.strictObject({
  id: resourceId.clone().register(pushDocs, { description: 'a resource your CMS shows now (numeric or string id)' }),
  modified: dateTime.optional().clone().register(pushDocs, { description: 'when it last changed: a stored resource with another `modified` is reported `stale`', default: 'not compared' }),
});

/** `reconcile`'s `maxRemove`: a count of resources (`25`) or a share of those in scope (`'10%'`, up to `'100%'`). */
export const removeLimit = z.union(
  [
    z.number().int().min(0),
    z
      .string()
      .regex(/^\d{1,3}(?:\.\d+)?%$/)
      .refine((v) => Number(v.slice(0, -1)) <= 100)
      .transform((v) => v as `${number}%`),
  ],
  { error: "must be a count (a whole number from 0) or a percentage from '0%' to '100%'" },
);

/** A resource as `put` takes it. */
export type ResourceInput = z.input<typeof resourceInput>;
/** A category as `putCategory` takes it. */
export type CategoryInput = z.input<typeof categoryInput>;
/** A predicate as `putPredicate` takes it. */
export type PredicateInput = z.input<typeof predicateInput>;
/** An edge as `putEdge` and `removeEdge` take it. */
export type EdgeInput = z.input<typeof edgeInput>;
/** A subject's complete list of objects through one predicate, as `setEdges` takes it. */
export type EdgeSetInput = z.input<typeof edgeSetInput>;
/** A medium as `putMedium` takes it. */
export type MediumInput = z.input<typeof mediumInput>;
/** An entry of the host's list for `reconcile`. */
export type ReconcileEntry = z.input<typeof reconcileEntry>;
/** A resource's id as the host gives it: the numeric id, or its own string id. */
export type ResourceId = z.output<typeof resourceId>;
/** A reference to an existing resource (see {@link contentRef}). */
export type ContentRef = z.output<typeof contentRef>;
