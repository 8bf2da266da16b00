import { sql, type Kysely } from 'kysely';
import { namedCategoryTree } from '../content/visibility.js';
import { describeRef, type PushDatabase } from './external-ids.js';
import { ContentPushError, type ContentPushErrorCode } from './push-error.js';
import { RefKeys, resolvedRefs } from './ref-keys.js';
import type { ContentRef } from './resource-input.js';

/**
 * Edges written in bulk: `putEdge` and `setEdges`, one or a batch of them (`putEdgeMany`,
 * `setEdgesMany`): each batch is read in one statement, checked, then written by one statement that
 * writes all of it or nothing. Both statements take the batch as arrays and stay linear in its size.
 */

/** One edge to write (`putEdge`): `seq` given is set, else an existing edge keeps its own. */
export interface EdgePut {
  readonly kind: 'put';
  readonly index: number | undefined;
  readonly subject: ContentRef;
  readonly predicate: ContentRef;
  readonly object: ContentRef;
  readonly seq?: number | undefined;
}

/** A subject's complete, ordered list of objects through a predicate (`setEdges`). */
export interface EdgeSet {
  readonly kind: 'set';
  readonly index: number | undefined;
  readonly subject: ContentRef;
  readonly predicate: ContentRef;
  readonly objects: readonly ContentRef[];
}


/** A reference of the batch as the database resolved it. */
interface Resolved {
  /** 0: nothing; 1: one resource; 2: a string that is one resource's name and another's string id. */
  readonly found: number;
  readonly id: number | null;
  readonly categoryId: number | null;
  /** It is a predicate (in the tree of `predicate`). */
  readonly isPredicate: boolean;
}

/** What the batch's references name, and the categories each predicate used allows on each side. */
interface BatchFacts {
  readonly refs: Map<number, Resolved>;
  /** `<predicate id>:s` or `:o` → the categories allowed on that side (subcategories included); absent: any. */
  readonly allowed: Map<string, Set<number>>;
}

/**
 * Reads what a batch needs to be checked, in one statement: every distinct reference resolved (see
 * `resolvedRefs`), and for the predicates used, the categories each allows on each side with their
 * subcategories. Linear in the batch: index lookups per reference, and the walk down the category tree.
 *
 * ```sql
 * WITH RECURSIVE refs AS MATERIALIZED (…each distinct reference resolved…),
 *   allowed(predicate_id, is_subject, category_id) AS (SELECT … FROM predicate_category pc WHERE pc.predicate_id IN (…used…)
 *     UNION SELECT a.predicate_id, a.is_subject, c.id FROM category c JOIN allowed a ON c.parent_id = a.category_id)
 * SELECT 'ref', key, found, id, category_id, category_id IN (…the tree of predicate…) FROM refs
 * UNION ALL SELECT 'allowed', NULL, NULL, predicate_id, category_id, is_subject FROM allowed
 * ```
 */
async function batchFacts(db: Kysely<PushDatabase>, refs: RefKeys, predicateKeys: readonly number[]): Promise<BatchFacts> {
  const { rows } = await sql<{ kind: 'ref' | 'allowed'; key: number | null; found: number | null; id: string | number | null; category_id: string | number | null; flag: boolean }>`
    WITH RECURSIVE refs AS MATERIALIZED (${resolvedRefs(refs.json())}),
    allowed(predicate_id, is_subject, category_id) AS (
      SELECT pc.predicate_id, pc.is_subject, pc.category_id FROM predicate_category pc
      WHERE pc.predicate_id IN (SELECT id FROM refs WHERE key = ANY(${[...predicateKeys]}::int[]) AND found = 1)
      UNION
      SELECT a.predicate_id, a.is_subject, c.id FROM category c JOIN allowed a ON c.parent_id = a.category_id
    )
    SELECT 'ref' AS kind, r.key, r.found, r.id, r.category_id, coalesce(r.category_id IN (SELECT id FROM ${namedCategoryTree('predicate')} t), false) AS flag FROM refs r
    UNION ALL
    SELECT 'allowed', NULL, NULL, a.predicate_id, a.category_id, a.is_subject FROM allowed a`.execute(db);
  const facts: BatchFacts = { refs: new Map(), allowed: new Map() };
  const num = (v: string | number | null) => (v === null ? null : Number(v));
  for (const r of rows) {
    if (r.kind === 'ref') {
      facts.refs.set(r.key!, { found: r.found!, id: num(r.id), categoryId: num(r.category_id), isPredicate: r.flag });
      continue;
    }
    const side = `${num(r.id)}:${r.flag ? 's' : 'o'}`;
    const categories = facts.allowed.get(side) ?? new Set<number>();
    categories.add(num(r.category_id)!);
    facts.allowed.set(side, categories);
  }
  return facts;
}

