import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { categorySubtree } from '../content/visibility.js';
import { isModelVocabulary } from './model-vocabulary.js';
import { resolveRef, type PushDatabase } from './external-ids.js';
import { ContentPushError, inputError } from './push-error.js';
import { reconcileEntry, type ContentRef, type ResourceId } from './resource-input.js';

/** How a reconcile run is bounded and whether it writes. */
export interface ReconcileScope {
  /**
   * Only resources in these categories (and their subcategories) are removed when absent from the
   * list. Default: every resource that is not a category or predicate (those in `vocabulary`
   * categories, tags and authors, included).
   */
  readonly categories?: readonly ContentRef[] | undefined;
  /** Report what would be removed without removing it. Default `false`. */
  readonly dryRun?: boolean | undefined;
  /**
   * The most a run may remove: a count (`25`) or a share of what is in scope (`'10%'`). A run that
   * would remove more removes nothing and fails with `remove_limit`; an empty list that would remove
   * anything is refused unless this is `'100%'`. Default `'10%'`.
   */
  readonly maxRemove?: RemoveLimit | undefined;
}

/** How much a reconcile run may remove: a count of resources, or a percentage of those in scope. */
export type RemoveLimit = number | `${number}%`;

/** The guard unless the caller sets `maxRemove`. */
export const DEFAULT_MAX_REMOVE: RemoveLimit = '10%';

/** What a reconcile run found, each id in the host's form (its string id where it has one). */
export interface ReconcileResult {
  /** Resources that were not in the list, now removed (with `dryRun`: that would be). */
  readonly removed: ResourceId[];
  /** Listed resources whose stored `modified` differs from the list's (to millisecond precision): push them again. */
  readonly stale: ResourceId[];
  /** Listed resources that are not stored: push them. */
  readonly missing: ResourceId[];
  /** How many entries the list had. */
  readonly listed: number;
  /** How many resources were in scope before the run. */
  readonly inScope: number;
  /** With `dryRun`: why a real run would be refused (see `maxRemove`); absent when it would run. */
  readonly refusal?: string;
}

/** Entries are loaded into the temporary table this many at a time. */
const RECONCILE_CHUNK = 1000;

const LIST = sql.table('agent_discovery_reconcile');

/** A list entry as the temporary table takes it. */
interface ListRow {
  rsc_id: number | null;
  external_id: string | null;
  modified: string | null;
}

/** Loads the host's list into a temporary table, `RECONCILE_CHUNK` entries per statement; the count. */
async function loadList(db: Kysely<PushDatabase>, current: Iterable<unknown> | AsyncIterable<unknown>): Promise<number> {
  await sql`DROP TABLE IF EXISTS pg_temp.agent_discovery_reconcile`.execute(db);
  await sql`CREATE TEMP TABLE agent_discovery_reconcile (rsc_id bigint, external_id text, modified timestamptz) ON COMMIT DROP`.execute(db);
  let chunk: ListRow[] = [];
  let count = 0;
  const flush = async () => {
    if (!chunk.length) return;
    // String ids are resolved to rsc ids on the way in, a chunk at a time.
    await sql`
      INSERT INTO ${LIST} (rsc_id, external_id, modified)
      SELECT coalesce(u.rsc_id, m.rsc_id), u.external_id, u.modified
      FROM unnest(${chunk.map((r) => r.rsc_id)}::bigint[], ${chunk.map((r) => r.external_id)}::text[], ${chunk.map((r) => r.modified)}::timestamptz[])
        AS u(rsc_id, external_id, modified)
      LEFT JOIN agent_discovery_external_id m ON m.external_id = u.external_id`.execute(db);
    chunk = [];
  };
  for await (const raw of current) {
    const parsed = reconcileEntry.safeParse(raw);
    if (!parsed.success) throw inputError('reconcile', parsed.error, ['current', count]);
    const { id, modified } = parsed.data;
    chunk.push({ rsc_id: typeof id === 'number' ? id : null, external_id: typeof id === 'string' ? id : null, modified: modified?.toISOString() ?? null });
    count += 1;
    if (chunk.length >= RECONCILE_CHUNK) await flush();
  }
  await flush();
  await sql`CREATE INDEX ON ${LIST} (rsc_id)`.execute(db);
  await sql`ANALYZE ${LIST}`.execute(db);
  return count;
}

