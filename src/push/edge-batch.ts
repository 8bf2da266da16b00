import { sql, type Kysely } from 'kysely';
import { namedCategoryTree } from '../content/visibility.js';
import { describeRef, type PushDatabase } from './external-ids.js';
import { ContentPushError, type ContentPushErrorCode } from './push-error.js';
import { RefKeys, resolvedRefs } from './ref-keys.js';
import type { ContentRef } from './resource-input.js';

/**
 * Edges written in bulk: `putEdge` and `setEdges`, one or a batch of them (`putEdgeMany`,
 * `setEdgesMany`), each batch one statement that writes all of it or nothing.
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

/** Where a reference of the batch is used: by item (`ord`), as which end (`role`), under which field. */
interface Use {
  ord: number;
  kind: 'put' | 'set';
  role: 's' | 'p' | 'o';
  field: string;
  key: number;
  position: number;
  seq: number | null;
}

interface Outcome {
  ord: number;
  field: string | null;
  outcome: string;
  detail: string | null;
  position: number | null;
  id: string | number | null;
}

/**
 * The statement of a batch of edges. Every use of a reference is checked (found, not ambiguous, the
 * predicate a predicate, each end in a category the predicate allows on its side, subcategories
 * included); only when none is refused, the sets' other edges are removed and the edges upserted.
 *
 * ```sql
 * WITH RECURSIVE refs AS (…each distinct reference resolved…),
 *   uses AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS u(ord int, kind text, role text, field text, key int, position int, seq int)),
 *   allowed(predicate_id, is_subject, category_id) AS (SELECT … FROM predicate_category … UNION SELECT … subcategories …),
 *   problems AS (…missing, ambiguous, not a predicate, category not allowed…),
 *   wanted AS (…one row per edge: the last put of an edge, the last set of a subject and predicate…),
 *   removed AS (DELETE FROM edge e USING sets … WHERE <not wanted> …),
 *   given AS (INSERT INTO edge … ON CONFLICT (subject_id, predicate_id, object_id) DO UPDATE SET seq = EXCLUDED.seq RETURNING …),
 *   kept AS (INSERT INTO edge … ON CONFLICT (subject_id, predicate_id, object_id) DO UPDATE SET seq = edge.seq RETURNING …)
 * SELECT <problems> UNION ALL SELECT <each item's edge ids>
 * ```
 */
