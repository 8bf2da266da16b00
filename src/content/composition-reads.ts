import { sql, type RawBuilder } from 'kysely';
import { anonymousVisible } from './visibility.js';
import { MAX_CATEGORY_DEPTH } from './composable-resources.js';

/**
 * What a resource's composition read of the content besides the resource itself, and the fingerprint
 * of those rows that the resource's own read statement computes, so that a kept composition is found
 * again exactly while none of what it shows has changed.
 *
 * A composition reads other resources through `ResourceLoader` (included guide pages, `rsc(…)` lookups
 * by id or by name, the categories named in template selection) and the resource's author and tag
 * edges. The fingerprint covers, each with its row version (`xmin`, renewed by every write of the row)
 * and, for resources, whether it is anonymous-visible *now*:
 *
 * - the resource itself, its medium and its visible category (`ownVersions`: plain columns of the
 *   read, with the category chain's names the read selects anyway);
 * - every resource asked for by id or by name, found or not, and its medium (a resource that appears,
 *   is renamed onto a name asked for, is deleted, hidden, or whose publication window starts or ends
 *   without a write changes it), and every category asked for, up its parent chain
 *   (`compositionFingerprint`);
 * - the resource's edges through the author and tag predicates, with the predicate and the object.
 *
 * Only tables have row versions; over a host's views the cache keys resources by the coarse content
 * version instead (`ContentClock`).
 */

/** The resources (by id and by name) and categories a composition asked for, besides its own. */
export interface CompositionReads {
  readonly ids: readonly number[];
  readonly names: readonly string[];
  readonly categories: readonly number[];
}

export const NO_READS: CompositionReads = Object.freeze({ ids: [], names: [], categories: [] });

/** Past this many recorded keys a resource's compositions are not kept (each read composes). */
export const MAX_COMPOSITION_READS = 512;

/** Collects what one composition reads; `reads()` answers them sorted and without repeats. */
export class ReadsRecorder {
  readonly #ids = new Set<number>();
  readonly #names = new Set<string>();
  readonly #categories = new Set<number>();

  resources(keys: readonly (number | string)[]): void {
    for (const key of keys) {
      if (typeof key === 'number') this.#ids.add(key);
      else this.#names.add(key);
    }
  }

  found(resources: readonly { id: number; category_id: number }[]): void {
    for (const r of resources) {
      this.#ids.add(r.id);
      this.#categories.add(r.category_id);
    }
  }

  categories(ids: readonly number[]): void {
    for (const id of ids) this.#categories.add(id);
  }

