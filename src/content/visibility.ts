import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database, LocalizedText } from '../db/schema.js';
import { byRef, type ResourceRef } from './resource-ref.js';
import { reusableQuery } from '../db/reusable-query.js';

/**
 * The two rules every route, header and template obeys, each defined once, in SQL.
 * `alias` is the name the `rsc` table has in the surrounding query.
 */

/** Why a resource is not anonymous-visible or not indexable: one reason per condition of the two rules. */
export type ExposureReason = 'unpublished' | 'private' | 'not_yet_started' | 'ended' | 'site_noindex' | 'resource_noindex' | 'category_noindex';

type ColumnRef = (column: string) => RawBuilder<unknown>;

/** A condition of a rule and the reason a resource that fails it gets. */
interface RuleCondition {
  readonly reason: ExposureReason;
  readonly holds: (col: ColumnRef) => RawBuilder<SqlBool>;
}

const columnsOf = (alias: string): ColumnRef => (c) => sql.ref(`${alias}.${c}`);
const conjunction = (parts: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> => sql<SqlBool>`(${sql.join(parts, sql` AND `)})`;

/** The conditions of anonymous-visible, in order; the rule is their conjunction. */
const VISIBLE_CONDITIONS: readonly RuleCondition[] = [
  { reason: 'unpublished', holds: (col) => sql<SqlBool>`${col('is_published')}` },
  { reason: 'private', holds: (col) => sql<SqlBool>`${col('visibility')} = 'public'` },
  { reason: 'not_yet_started', holds: (col) => sql<SqlBool>`${col('publication_start')} <= now()` },
  { reason: 'ended', holds: (col) => sql<SqlBool>`(${col('publication_end')} IS NULL OR ${col('publication_end')} > now())` },
];

/** The conditions of indexable besides the site's own noindex setting; the rule is their conjunction. */
const INDEXABLE_CONDITIONS: readonly RuleCondition[] = [
  { reason: 'resource_noindex', holds: (col) => sql<SqlBool>`NOT ${col('seo_noindex')}` },
  { reason: 'category_noindex', holds: (col) => notInIdSet(col('category_id'), noindexCategoryIds()) },
];

/**
 * Anonymous-visible: published, public, inside its publication window.
 *
 * ```sql
 * ("r"."is_published" AND "r"."visibility" = 'public' AND "r"."publication_start" <= now()
 *   AND ("r"."publication_end" IS NULL OR "r"."publication_end" > now()))
 * ```
 */
export function anonymousVisible(alias = 'rsc'): RawBuilder<SqlBool> {
  const col = columnsOf(alias);
  return conjunction(VISIBLE_CONDITIONS.map((c) => c.holds(col)));
}

/**
 * Ids of the categories that are noindex themselves or below a noindex ancestor. Not correlated:
 * PostgreSQL evaluates it once per query as a hashed subplan.
 */
function noindexCategoryIds(): RawBuilder<number> {
  return sql<number>`(WITH RECURSIVE noindex_tree(id) AS (
      SELECT id FROM category WHERE is_noindex
      UNION
      SELECT c.id FROM category c JOIN noindex_tree t ON c.parent_id = t.id
    ) SELECT id FROM noindex_tree)`;
}

/**
 * The site's noindex setting as a query takes it: already known (`true` / `false`), or read by the
 * statement itself from the plugin's settings table (`{ storedElse }`: the stored value, else
 * `storedElse`, the factory option), which saves the separate settings round trip of a listing.
 */
export type SiteNoindex = boolean | { readonly storedElse: boolean };

/**
 * The site is not noindex, as the statement reads it from the settings table. Not correlated:
 * PostgreSQL evaluates it once per statement (an InitPlan, a one-time filter).
 *
 * ```sql
 * NOT coalesce((SELECT CASE WHEN jsonb_typeof(s.settings->'noindex') = 'boolean' THEN (s.settings->'noindex')::boolean END FROM agent_discovery_settings s WHERE s.id), $1)
 * ```
 */
function siteIndexableStored(storedElse: boolean): RawBuilder<SqlBool> {
  return sql<SqlBool>`NOT coalesce((SELECT CASE WHEN jsonb_typeof(s.settings->'noindex') = 'boolean' THEN (s.settings->'noindex')::boolean END FROM agent_discovery_settings s WHERE s.id), ${storedElse})`;
}

/**
 * Indexable: the site is not noindex, the resource is not `seo_noindex`, and neither its category
 * nor any ancestor category is noindex.
 *
 * ```sql
 * (NOT "r"."seo_noindex" AND "r"."category_id" NOT IN (WITH RECURSIVE noindex_tree ...))
 * ```
 */
export function indexable(siteNoindex: SiteNoindex, alias = 'rsc'): RawBuilder<SqlBool> {
  if (siteNoindex === true) return sql<SqlBool>`false`;
  const col = columnsOf(alias);
  const conditions = INDEXABLE_CONDITIONS.map((c) => c.holds(col));
  if (siteNoindex !== false) conditions.unshift(siteIndexableStored(siteNoindex.storedElse));
  return conjunction(conditions);
}

/**
 * `column` is one of the ids of a set subquery.
 *
 * ```sql
 * "r"."category_id" IN (WITH RECURSIVE ... SELECT id FROM ...)
 * ```
 *
 * Kept as `IN`/`NOT IN` over the subquery (a hashed SubPlan): the planner then estimates the filter
 * with its default selectivity and keeps the ordered index scan under LIMIT. An `= ANY(ARRAY(...))`
 * InitPlan looked cheaper per row but collapsed the row estimate when most rows share one category,
 * and the planner sorted the whole table instead (measured: 4 s instead of 11 ms on 1M rows).
 */
export function inIdSet(column: string | RawBuilder<unknown>, set: RawBuilder<number>): RawBuilder<SqlBool> {
  return sql<SqlBool>`${typeof column === 'string' ? sql.ref(column) : column} IN ${set}`;
}

/** `column` is none of the ids of a set subquery (see `inIdSet`). */
export function notInIdSet(column: string | RawBuilder<unknown>, set: RawBuilder<number>): RawBuilder<SqlBool> {
  return sql<SqlBool>`${typeof column === 'string' ? sql.ref(column) : column} NOT IN ${set}`;
}

/** Ids of the given categories and all their descendants (cycle-safe). */
export function categorySubtree(rootIds: readonly number[]): RawBuilder<number> {
  const roots = rootIds.length ? sql.join(rootIds.map((id) => sql`${id}::bigint`)) : sql`NULL::bigint`;
  return sql<number>`(WITH RECURSIVE subtree(id) AS (
      SELECT id FROM category WHERE id IN (${roots})
      UNION
      SELECT c.id FROM category c JOIN subtree t ON c.parent_id = t.id
    ) SELECT id FROM subtree)`;
}

/** Ids of the category with this unique name and all its descendants (cycle-safe). */
export function namedCategoryTree(name: string): RawBuilder<number> {
  return sql<number>`(WITH RECURSIVE named_tree(id) AS (
      SELECT c.id FROM category c JOIN rsc n ON n.id = c.id WHERE n.name = ${name}
      UNION
      SELECT c.id FROM category c JOIN named_tree t ON c.parent_id = t.id
    ) SELECT id FROM named_tree)`;
}

/** Ids of the categories under `meta` (the vocabulary: categories and predicates themselves). */
export const metaCategoryIds = (): RawBuilder<number> => namedCategoryTree('meta');

/** Not a vocabulary resource (its category is not `meta` or below it). */
export function notMeta(alias = 'rsc'): RawBuilder<SqlBool> {
  return notInIdSet(`${alias}.category_id`, metaCategoryIds());
}

/**
 * Listed by search and advertised: anonymous-visible, indexable and not vocabulary (`meta`).
 */
export function listable(siteNoindex: SiteNoindex, alias = 'rsc'): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${anonymousVisible(alias)} AND ${indexable(siteNoindex, alias)} AND ${notMeta(alias)})`;
}

/**
 * A category that is public vocabulary: its resource (`alias`) is anonymous-visible and indexable,
 * and the category (`categoryAlias`) is not noindex itself or below a noindex category.
 */
export function publicCategory(siteNoindex: SiteNoindex, alias: string, categoryAlias: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${anonymousVisible(alias)} AND ${indexable(siteNoindex, alias)} AND ${notInIdSet(`${categoryAlias}.id`, noindexCategoryIds())})`;
}

