import { z } from 'zod';
import { isLanguageTag } from '../content/language.js';
import { MAX_ID_DIGITS, MAX_NAME_LENGTH, NAME_GRAMMAR } from '../content/resource-ref.js';
import { MAX_PAGE_URL_LENGTH, PAGE_URL_PATTERN } from '../content/page-url.js';

/**
 * What a pushing CMS writes, validated with zod: resources, categories, predicates, edges, media and
 * the reconcile list. Field names are the content schema's column names.
 */

/** The largest id the facade reads (15 digits), so every id pushed can be read back. */
const MAX_RESOURCE_ID = 10 ** MAX_ID_DIGITS - 1;
/** An external id (a CMS's own string id) is at most this long. */
const MAX_EXTERNAL_ID_LENGTH = 200;

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
  .regex(/^[^\s\p{Cc}\p{Cf}](?:[^\p{Cc}\p{Cf}]*[^\s\p{Cc}\p{Cf}])?$/u, 'must be printable text without spaces at either end');

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

const text = z.string().max(1_000_000, 'must be at most 1,000,000 characters');
/** Text given once for all the resource's languages, or per language code. */
const localizedText = z.union([text, z.record(languageTag, text)], { error: 'must be a string or { language: string }' });

const DATE_TIME = 'must be a Date or an ISO 8601 date-time with a time zone';

/** A Date, or an ISO 8601 date-time with a time zone (`2025-03-01T10:00:00Z`). */
const dateTime = z
  .union([z.date({ error: DATE_TIME }), z.iso.datetime({ offset: true, error: DATE_TIME })], { error: DATE_TIME })
  .transform((value) => new Date(value));

const absoluteUri = z
  .string()
  .max(2048, 'must be at most 2,048 characters')
  .regex(/^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s\p{Cc}]+$/u, 'must be an absolute URI');

const pageUrl = z
  .string()
  .max(MAX_PAGE_URL_LENGTH, `must be at most ${MAX_PAGE_URL_LENGTH.toLocaleString('en')} characters`)
  .regex(PAGE_URL_PATTERN, 'must be a path (/…) or an http(s) URL');

const block = z.strictObject({
  type: resourceName,
  name: z.string().max(MAX_NAME_LENGTH).optional(),
  header: localizedText.optional(),
  body: localizedText.optional(),
  rsc_id: numericId.optional(),
  props: z.record(z.string(), z.unknown()).optional(),
});

/** What every resource, category and predicate carries. */
const resourceShape = {
  name: resourceName.nullable().optional(),
  language: z.array(languageTag).min(1, 'must list at least one language').optional(),
  title: localizedText.optional(),
  summary: localizedText.optional(),
  is_published: z.boolean().default(true),
  visibility: z.string().min(1).max(100).default('public'),
  uri: absoluteUri.nullable().optional(),
  modified: dateTime.optional(),
};

/**
 * A resource (`agent.content.put`). Replaces what is stored under `id`: a field left out takes its
 * default (`created` and `publication_start` keep the stored value, `modified` becomes now).
 */
export const resourceInput = z.strictObject({
  ...resourceShape,
  id: resourceId,
  category: contentRef,
  title: localizedText,
  body: localizedText.optional(),
  blocks: z.array(block).optional(),
  props: z.record(z.string(), z.unknown()).optional(),
  publication_start: dateTime.optional(),
  publication_end: dateTime.nullable().optional(),
  created: dateTime.optional(),
  seo_noindex: z.boolean().default(false),
  license: localizedText.nullable().optional(),
  attribution: localizedText.nullable().optional(),
  page_url: z.union([pageUrl, z.record(languageTag, pageUrl)], { error: 'must be a path or URL, or { language: path or URL }' }).nullable().optional(),
});

/** A category (`agent.content.putCategory`): upserted by `id` when given, else by `name`. */
export const categoryInput = z.strictObject({
  ...resourceShape,
  id: resourceId.optional(),
  name: resourceName,
  parent: contentRef.nullable().optional(),
  is_noindex: z.boolean().default(false),
});

/** A predicate (`agent.content.putPredicate`) and the categories it connects. */
export const predicateInput = z.strictObject({
  ...resourceShape,
  id: resourceId.optional(),
  name: resourceName,
  subjects: z.array(contentRef).max(1000).default([]),
  objects: z.array(contentRef).max(1000).default([]),
});

const seq = z.number().int('must be an integer').min(-(2 ** 31)).max(2 ** 31 - 1);

/** One edge `subject -predicate-> object` (`agent.content.putEdge`, `removeEdge`). */
export const edgeInput = z.strictObject({ subject: contentRef, predicate: contentRef, object: contentRef, seq: seq.optional() });

/** All edges of a subject through a predicate, in editorial order (`agent.content.setEdges`). */
export const edgeSetInput = z.strictObject({ subject: contentRef, predicate: contentRef, objects: z.array(contentRef).max(10_000) });

const dimension = z.number().int('must be an integer').min(0).max(2 ** 31 - 1).nullable().optional();

/** The downloadable file of a resource (`agent.content.putMedium`). */
export const mediumInput = z.strictObject({
  resource: contentRef,
  mime: z.string().max(255).regex(/^[\w.+-]+\/[\w.+-]+(?:\s*;.*)?$/, 'must be a media type such as image/png'),
  filename: z.string().min(1).max(255).regex(/^[^/\\\p{Cc}]+$/u, 'must be a file name without slashes or control characters'),
  width: dimension,
  height: dimension,
  size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
});

/** One entry of the host's list for `agent.content.reconcile`. */
export const reconcileEntry = z.strictObject({ id: resourceId, modified: dateTime.optional() });

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