/** The categories a scoped run is limited to, as a condition on `r`; none means every resource but categories and predicates. */
async function scopeCondition(db: Kysely<PushDatabase>, scope: ReconcileScope): Promise<RawBuilder<SqlBool>> {
  const content = sql<SqlBool>`NOT ${isModelVocabulary('r')}`;
  if (!scope.categories) return content;
  const ids: number[] = [];
  for (const [i, ref] of scope.categories.entries()) {
    const found = await resolveRef(db, 'reconcile', `categories.${i}`, ref, sql<{ is_category: boolean }>`EXISTS (SELECT 1 FROM category c WHERE c.id = r.id) AS "is_category"`);
    if (!found.row.is_category) throw new ContentPushError('reconcile', 'not_found', `categories.${i}`, `resource ${found.id} is not a category`);
    ids.push(found.id);
  }
  return sql<SqlBool>`(${content} AND r.category_id IN ${categorySubtree(ids)})`;
}

/**
 * Why removing `removing` of `inScope` resources exceeds `limit`, or undefined when it may go ahead:
 * more than the count, more than the share (rounded down) of what is in scope, or anything at all
 * when the list is empty and the limit is not `'100%'`.
 */
export function removalRefusal(removing: number, inScope: number, listed: number, limit: RemoveLimit): string | undefined {
  if (removing === 0) return undefined;
  const share = typeof limit === 'string' ? Number(limit.slice(0, -1)) : undefined;
  const said = typeof limit === 'string' ? limit : String(limit);
  const what = `${removing.toLocaleString('en')} of the ${inScope.toLocaleString('en')} resources in scope`;
  if (listed === 0 && share !== 100) return `the list is empty: it would remove all ${what}; pass maxRemove '100%' to empty the scope on purpose`;
  const allowed = share === undefined ? limit as number : Math.floor((inScope * share) / 100);
  if (removing <= allowed) return undefined;
  return `it would remove ${what}, more than maxRemove ${said} allows (${allowed.toLocaleString('en')}); check the list (dryRun shows what would go) or raise maxRemove`;
}

/** How many resources are in scope, and how many of them the list does not name. */
async function countScope(db: Kysely<PushDatabase>, inScope: RawBuilder<SqlBool>): Promise<{ inScope: number; absent: number }> {
  const { rows } = await sql<{ in_scope: string; absent: string }>`
    SELECT count(*) AS in_scope, count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM ${LIST} t WHERE t.rsc_id = r.id)) AS absent
    FROM rsc r WHERE ${inScope}`.execute(db);
  return { inScope: Number(rows[0]!.in_scope), absent: Number(rows[0]!.absent) };
}

const hostId = (row: { rsc_id: number | null; external_id: string | null }): ResourceId => row.external_id ?? Number(row.rsc_id);

/**
 * Removes (or with `dryRun` only lists) the resources `absent` holds for (a condition on `r`), in id
 * order, `RECONCILE_CHUNK` per statement: each statement stays short however many go, so none
 * outlives a statement time limit, while the whole run is still one transaction.
 *
 * ```sql
 * WITH gone AS (DELETE FROM rsc d WHERE d.id IN
 *     (SELECT r.id FROM rsc r WHERE <absent> AND r.id > $1 ORDER BY r.id LIMIT 1000) RETURNING d.id)
 *   SELECT gone.id AS rsc_id, m.external_id FROM gone LEFT JOIN agent_discovery_external_id m ON m.rsc_id = gone.id ORDER BY gone.id
 * ```
 */
