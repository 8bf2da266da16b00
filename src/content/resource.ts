import { sql, type Kysely } from 'kysely';
import { contentVersionColumn } from './content-version.js';
import type { Database } from '../db/schema.js';
import { anonymousVisible } from './visibility.js';
import { byRef, type ResourceRef } from './resource-ref.js';
import { fromResourcesWithCategory, SUMMARY_COLUMNS } from './summaries.js';
import { categoryChainColumn } from './composable-resources.js';
import { reusableQuery } from '../db/reusable-query.js';
import { compositionFingerprint, ownVersions } from './composition-reads.js';

/**
 * One anonymous-visible resource by id or unique name, with its category and medium; `undefined`
 * for missing, private, unpublished and out-of-window resources alike. Noindex resources are
 * readable here (direct reads allow them).
 */
export async function readVisibleResource(db: Kysely<Database>, ref: ResourceRef, exact?: ExactKeyReads) {
  const { rows } = await db.executeQuery(reusableVisibleResource(db, { ref, exact: exact?.predicates ?? '', reads: exact?.reads }));
  return rows[0];
}

/**
 * What a read selects for exact keys of its compositions (over tables only): the recorded reads of the
 * reference's last compositions (`readsParameter`) and the credit predicates (a JSON array, a shape of
 * the statement: computed once per options by the caller).
 */
export interface ExactKeyReads {
  readonly reads: string | undefined;
  readonly predicates: string;
}

/**
 * Every column of a resource's read (its summary, content, licensing, medium and category chain),
 * from `rsc as r`, its visible category `cat` and its medium `m`, with no condition yet: a caller adds
 * the rule it reads under (`anonymousVisible`, or the search's `listable`).
 */
export function resourceReadColumns(db: Kysely<Database>) {
  return fromResourcesWithCategory(db)
    .leftJoin('medium as m', 'm.rsc_id', 'r.id')
    .select(SUMMARY_COLUMNS)
    .select([
      'r.body',
      'r.blocks',
      'r.props',
      'r.publication_end',
      'r.created',
      'r.license',
      'r.attribution',
      'm.mime as medium_mime',
      'm.width as medium_width',
      'm.height as medium_height',
      'm.size as medium_size',
      'm.filename as medium_filename',
      // Template selection's category chain, read here rather than by a second statement.
      categoryChainColumn('r').as('category_chain'),
    ]);
}

/** The statement of {@link readVisibleResource}. */
function visibleResourceQuery(db: Kysely<Database>, { ref }: { ref: ResourceRef }) {
  return resourceReadColumns(db).where(anonymousVisible('r')).where(byRef('r', ref));
}

/**
 * The statement of {@link readVisibleResource}: {@link visibleResourceQuery} with what the read saw of
 * the content (for the build cache, which keeps its composed Markdown) and the stored settings the
 * composition uses (no read of their own): primary-key reads of the plugin's own one-row tables; with
 * `exact` (the credit predicates as JSON; over tables only) the row versions of what its compositions
 * show (`ownVersions`, and `compositionFingerprint` of `reads`, what its last compositions read).
 */
function visibleResourceReadQuery(db: Kysely<Database>, { ref, exact, reads }: { ref: ResourceRef; exact: string; reads?: string | undefined }) {
  const predicates: string[] = exact ? JSON.parse(exact) : [];
  return visibleResourceQuery(db, { ref })
    .select([
      contentVersionColumn().as('content_version'),
      sql<Date>`now()`.as('db_now'),
      sql<unknown>`(SELECT s.settings FROM agent_discovery_settings s WHERE s.id)`.as('setting_values'),
      sql<string | null>`(SELECT s.version::text FROM agent_discovery_settings s WHERE s.id)`.as('settings_version'),
      (exact ? ownVersions() : sql<string | null>`NULL::text`).as('own_versions'),
      // The server's start: a restored backup or a failover starts another one (row versions may then repeat).
      (exact ? sql<string | null>`pg_postmaster_start_time()::text` : sql<string | null>`NULL::text`).as('server_started'),
      (exact ? compositionFingerprint('r', reads, predicates) : sql<string | null>`NULL::text`).as('composition_fingerprint'),
    ]);
}

const reusableVisibleResource = reusableQuery(visibleResourceReadQuery, ['exact']);
const reusableResourceRead = reusableQuery(visibleResourceQuery);

/**
 * The resource read's content statement alone (without the one-row reads of the plugin's own tables):
 * what `doctor` explains, also before `migrate` has created those tables.
 */
export async function readVisibleResourceContent(db: Kysely<Database>, ref: ResourceRef) {
  const { rows } = await db.executeQuery(reusableResourceRead(db, { ref }));
  return rows[0];
}

/** A row of {@link readVisibleResource} as it comes back: the resource and what the statement saw (content version, time, settings). */
export type VisibleResourceRead = NonNullable<Awaited<ReturnType<typeof readVisibleResource>>>;

/** A row of {@link readVisibleResource}, as Kysely infers it: the resource's own columns. */
export type ResourceRow = Omit<VisibleResourceRead, 'content_version' | 'db_now' | 'setting_values' | 'settings_version' | 'own_versions' | 'server_started' | 'composition_fingerprint'>;