/** An item of the batch with its references' keys. */
interface KeyedItem {
  readonly item: EdgePut | EdgeSet;
  readonly subject: number;
  readonly predicate: number;
  readonly objects: readonly number[];
}

/** The first refused use of a reference in the batch (by item; in an item: subject, predicate, objects in order), as a push error. */
function firstProblem(call: string, keyed: readonly KeyedItem[], facts: BatchFacts, refs: RefKeys): ContentPushError | undefined {
  for (const { item, subject, predicate, objects } of keyed) {
    const p = facts.refs.get(predicate)!;
    const predicateId = p.found === 1 && p.isPredicate ? p.id : null;
    const check = (key: number, field: string, side: 's' | 'o' | undefined): ContentPushError | undefined => {
      const r = facts.refs.get(key)!;
      const fail = (problem: string, detail: string | null = null) => problemError(call, problem, detail, field, refs.refs[key]!, item.index);
      if (r.found === 0) return fail('missing');
      if (r.found > 1) return fail('ambiguous');
      if (side === undefined) return r.isPredicate ? undefined : fail('not_predicate');
      const allowed = predicateId === null ? undefined : facts.allowed.get(`${predicateId}:${side}`);
      return allowed && !allowed.has(r.categoryId!) ? fail('not_allowed', String(r.id)) : undefined;
    };
    const problem =
      check(subject, 'subject', 's') ??
      check(predicate, 'predicate', undefined) ??
      objects.reduce<ContentPushError | undefined>((found, key, i) => found ?? check(key, item.kind === 'put' ? 'object' : `objects.${i}`, 'o'), undefined);
    if (problem) return problem;
  }
  return undefined;
}

/** An edge to write: its ends, and its `seq` (null: an existing edge keeps its own). */
export interface WantedEdge {
  readonly subject: number;
  readonly predicate: number;
  readonly object: number;
  readonly seq: number | null;
}

/**
 * What a checked batch writes: the edges wanted (a set's objects, each once, numbered 1, 2, … in
 * order; a put's edge; of two items writing the same edge, the later) and the subject–predicate pairs
 * whose other edges go (only each pair's last set counts).
 */
function plannedEdges(keyed: readonly KeyedItem[], facts: BatchFacts): { wanted: WantedEdge[]; sets: [number, number][] } {
  const id = (key: number) => facts.refs.get(key)!.id!;
  const lastSet = new Map<string, number>();
  keyed.forEach(({ item, subject, predicate }, ord) => {
    if (item.kind === 'set') lastSet.set(`${id(subject)}:${id(predicate)}`, ord);
  });
  const wanted = new Map<string, WantedEdge>();
  const sets: [number, number][] = [];
  keyed.forEach(({ item, subject, predicate, objects }, ord) => {
    const s = id(subject);
    const p = id(predicate);
    const pair = `${s}:${p}`;
    if (item.kind === 'put') {
      const o = id(objects[0]!);
      wanted.set(`${pair}:${o}`, { subject: s, predicate: p, object: o, seq: item.seq ?? null });
      return;
    }
    if (lastSet.get(pair) !== ord) return;
    sets.push([s, p]);
    let seq = 0;
    for (const o of new Set(objects.map(id))) wanted.set(`${pair}:${o}`, { subject: s, predicate: p, object: o, seq: ++seq });
  });
  return { wanted: [...wanted.values()], sets };
}

/**
 * Writes what `plannedEdges` wants in one statement over `unnest` arrays, which PostgreSQL plans with
 * their true sizes (an index lookup per pair and per edge, a hashed anti-join; never a nested loop over
 * the batch): each set's other edges removed, the wanted edges upserted. The id of each edge written,
 * by `<subject>:<predicate>:<object>`.
 *
 * ```sql
 * WITH sets AS (SELECT * FROM unnest($1::bigint[], $2::bigint[]) AS s(subject_id, predicate_id)),
 *   wanted AS MATERIALIZED (SELECT * FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::int[]) AS w(subject_id, predicate_id, object_id, seq)),
 *   removed AS (DELETE FROM edge e USING sets s WHERE <e of the pair> AND NOT EXISTS (SELECT 1 FROM wanted w WHERE <w is e>) RETURNING e.id),
 *   given AS (INSERT INTO edge … SELECT … FROM wanted WHERE seq IS NOT NULL ON CONFLICT (subject_id, predicate_id, object_id) DO UPDATE SET seq = EXCLUDED.seq RETURNING …),
 *   kept AS (INSERT INTO edge … SELECT … FROM wanted WHERE seq IS NULL ON CONFLICT (…) DO UPDATE SET seq = edge.seq RETURNING …)
 * SELECT * FROM given UNION ALL SELECT * FROM kept
 * ```
 */
