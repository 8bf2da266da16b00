import { z } from 'zod';
import {
  categoryInput,
  contentRef,
  edgeInput,
  edgeSetInput,
  mediumInput,
  predicateInput,
  reconcileEntry,
  resourceId,
  resourceInput,
} from './resource-input.js';

/**
 * The calls of `agent.content`, once: what each takes, returns and does. The reference page
 * (docs/reference/content-api.md) and the `push` command's NDJSON records come from this table.
 */
export interface PushCall {
  /** The method name, which is also the key of its NDJSON record (`{"put": {…}}`). */
  readonly name: string;
  /** How it is called. */
  readonly signature: string;
  /** What it resolves to. */
  readonly returns: string;
  /** What it does. */
  readonly summary: string;
  /** The schema of its input (of each item, for a bulk call), whose fields the reference lists. */
  readonly input: z.ZodType;
  /** Takes many items (an iterable) in batches. */
  readonly bulk?: true;
  /** Can be a record of the `push` command (the bulk calls are what the command batches records into). */
  readonly record: boolean;
}

export const PUSH_CALLS: readonly PushCall[] = Object.freeze([
  {
    name: 'put',
    signature: 'put(resource, options?)',
    returns: '`{ id }`: the numeric id the facade serves it under',
    summary: 'Writes a resource under its id, replacing what was stored (a field left out takes its default). One statement.',
    input: resourceInput,
    record: true,
  },
  {
    name: 'putMany',
    signature: 'putMany(resources, options?)',
    returns: '`{ written }`',
    summary:
      'Writes many resources as `put` does, in batches of `batchSize` (default 500, at most 10,000) each written by one statement in one transaction; `resources` is an array or any iterable, sync or async. A refused item fails its batch, which leaves nothing of itself (the error\'s `index` is the item\'s position); earlier batches stay written, as `onProgress({ written, ids })` reported and the error\'s `written` says (the items from that position on were not written). An id given twice in one batch is written once, as its later item says (the same stored state as two `put`s in a row); `written` counts items, positions in what was passed, so it can be more than the rows written.',
    input: resourceInput,
    bulk: true,
    record: false,
  },
  {
    name: 'remove',
    signature: 'remove(id, options?)',
    returns: '`{ removed }`',
    summary: 'Removes a resource with its edges, medium and string-id mapping; `removed: false` when there was none. A category or predicate is refused.',
    input: resourceId,
    record: true,
  },
  {
    name: 'putCategory',
    signature: 'putCategory(category, options?)',
    returns: '`{ id }`',
    summary: 'Writes a category (by `id` when given, else by `name`), creating the vocabulary\'s roots (`meta`, `category`, `predicate`) on first use.',
    input: categoryInput,
    record: true,
  },
  {
    name: 'removeCategory',
    signature: 'removeCategory(category, options?)',
    returns: '`{ removed }`',
    summary: 'Removes a category that holds no resources and no subcategories.',
    input: contentRef,
    record: true,
  },
  {
    name: 'putPredicate',
    signature: 'putPredicate(predicate, options?)',
    returns: '`{ id }`',
    summary: 'Writes a predicate (by `id` or `name`) and the categories it connects (replacing the stored ones).',
    input: predicateInput,
    record: true,
  },
  {
    name: 'removePredicate',
    signature: 'removePredicate(predicate, options?)',
    returns: '`{ removed }`',
    summary: 'Removes a predicate and every edge through it.',
    input: contentRef,
    record: true,
  },
  {
    name: 'putEdge',
    signature: 'putEdge(edge, options?)',
    returns: '`{ id }`: the edge\'s id',
    summary: 'Writes the edge `subject -predicate-> object`; each end must be in a category the predicate allows on its side (or a subcategory), when it lists any.',
    input: edgeInput,
    record: true,
  },
  {
    name: 'putEdgeMany',
    signature: 'putEdgeMany(edges, options?)',
    returns: '`{ written }`',
    summary: 'Writes many edges as `putEdge` does, in batches like `putMany`.',
    input: edgeInput,
    bulk: true,
    record: false,
  },
  {
    name: 'setEdges',
    signature: 'setEdges(edges, options?)',
    returns: '`{ ids }`: the edges\' ids, in order',
    summary: 'Makes `objects` the subject\'s complete, ordered list through the predicate (`seq` 1, 2, …); its other edges through it are removed.',
    input: edgeSetInput,
    record: true,
  },
  {
    name: 'setEdgesMany',
    signature: 'setEdgesMany(edgeSets, options?)',
    returns: '`{ written }`',
    summary: '`setEdges` for many subjects, in batches like `putMany`.',
    input: edgeSetInput,
    bulk: true,
    record: false,
  },
  {
    name: 'removeEdge',
    signature: 'removeEdge(edge, options?)',
    returns: '`{ removed }`',
    summary: 'Removes the edge `subject -predicate-> object` (`seq` is ignored).',
    input: edgeInput,
    record: true,
  },
  {
    name: 'putMedium',
    signature: 'putMedium(medium, options?)',
    returns: '`{ id }`: the resource\'s id',
    summary: 'Writes the downloadable file of a resource, replacing the stored one.',
    input: mediumInput,
    record: true,
  },
  {
    name: 'removeMedium',
    signature: 'removeMedium(resource, options?)',
    returns: '`{ removed }`',
    summary: 'Removes the medium of a resource.',
    input: contentRef,
    record: true,
  },
  {
    name: 'reconcile',
    signature: 'reconcile(current, options?)',
    returns: '`{ removed, stale, missing, listed, inScope }` (and `refusal` with `dryRun`), ids in your form',
    summary:
      'Repairs drift: `current` is every resource your CMS shows now, as `{ id, modified }` (an array or any iterable, streamed in 1,000 at a time). Every resource in scope the list does not name is removed (1,000 a statement, in one transaction); listed ones whose stored `modified` differs (to the millisecond) are reported `stale`, unknown ones `missing`: push those again. Options: `categories` (only resources in these categories and their subcategories; default every resource but categories and predicates), `dryRun` (report, remove nothing; `refusal` says why a real run would be refused), `maxRemove` (the most a run may remove: a count such as `25`, or a share of what is in scope such as `\'10%\'`; default `\'10%\'`; a run over it removes nothing and fails with `remove_limit`, and so does an empty list that would remove anything unless `maxRemove` is `\'100%\'`).',
    input: reconcileEntry,
    bulk: true,
    record: false,
  },
]);

/** The calls a record of the `push` command can name, by name. */
export const RECORD_CALLS: ReadonlyMap<string, PushCall> = new Map(PUSH_CALLS.filter((c) => c.record).map((c) => [c.name, c]));
