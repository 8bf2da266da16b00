import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/schema.js';
import { isLanguageTag } from '../content/language.js';
import type { PushDatabase } from './external-ids.js';
import { ContentPushError, inputError } from './push-error.js';
import { reconcile, type ReconcileResult, type ReconcileScope } from './reconcile.js';
import { writeInBatches, type BulkOptions, type BulkResult } from './bulk-writes.js';
import { writeEdges } from './edge-batch.js';
import { putEdge, putMedium, removeEdge, removeMedium, setEdges } from './relation-writes.js';
import {
  categoryInput,
  contentRef,
  edgeInput,
  edgeSetInput,
  mediumInput,
  predicateInput,
  removeLimit,
  resourceId,
  resourceInput,
  type CategoryInput,
  type ContentRef,
  type EdgeInput,
  type EdgeSetInput,
  type MediumInput,
  type PredicateInput,
  type ReconcileEntry,
  type ResourceId,
  type ResourceInput,
} from './resource-input.js';
import { putResourceBatch, removeResource, type PutResult } from './resource-writes.js';
import { putCategory, putPredicate, removeCategory, removePredicate } from './vocabulary-writes.js';
import { writeTransaction, type WriteOptions } from './write-transaction.js';

/** Options of {@link createContentWriter}. */
export interface ContentWriterOptions {
  /** The language of text given as one string when the resource names no languages. Default `'en'`. */
  readonly defaultLanguage?: string | undefined;
}

/** Whether a removal found something to remove. */
export interface RemoveResult {
  readonly removed: boolean;
}

/**
 * The push API (`agent.content`): typed writes into the plugin's own content tables, for a CMS whose
 * content lives elsewhere. Every call validates its input first (a {@link ContentPushError} naming the
 * field, nothing written), runs as one transaction (or inside `{ transaction }`, the host's), and
 * refers to resources by id, by name or by the CMS's string id.
 */
export interface ContentWriter {
  /**
   * Writes a resource under its id (the numeric `rsc` id, or the CMS's string id, mapped to a numeric
   * one on first use), replacing what was stored; returns the numeric id the facade serves it under.
   * Defaults: `is_published: true`, `visibility: 'public'`, `publication_start` now (kept on update),
   * `modified` now, `language` from the per-language fields. `category` must be an existing category
   * (not `meta`, `category` or `predicate`). One statement: one round trip.
   *
   * ```ts
   * const { id } = await agent.content.put({ id: '5f2b9c…', category: 'post', title: 'Hello', body: '<p>Hi</p>', modified: post.updated_at })
   * ```
   */
  put(resource: ResourceInput, options?: WriteOptions): Promise<PutResult>;
  /**
   * Writes many resources as `put` writes one, in batches (default 500 a transaction, each one
   * statement): thousands a second. `resources` is an array or any iterable, sync or async, read as
   * it goes. A refused item fails its batch, which leaves nothing of itself (the error's `index` is
   * the item's position); earlier batches stay written, as `onProgress` reported.
   *
   * ```ts
   * await agent.content.putMany(posts.map(toResource), { onProgress: ({ written }) => log(written) })
   * ```
   */
  putMany(resources: Iterable<ResourceInput> | AsyncIterable<ResourceInput>, options?: BulkOptions): Promise<BulkResult>;
  /** Removes a resource (with its edges, medium and string-id mapping); `{ removed: false }` when there was none. */
  remove(id: ResourceId, options?: WriteOptions): Promise<RemoveResult>;
  /**
   * Writes a category (by `id` when given, else by `name`), creating the vocabulary's roots (`meta`,
   * `category`, `predicate`) on first use. `parent` is another category, or none for a top-level one;
   * `vocabulary: true` (tags, authors) keeps its resources out of search and the newest lists.
   */
  putCategory(category: CategoryInput, options?: WriteOptions): Promise<PutResult>;
  /** Removes a category that holds no resources and no subcategories. */
  removeCategory(category: ContentRef, options?: WriteOptions): Promise<RemoveResult>;
  /** Writes a predicate (by `id` or `name`) and the categories it connects (`subjects`, `objects`). */
  putPredicate(predicate: PredicateInput, options?: WriteOptions): Promise<PutResult>;
  /** Removes a predicate and every edge through it. */
  removePredicate(predicate: ContentRef, options?: WriteOptions): Promise<RemoveResult>;
  /** Writes the edge `subject -predicate-> object` (`seq`: its editorial order); returns the edge's id. */
  putEdge(edge: EdgeInput, options?: WriteOptions): Promise<{ id: number }>;
  /** Writes many edges as `putEdge` writes one, in batches like `putMany`. */
  putEdgeMany(edges: Iterable<EdgeInput> | AsyncIterable<EdgeInput>, options?: BulkOptions): Promise<BulkResult>;
  /** Makes `objects` the subject's complete, ordered list through `predicate` (others are removed). */
  setEdges(edges: EdgeSetInput, options?: WriteOptions): Promise<{ ids: number[] }>;
  /**
   * `setEdges` for many subjects (a post's tags, then the next post's), in batches like `putMany`.
   *
   * ```ts
   * await agent.content.setEdgesMany(posts.map((p) => ({ subject: p.id, predicate: 'tagged', objects: p.tags.map((t) => t.id) })))
   * ```
   */
  setEdgesMany(edges: Iterable<EdgeSetInput> | AsyncIterable<EdgeSetInput>, options?: BulkOptions): Promise<BulkResult>;
  /** Removes the edge `subject -predicate-> object`. */
  removeEdge(edge: Omit<EdgeInput, 'seq'>, options?: WriteOptions): Promise<RemoveResult>;
  /** Writes the downloadable file of a resource (replacing the stored one); returns the resource's id. */
  putMedium(medium: MediumInput, options?: WriteOptions): Promise<{ id: number }>;
  /** Removes the medium of a resource. */
  removeMedium(resource: ContentRef, options?: WriteOptions): Promise<RemoveResult>;
  /**
   * Repairs drift: `current` is every resource the host publishes now, as `{ id, modified }` (an
   * array or any iterable, streamed into the database 1,000 at a time). Every resource in scope
   * (default: all but categories and predicates) that the list does not name is removed; listed ones whose
   * stored `modified` differs are reported `stale`, unknown ones `missing`: push those again. A run
   * that would remove more than `maxRemove` (default `'10%'` of what is in scope; anything, from an
   * empty list) removes nothing and fails with `remove_limit`.
   *
   * ```ts
   * const { stale, missing } = await agent.content.reconcile(posts.map((p) => ({ id: p.id, modified: p.updated_at })))
   * ```
   */
  reconcile(
    current: Iterable<ReconcileEntry> | AsyncIterable<ReconcileEntry>,
    options?: WriteOptions & ReconcileScope,
  ): Promise<ReconcileResult>;
}