async function writePlanned(db: Kysely<PushDatabase>, wanted: readonly WantedEdge[], sets: readonly [number, number][]): Promise<Map<string, number>> {
  const { rows } = await edgeWriteStatement(wanted, sets).execute(db);
  return new Map(rows.map((r) => [`${r.subject_id}:${r.predicate_id}:${r.object_id}`, Number(r.id)]));
}

/** The statement of `writePlanned` (exported for its plan test). */
export function edgeWriteStatement(wanted: readonly WantedEdge[], sets: readonly (readonly [number, number])[]) {
  return sql<{ id: string | number; subject_id: string | number; predicate_id: string | number; object_id: string | number }>`
    WITH sets AS (SELECT * FROM unnest(${sets.map((s) => s[0])}::bigint[], ${sets.map((s) => s[1])}::bigint[]) AS s(subject_id, predicate_id)),
    wanted AS MATERIALIZED (
      SELECT * FROM unnest(${wanted.map((w) => w.subject)}::bigint[], ${wanted.map((w) => w.predicate)}::bigint[], ${wanted.map((w) => w.object)}::bigint[], ${wanted.map((w) => w.seq)}::int[])
        AS w(subject_id, predicate_id, object_id, seq)
    ),
    removed AS (
      DELETE FROM edge e USING sets s
      WHERE e.subject_id = s.subject_id AND e.predicate_id = s.predicate_id
        AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.subject_id = e.subject_id AND w.predicate_id = e.predicate_id AND w.object_id = e.object_id)
      RETURNING e.id
    ),
    given AS (
      INSERT INTO edge (subject_id, predicate_id, object_id, seq)
      SELECT subject_id, predicate_id, object_id, seq FROM wanted WHERE seq IS NOT NULL
      ON CONFLICT (subject_id, predicate_id, object_id) DO UPDATE SET seq = EXCLUDED.seq
      RETURNING id, subject_id, predicate_id, object_id
    ),
    kept AS (
      INSERT INTO edge (subject_id, predicate_id, object_id)
      SELECT subject_id, predicate_id, object_id FROM wanted WHERE seq IS NULL
      ON CONFLICT (subject_id, predicate_id, object_id) DO UPDATE SET seq = edge.seq
      RETURNING id, subject_id, predicate_id, object_id
    )
    SELECT * FROM given UNION ALL SELECT * FROM kept`;
}

/** The message of a refused use of a reference. */
function problemError(call: string, problem: string, detail: string | null, field: string, ref: ContentRef, index: number | undefined): ContentPushError {
  const refuse = (code: ContentPushErrorCode, message: string) => new ContentPushError(call, code, field, message, { index });
  switch (problem) {
    case 'missing':
      return refuse('not_found', `no resource has ${describeRef(ref)}`);
    case 'ambiguous':
      return refuse('conflict', `${describeRef(ref)} is one resource's name and another's string id: say { name } or { externalId }`);
    case 'not_predicate':
      return refuse('not_found', `${describeRef(ref)} is not a predicate`);
    default:
      return refuse('not_allowed', `resource ${detail} is in a category the predicate does not allow on this side (see its ${field.startsWith('subject') ? 'subjects' : 'objects'})`);
  }
}

/**
 * Writes a batch of edge puts or edge sets in one statement: all of it, or nothing and the push
 * error of the first refused item. For each item, its edges' ids (a put's one, a set's in order).

/**
 * Writes a batch of edge puts or edge sets: all of it, or nothing and the push error of the first
 * refused item. Two statements, each linear in the batch: what the references name (`batchFacts`),
 * checked here, then the write (`writePlanned`), the only one that changes anything. For each item,
 * its edges' ids (a put's one, a set's in order).
 */
export async function writeEdges(db: Kysely<PushDatabase>, call: string, items: readonly (EdgePut | EdgeSet)[]): Promise<number[][]> {
  const refs = new RefKeys();
  const keyed: KeyedItem[] = items.map((item) => ({
    item,
    subject: refs.key(item.subject),
    predicate: refs.key(item.predicate),
    objects: (item.kind === 'put' ? [item.object] : item.objects).map((o) => refs.key(o)),
  }));
  const facts = await batchFacts(db, refs, [...new Set(keyed.map((k) => k.predicate))]);
  const problem = firstProblem(call, keyed, facts, refs);
  if (problem) throw problem;
  const { wanted, sets } = plannedEdges(keyed, facts);
  const written = await writePlanned(db, wanted, sets);
  const id = (key: number) => facts.refs.get(key)!.id;
  return keyed.map(({ subject, predicate, objects }) => {
    const ids = new Set<number>();
    for (const key of objects) {
      const edge = written.get(`${id(subject)}:${id(predicate)}:${id(key)}`);
      if (edge !== undefined) ids.add(edge);
    }
    return [...ids];
  });
}