function edgeStatement(refsJson: string, usesJson: string) {
  return sql<Outcome>`
    WITH RECURSIVE refs AS MATERIALIZED (${resolvedRefs(refsJson)}),
    predicates AS MATERIALIZED (SELECT id FROM ${namedCategoryTree('predicate')} t),
    uses AS MATERIALIZED (
      SELECT u.*, r.found, r.id, r.category_id
      FROM jsonb_to_recordset(${usesJson}::jsonb) AS u(ord int, kind text, role text, field text, key int, position int, seq int)
      JOIN refs r ON r.key = u.key
    ),
    ends AS MATERIALIZED (
      SELECT e.ord, e.role, e.field, e.position, e.id, e.category_id, p.id AS predicate_id
      FROM uses e JOIN uses p ON p.ord = e.ord AND p.role = 'p'
      WHERE e.role <> 'p'
    ),
    allowed(predicate_id, is_subject, category_id) AS (
      SELECT pc.predicate_id, pc.is_subject, pc.category_id FROM predicate_category pc
      WHERE pc.predicate_id IN (SELECT id FROM uses WHERE role = 'p')
      UNION
      SELECT a.predicate_id, a.is_subject, c.id FROM category c JOIN allowed a ON c.parent_id = a.category_id
    ),
    problems AS (
      SELECT ord, field, 'missing' AS problem, NULL::text AS detail, position FROM uses WHERE found = 0
      UNION ALL SELECT ord, field, 'ambiguous', NULL, position FROM uses WHERE found > 1
      UNION ALL SELECT ord, field, 'not_predicate', NULL, position FROM uses WHERE role = 'p' AND found = 1 AND category_id NOT IN (SELECT id FROM predicates)
      UNION ALL SELECT e.ord, e.field, 'not_allowed', e.id::text, e.position FROM ends e
        WHERE e.id IS NOT NULL AND e.predicate_id IS NOT NULL
          AND EXISTS (SELECT 1 FROM predicate_category pc WHERE pc.predicate_id = e.predicate_id AND pc.is_subject = (e.role = 's'))
          AND NOT EXISTS (SELECT 1 FROM allowed a WHERE a.predicate_id = e.predicate_id AND a.is_subject = (e.role = 's') AND a.category_id = e.category_id)
    ),
    items AS MATERIALIZED (
      SELECT s.ord, s.id AS subject_id, p.id AS predicate_id, s.seq AS seq_given, s.kind = 'set' AS is_set
      FROM uses s JOIN uses p ON p.ord = s.ord AND p.role = 'p'
      WHERE s.role = 's' AND NOT EXISTS (SELECT 1 FROM problems)
    ),
    last_items AS (
      SELECT DISTINCT ON (subject_id, predicate_id, is_set) * FROM items WHERE is_set ORDER BY subject_id, predicate_id, is_set, ord DESC
    ),
    set_edges AS (
      SELECT DISTINCT ON (i.ord, o.id) i.ord, i.subject_id, i.predicate_id, o.id AS object_id, o.position
      FROM last_items i JOIN uses o ON o.ord = i.ord AND o.role = 'o'
      ORDER BY i.ord, o.id, o.position
    ),
    wanted AS MATERIALIZED (
      SELECT subject_id, predicate_id, object_id, row_number() OVER (PARTITION BY ord ORDER BY position)::int AS seq FROM set_edges
      UNION ALL
      (SELECT DISTINCT ON (i.subject_id, i.predicate_id, o.id) i.subject_id, i.predicate_id, o.id, i.seq_given
       FROM items i JOIN uses o ON o.ord = i.ord AND o.role = 'o'
       WHERE NOT i.is_set
       ORDER BY i.subject_id, i.predicate_id, o.id, i.ord DESC)
    ),
    removed AS (
      DELETE FROM edge e USING last_items i
      WHERE e.subject_id = i.subject_id AND e.predicate_id = i.predicate_id
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
    ),
    written AS (SELECT * FROM given UNION ALL SELECT * FROM kept)
    SELECT ord, field, problem AS outcome, detail, position, NULL::bigint AS id FROM problems
    UNION ALL
    SELECT i.ord, NULL, 'edge', NULL, o.position, w.id
    FROM items i JOIN uses o ON o.ord = i.ord AND o.role = 'o'
    JOIN written w ON w.subject_id = i.subject_id AND w.predicate_id = i.predicate_id AND w.object_id = o.id`;
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
 */
export async function writeEdges(db: Kysely<PushDatabase>, call: string, items: readonly (EdgePut | EdgeSet)[]): Promise<number[][]> {
  const refs = new RefKeys();
  const uses: Use[] = [];
  items.forEach((item, ord) => {
    const use = (role: Use['role'], field: string, ref: ContentRef, position = 0) =>
      uses.push({ ord, kind: item.kind, role, field, key: refs.key(ref), position, seq: item.kind === 'put' ? (item.seq ?? null) : null });
    use('s', 'subject', item.subject);
    use('p', 'predicate', item.predicate);
    if (item.kind === 'put') use('o', 'object', item.object);
    else item.objects.forEach((object, i) => use('o', `objects.${i}`, object, i));
  });
  const { rows } = await edgeStatement(refs.json(), JSON.stringify(uses)).execute(db);
  const roleOf = (field: string) => (field === 'subject' ? 0 : field === 'predicate' ? 1 : 2);
  const [first] = rows
    .filter((r) => r.outcome !== 'edge')
    .sort((a, b) => a.ord - b.ord || roleOf(a.field!) - roleOf(b.field!) || (a.position ?? 0) - (b.position ?? 0) || a.outcome.localeCompare(b.outcome));
  if (first) {
    const use = uses.find((u) => u.ord === first.ord && u.field === first.field)!;
    throw problemError(call, first.outcome, first.detail, first.field!, refs.refs[use.key]!, items[first.ord]!.index);
  }
  const ids = items.map(() => [] as { position: number; id: number }[]);
  for (const r of rows) if (r.outcome === 'edge') ids[r.ord]!.push({ position: r.position ?? 0, id: Number(r.id) });
  return ids.map((list) => {
    const seen = new Set<number>();
    return list.sort((a, b) => a.position - b.position).flatMap(({ id }) => (seen.has(id) ? [] : (seen.add(id), [id])));
  });
}