/** Validates a call's input: the parsed value, or a push error naming the field (and, in a bulk call, the item's position). */
function parse<S extends z.ZodType>(call: string, schema: S, value: unknown, index?: number): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const error = inputError(call, parsed.error);
    throw index === undefined ? error : error.atIndex(index);
  }
  return parsed.data;
}

/** About the characters a resource sends: what bounds a batch's size in memory. */
const resourceWeight = (r: z.output<typeof resourceInput>) => {
  const chars = (v: unknown): number => (typeof v === 'string' ? v.length : v && typeof v === 'object' ? Object.values(v).reduce((n: number, x) => n + chars(x), 0) : 0);
  return 500 + chars(r.title) + chars(r.summary) + chars(r.body) + (r.blocks ? JSON.stringify(r.blocks).length : 0);
};

/**
 * Creates the push API over the plugin's content tables (`agent.content` is one, on the plugin's
 * database; with `readUrl`, make one on the primary). Needs the migrations (the string-id table).
 *
 * ```ts
 * const content = createContentWriter(agent.database.db, { defaultLanguage: 'en' })
 * await content.putCategory({ name: 'post', title: 'Posts' })
 * const { id } = await content.put({ id: 'c1a2…', category: 'post', title: 'Hello', body: '<p>Hi</p>' })
 * ```
 */