async function removeAbsent(db: Kysely<PushDatabase>, absent: RawBuilder<SqlBool>, dryRun: boolean): Promise<ListRow[]> {
  const out: ListRow[] = [];
  for (let after = 0; ; ) {
    const batch = sql`SELECT r.id FROM rsc r WHERE ${absent} AND r.id > ${after} ORDER BY r.id LIMIT ${RECONCILE_CHUNK}`;
    const { rows } = dryRun
      ? await sql<ListRow>`
          SELECT b.id AS rsc_id, m.external_id FROM (${batch}) b LEFT JOIN agent_discovery_external_id m ON m.rsc_id = b.id ORDER BY b.id`.execute(db)
      : await sql<ListRow>`
          WITH gone AS (DELETE FROM rsc d WHERE d.id IN (${batch}) RETURNING d.id)
          SELECT gone.id AS rsc_id, m.external_id FROM gone LEFT JOIN agent_discovery_external_id m ON m.rsc_id = gone.id ORDER BY gone.id`.execute(db);
    out.push(...rows);
    if (rows.length < RECONCILE_CHUNK) return out;
    after = Number(rows[rows.length - 1]!.rsc_id);
  }
}

/**
 * Repairs drift after a failed or partial sync: every resource in scope that the host's list does not
 * name is removed; listed ones that are missing or whose `modified` differs are reported. A run that
 * would remove more than `maxRemove` allows removes nothing: a `remove_limit` error (with `dryRun`,
 * the result's `refusal`).
 *
 * ```sql
 * CREATE TEMP TABLE agent_discovery_reconcile (rsc_id bigint, external_id text, modified timestamptz) ON COMMIT DROP
 * INSERT INTO agent_discovery_reconcile SELECT … FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) …  -- per 1,000
 * SELECT … FROM agent_discovery_reconcile t JOIN rsc r ON r.id = t.rsc_id WHERE <modified differs>   -- stale
 * SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (…list…)) FROM rsc r WHERE <scope>   -- the guard
 * DELETE … WHERE <scope> AND NOT EXISTS (SELECT 1 FROM agent_discovery_reconcile t WHERE t.rsc_id = r.id)
 *   -- 1,000 at a time, see removeAbsent
 * ```
 */
export async function reconcile(
  db: Kysely<PushDatabase>,
  current: Iterable<unknown> | AsyncIterable<unknown>,
  scope: ReconcileScope,
): Promise<ReconcileResult> {
  const inScope = await scopeCondition(db, scope);
  const listed = await loadList(db, current);
  const missing = await sql<ListRow>`
    SELECT DISTINCT t.rsc_id, t.external_id FROM ${LIST} t
    WHERE t.rsc_id IS NULL OR NOT EXISTS (SELECT 1 FROM rsc r WHERE r.id = t.rsc_id)`.execute(db);
  const stale = await sql<ListRow>`
    SELECT DISTINCT t.rsc_id, t.external_id FROM ${LIST} t JOIN rsc r ON r.id = t.rsc_id
    WHERE t.modified IS NOT NULL AND date_trunc('milliseconds', r.modified) <> date_trunc('milliseconds', t.modified)`.execute(db);
  const counts = await countScope(db, inScope);
  const dryRun = scope.dryRun === true;
  const refusal = removalRefusal(counts.absent, counts.inScope, listed, scope.maxRemove ?? DEFAULT_MAX_REMOVE);
  if (refusal && !dryRun) throw new ContentPushError('reconcile', 'remove_limit', 'maxRemove', `${refusal}; nothing was removed`);
  const removed = await removeAbsent(db, sql<SqlBool>`${inScope} AND NOT EXISTS (SELECT 1 FROM ${LIST} t WHERE t.rsc_id = r.id)`, dryRun);
  await sql`DROP TABLE ${LIST}`.execute(db);
  return {
    removed: removed.map(hostId),
    stale: stale.rows.map(hostId),
    missing: missing.rows.map(hostId),
    listed,
    inScope: counts.inScope,
    ...(refusal ? { refusal } : {}),
  };
}