/** How a resource appears to an anonymous visitor. `undefined` when it does not exist at all. */
export interface Exposure {
  visible: boolean;
  indexable: boolean;
}

/** An exposure with what a page's language versions are built from (read by the same statement). */
export interface PageExposure extends Exposure {
  id: number;
  /** The resource's language codes, its own first (as stored: not yet checked). */
  languages: unknown;
  name: string | null;
  /** The contract's optional `page_url` (null when the content has none). */
  page_url: LocalizedText | null;
  /** Its category's name, when the category is anonymous-visible. */
  category: string | null;
}

/** Evaluates both rules for one resource, by id or unique name, in one query. */
export async function resourceExposure(
  db: Kysely<Database>,
  ref: ResourceRef,
  siteNoindex: SiteNoindex,
): Promise<PageExposure | undefined> {
  const [row] = (await db.executeQuery(reusableExposure(db, { ref, siteNoindex }))).rows;
  return row
    ? {
        visible: Boolean(row.visible),
        indexable: Boolean(row.indexable),
        id: Number(row.id),
        languages: row.language,
        name: row.name,
        page_url: row.page_url ?? null,
        category: row.category ?? null,
      }
    : undefined;
}

const reusableExposure = reusableQuery((db: Kysely<Database>, p: { ref: ResourceRef; siteNoindex: SiteNoindex }) =>
  db
    .selectFrom('rsc as r')
    .leftJoin('rsc as cat', (join) => join.onRef('cat.id', '=', 'r.category_id').on(anonymousVisible('cat')))
    .select([anonymousVisible('r').as('visible'), indexable(p.siteNoindex, 'r').as('indexable')])
    .select(['r.id', 'r.language', 'r.name', 'r.page_url', 'cat.name as category'])
    .where(byRef('r', p.ref)),
);