export function createContentWriter(db: Kysely<Database>, options: ContentWriterOptions = {}): ContentWriter {
  const defaultLanguage = options.defaultLanguage ?? 'en';
  if (!isLanguageTag(defaultLanguage)) throw new TypeError(`express-agent-discovery: createContentWriter: defaultLanguage must be a language tag, got ${String(defaultLanguage)}`);
  const pushDb = db.withTables<{ agent_discovery_external_id: PushDatabase['agent_discovery_external_id'] }>();
  const write = <T>(call: string, opts: WriteOptions | undefined, work: (trx: Kysely<PushDatabase>) => Promise<T>, shape?: { oneStatement: boolean }) =>
    writeTransaction(pushDb, call, opts, work, shape);
  return Object.freeze({
    async put(resource, opts) {
      const input = parse('put', resourceInput, resource);
      return writeTransaction(pushDb, 'put', opts, async (trx) => ({ id: (await putResourceBatch(trx, 'put', [{ index: undefined, resource: input }], defaultLanguage))[0]! }), { oneStatement: true });
    },
    async putMany(resources, opts) {
      return writeInBatches(
        pushDb,
        'putMany',
        resources,
        opts,
        (raw, index) => {
          const value = parse('putMany', resourceInput, raw, index);
          return { index, value, weight: resourceWeight(value) };
        },
        (trx, batch) => putResourceBatch(trx, 'putMany', batch.map((item) => ({ index: item.index, resource: item.value })), defaultLanguage),
      );
    },
    async remove(id, opts) {
      const input = parse('remove', resourceId, id);
      return write('remove', opts, (trx) => removeResource(trx, input));
    },
    async putCategory(category, opts) {
      const input = parse('putCategory', categoryInput, category);
      return write('putCategory', opts, (trx) => putCategory(trx, input, defaultLanguage));
    },
    async removeCategory(category, opts) {
      const input = parse('removeCategory', contentRef, category);
      return write('removeCategory', opts, (trx) => removeCategory(trx, input));
    },
    async putPredicate(predicate, opts) {
      const input = parse('putPredicate', predicateInput, predicate);
      return write('putPredicate', opts, (trx) => putPredicate(trx, input, defaultLanguage));
    },
    async removePredicate(predicate, opts) {
      const input = parse('removePredicate', contentRef, predicate);
      return write('removePredicate', opts, (trx) => removePredicate(trx, input));
    },
    async putEdge(edge, opts) {
      const input = parse('putEdge', edgeInput, edge);
      return write('putEdge', opts, (trx) => putEdge(trx, input), { oneStatement: true });
    },
    async putEdgeMany(edges, opts) {
      return writeInBatches(
        pushDb,
        'putEdgeMany',
        edges,
        opts,
        (raw, index) => ({ index, value: parse('putEdgeMany', edgeInput, raw, index), weight: 1 }),
        async (trx, batch) => (await writeEdges(trx, 'putEdgeMany', batch.map((item) => ({ kind: 'put' as const, index: item.index, ...item.value })))).flat(),
      );
    },
    async setEdges(edges, opts) {
      const input = parse('setEdges', edgeSetInput, edges);
      return write('setEdges', opts, (trx) => setEdges(trx, input), { oneStatement: true });
    },
    async setEdgesMany(edges, opts) {
      return writeInBatches(
        pushDb,
        'setEdgesMany',
        edges,
        opts,
        (raw, index) => {
          const value = parse('setEdgesMany', edgeSetInput, raw, index);
          return { index, value, weight: 1 + value.objects.length };
        },
        async (trx, batch) => (await writeEdges(trx, 'setEdgesMany', batch.map((item) => ({ kind: 'set' as const, index: item.index, ...item.value })))).flat(),
      );
    },
    async removeEdge(edge, opts) {
      const input = parse('removeEdge', edgeInput, edge);
      return write('removeEdge', opts, (trx) => removeEdge(trx, input));
    },
    async putMedium(medium, opts) {
      const input = parse('putMedium', mediumInput, medium);
      return write('putMedium', opts, (trx) => putMedium(trx, input));
    },
    async removeMedium(resource, opts) {
      const input = parse('removeMedium', contentRef, resource);
      return write('removeMedium', opts, (trx) => removeMedium(trx, input));
    },
    async reconcile(current, opts) {
      if (current === null || typeof current !== 'object' || !(Symbol.iterator in current || Symbol.asyncIterator in current)) {
        throw new ContentPushError('reconcile', 'invalid_input', 'current', 'expected an array or another iterable (sync or async) of { id, modified }');
      }
      const categories = opts?.categories === undefined ? undefined : parse('reconcile', contentRef.array(), opts.categories);
      const maxRemove = opts?.maxRemove === undefined ? undefined : parse('reconcile', z.object({ maxRemove: removeLimit }), { maxRemove: opts.maxRemove }).maxRemove;
      const scope = { categories, dryRun: opts?.dryRun === true, maxRemove };
      return write('reconcile', opts, (trx) => reconcile(trx, current, scope));
    },
  } satisfies ContentWriter);
}