  reads(): CompositionReads {
    return normalized(this.#ids, this.#names, this.#categories);
  }
}

function normalized(ids: Iterable<number>, names: Iterable<string>, categories: Iterable<number>): CompositionReads {
  const numeric = (a: number, b: number) => a - b;
  return { ids: [...new Set(ids)].sort(numeric), names: [...new Set(names)].sort(), categories: [...new Set(categories)].sort(numeric) };
}

/** Whether every read of `inner` is among those of `outer` (a fingerprint over `outer` then covers `inner`). */
export function covers(outer: CompositionReads, inner: CompositionReads): boolean {
  const within = <T>(a: readonly T[], b: readonly T[]) => {
    const set = new Set(a);
    return b.every((x) => set.has(x));
  };
  return within(outer.ids, inner.ids) && within(outer.names, inner.names) && within(outer.categories, inner.categories);
}

/** The reads of both, or undefined when that is more than `MAX_COMPOSITION_READS` keys. */
export function union(a: CompositionReads, b: CompositionReads): CompositionReads | undefined {
  const both = normalized([...a.ids, ...b.ids], [...a.names, ...b.names], [...a.categories, ...b.categories]);
  return both.ids.length + both.names.length + both.categories.length > MAX_COMPOSITION_READS ? undefined : both;
}

/**
 * The statement parameter of {@link compositionFingerprint}: the reads as one JSON text (one parameter
 * whatever their number, so the statement's text never changes); undefined when there are none.
 */
export function readsParameter(reads: CompositionReads): string | undefined {
  return reads.ids.length || reads.names.length || reads.categories.length
    ? JSON.stringify({ ids: reads.ids, names: reads.names, categories: reads.categories })
    : undefined;
}

const visibleFlag = (alias: string) => sql`CASE WHEN ${anonymousVisible(alias)} THEN '1' ELSE '0' END`;

/**
 * The versions (and visibility now) of the rows `where` finds, looked up by a scalar subquery; `-` when
 * there is none. An aggregate, not a single value: a host's own tables need not make names or media
 * unique, and a subquery answering two rows would fail the read.
 */
const version = (table: string, as: string, where: RawBuilder<unknown>, visible: boolean, withId = false) => {
  const one = sql`${withId ? sql`${sql.ref(`${as}.id`)} || ':' || ` : sql``}${sql.ref(`${as}.xmin`)}::text${visible ? sql` || ${visibleFlag(as)}` : sql``}`;
  return sql`coalesce((SELECT string_agg(${one}, ';' ORDER BY ${one}) FROM ${sql.table(table)} ${sql.ref(as)} WHERE ${where}), '-')`;
};

/**
 * The row versions a composition of `rsc as <alias>` shows besides what the resource's read selects
 * itself (its own row's, its medium's and its visible category's `xmin`, and its category chain's
 * names: `ownVersions`), as one column of that read (a correlated subquery): the md5 of `reads` (the
 * parameter itself) and of the row versions and visibility now of the resources asked for by id or by
 * name (and their media), the categories asked for and their ancestors, and the resource's edges
 * through `predicates` with their predicates and objects. Two reads with the same parameter get the
 * same fingerprint exactly while none of those rows was written and none turned visible or invisible.
 * Each row is looked up by a scalar subquery on its key or name (a missing one reads as `-`), so the
 * plan is index lookups whatever the planner estimates (a join here was once planned as a merge join
 * reading the whole primary-key index of `rsc`).
 *
 * ```sql
 * (WITH RECURSIVE k AS (SELECT $1::jsonb AS d), walk(id, depth) AS (…categories asked for, up…), ids AS (…)
 *  SELECT md5(…) FROM (SELECT 'e' || e.id || … FROM edge e WHERE e.subject_id = "r"."id" AND …
 *  UNION ALL SELECT 'r' || ids.id || ':' || coalesce((SELECT x.xmin::text || <visible x> FROM rsc x WHERE x.id = ids.id), '-') FROM ids …) f(t))
 * ```
 */
export function compositionFingerprint(alias: string, reads: string | undefined, predicates: readonly string[]): RawBuilder<string | null> {
  return fingerprintOf(alias, reads === undefined ? undefined : sql`${reads}::jsonb`, predicates);
}

/**
 * {@link compositionFingerprint} of every row of `rsc as <alias>` in one statement, each with its own
 * reads: `readsById` is one JSON object of reads parameters by resource id (`{"7": {"ids": […], …}}`);
 * a row missing from it is fingerprinted as a read without reads is. Each row's value is the one its
 * own read would compute with the same reads, so the two find the same kept compositions.
 *
 * ```sql
 * CASE WHEN ($1::jsonb -> r.id::text) IS NULL THEN <fingerprint without reads> ELSE <fingerprint of ($1::jsonb -> r.id::text)> END
 * ```
 */
export function compositionFingerprints(alias: string, readsById: string, predicates: readonly string[]): RawBuilder<string | null> {
  const reads = sql`(${readsById}::jsonb -> (${sql.ref(`${alias}.id`)})::text)`;
  return sql<string | null>`CASE WHEN ${reads} IS NULL THEN ${fingerprintOf(alias, undefined, predicates)} ELSE ${fingerprintOf(alias, reads, predicates)} END`;
}

/** The fingerprint of `compositionFingerprint`, its reads a jsonb expression (a parameter, or one per row). */
function fingerprintOf(alias: string, reads: RawBuilder<unknown> | undefined, predicates: readonly string[]): RawBuilder<string | null> {
  const own = (column: string) => sql.ref(`${alias}.${column}`);
  const parts: RawBuilder<unknown>[] = [];
  if (predicates.length) {
    parts.push(sql`SELECT 'e' || e.id || ':' || e.xmin::text || ':' || ${version('rsc', 'p', sql`p.id = e.predicate_id`, true)} || ':' || ${version('rsc', 'o', sql`o.id = e.object_id`, true)}
      FROM edge e
      WHERE e.subject_id = ${own('id')} AND e.predicate_id IN (SELECT p.id FROM rsc p WHERE p.name IN (${sql.join(predicates.map((p) => sql.lit(p)))}))`);
  }
  if (reads) {
    parts.push(
      sql`SELECT 'r' || ids.id || ':' || ${version('rsc', 'x', sql`x.id = ids.id`, true)} || ':' || ${version('medium', 'm', sql`m.rsc_id = ids.id`, false)} FROM ids`,
      sql`SELECT 'n' || n.name || ':' || ${version('rsc', 'x', sql`x.name = n.name`, true, true)}
        FROM (SELECT jsonb_array_elements_text(k.d->'names') FROM k) n(name)`,
      sql`SELECT 'c' || w.id || ':' || ${version('category', 'c', sql`c.id = w.id`, false)} FROM (SELECT DISTINCT walk.id FROM walk) w`,
    );
  }
  if (!parts.length) return sql<null>`NULL::text`;
  const rows = sql`SELECT md5(${reads ? sql`(SELECT k.d::text FROM k) || ` : sql``}string_agg(f.t, ',' ORDER BY f.t)) FROM (${sql.join(parts, sql` UNION ALL `)}) f(t)`;
  if (!reads) return sql<string | null>`(${rows})`;
  return sql<string | null>`(WITH RECURSIVE k AS (SELECT ${reads} AS d),
      walk(id, depth) AS (
        SELECT c.id, 0 FROM category c WHERE c.id IN (SELECT jsonb_array_elements_text(k.d->'categories')::bigint FROM k)
        UNION ALL
        SELECT c.parent_id, walk.depth + 1 FROM walk JOIN category c ON c.id = walk.id
        WHERE c.parent_id IS NOT NULL AND walk.depth < ${sql.lit(MAX_CATEGORY_DEPTH)}
      ),
      ids(id) AS (
        SELECT jsonb_array_elements_text(k.d->'ids')::bigint FROM k
        UNION SELECT walk.id FROM walk
      )
    ${rows})`;
}

/**
 * The versions of what a resource's read selects itself and its composition shows: its own row, its
 * medium and its anonymous-visible category (`r`, `m`, `cat` of `resourceReadColumns`), each `xmin`
 * (null when absent).
 */
export function ownVersions() {
  return sql<string>`r.xmin::text || ':' || coalesce(m.xmin::text, '-') || ':' || coalesce(cat.xmin::text, '-')`;
}