/** Both rules for one resource, and every reason it fails them. */
export interface ExposureExplained extends Exposure {
  /** Why it is not anonymous-visible (empty when it is), in the rule's order. */
  notVisibleBecause: ExposureReason[];
  /** Why it is not indexable (empty when it is), in the rule's order. */
  notIndexableBecause: ExposureReason[];
}

/**
 * Evaluates both rules for one resource and each of their conditions, in one query: the verdicts
 * come from `anonymousVisible` and `indexable` themselves, the reasons from the conditions they are
 * made of, so the two cannot disagree. `undefined` when the resource does not exist.
 *
 * ```sql
 * select (<anonymous-visible r>) as "visible", (<indexable r>) as "indexable",
 *   "r"."is_published" as "c0", "r"."visibility" = 'public' as "c1", … from "rsc" as "r" where r.id = $1
 * ```
 */
export async function explainExposure(
  db: Kysely<Database>,
  idOrName: number | string,
  siteNoindex: boolean,
): Promise<ExposureExplained | undefined> {
  const col = columnsOf('r');
  const conditions = [...VISIBLE_CONDITIONS, ...INDEXABLE_CONDITIONS];
  const row = await db
    .selectFrom('rsc as r')
    .select([anonymousVisible('r').as('visible'), indexable(siteNoindex, 'r').as('indexable')])
    .select(conditions.map((c, i) => c.holds(col).as(`c${i}`)))
    .where(byRef('r', idOrName))
    .executeTakeFirst();
  if (!row) return undefined;
  const values = row as unknown as Record<string, unknown>;
  const failed = (list: readonly RuleCondition[], offset: number) =>
    list.flatMap((c, i) => (values[`c${offset + i}`] ? [] : [c.reason]));
  return {
    visible: Boolean(row.visible),
    indexable: Boolean(row.indexable),
    notVisibleBecause: failed(VISIBLE_CONDITIONS, 0),
    notIndexableBecause: [...(siteNoindex ? (['site_noindex'] as const) : []), ...failed(INDEXABLE_CONDITIONS, VISIBLE_CONDITIONS.length)],
  };
}

/**
 * The categories that make a category noindex: itself and its ancestors that are `is_noindex`,
 * nearest first (cycle-safe), with their names. Empty when the category is indexable.
 */
export async function noindexCategoryChain(db: Kysely<Database>, categoryId: number): Promise<{ id: number; name: string | null }[]> {
  const { rows } = await sql<{ id: number; name: string | null }>`
    WITH RECURSIVE up(id, depth) AS (
      SELECT ${categoryId}::bigint, 0
      UNION
      SELECT c.parent_id, u.depth + 1 FROM category c JOIN up u ON c.id = u.id WHERE c.parent_id IS NOT NULL AND u.depth < 100
    )
    SELECT c.id, r.name FROM up JOIN category c ON c.id = up.id JOIN rsc r ON r.id = c.id
    WHERE c.is_noindex ORDER BY up.depth`.execute(db);
  return rows.map((r) => ({ id: Number(r.id), name: r.name }));
}
