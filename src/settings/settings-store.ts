import { sql, type CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { StoredSettings } from './settings-schema.js';
import { reusableQuery } from '../db/reusable-query.js';

export const SETTINGS_TABLE = 'agent_discovery_settings';

/** Nothing stored: every setting comes from the options. */
export const NOTHING_STORED: StoredSettings = Object.freeze({ description: null, noindex: null, sitemapUrl: null, llmsNotes: null });

/** PostgreSQL's "undefined_table": a host schema kept without the plugin's migrations has no settings table. */
const isMissingTable = (error: unknown) => (error as { code?: unknown } | null)?.code === '42P01';

/** The databases whose settings table a read has found (it is never dropped by the plugin). */
const tableSeen = new WeakSet<Kysely<Database>>();

/**
 * Whether a read has found the settings table in this database: statements may then read a stored
 * setting themselves (see `SiteNoindex`) instead of a separate read before them.
 */
export function hasSettingsTable(db: Kysely<Database>): boolean {
  return tableSeen.has(db);
}

/**
 * The stored settings, read on every call (no cache: a change applies to the next request); `table:
 * false` when the database has no settings table (a host-kept schema without migration 0002).
 *
 * ```sql
 * select "description", "noindex", "sitemap_url", "llms_notes" from "agent_discovery_settings" where "id" = true
 * ```
 */
export async function readStoredSettings(db: Kysely<Database>): Promise<{ table: boolean; stored: StoredSettings }> {
  try {
    const [row] = (await db.executeQuery(settingsRead(db, {}))).rows;
    tableSeen.add(db);
    if (!row) return { table: true, stored: NOTHING_STORED };
    return { table: true, stored: storedFromRow({ setting_description: row.description, setting_noindex: row.noindex, setting_sitemap_url: row.sitemap_url, setting_llms_notes: row.llms_notes }) };
  } catch (error) {
    if (isMissingTable(error)) {
      tableSeen.delete(db);
      return { table: false, stored: NOTHING_STORED };
    }
    throw error;
  }
}

/** The statement of `readStoredSettings`, built once (`reusableQuery`). */
const settingsRead = reusableQuery((db: Kysely<Database>, _: Record<string, never>) =>
  db.selectFrom(SETTINGS_TABLE).select(['description', 'noindex', 'sitemap_url', 'llms_notes']).where('id', '=', true),
);

/** The stored settings as a statement selects them beside its own columns ({@link besideStoredSettings}). */
export interface StoredSettingsColumns {
  setting_description: string | null;
  setting_noindex: boolean | null;
  setting_sitemap_url: string | null;
  setting_llms_notes: string | null;
}

/** The stored settings of a row that selected them (null columns: not set, or no row stored). */
export function storedFromRow(row: StoredSettingsColumns): StoredSettings {
  return { description: row.setting_description, noindex: row.setting_noindex, sitemapUrl: row.setting_sitemap_url, llmsNotes: row.setting_llms_notes };
}

/**
 * `inner`'s rows with the stored settings beside them, in one statement (one round trip instead of
 * two). Always at least one row: with no row of `inner`, one row whose `inner` columns are null. Use
 * only once {@link hasSettingsTable}; `inner` reads the site noindex setting itself (`{ storedElse }`).
 *
 * ```sql
 * select s.description as setting_description, …, x.* from (select 1) as one
 * left join agent_discovery_settings as s on s.id = true
 * left join lateral (<inner>) as x on true
 * ```
 */
export function besideStoredSettings<O>(
  db: Kysely<Database>,
  // Any source tables: only its output columns matter here.
  inner: SelectQueryBuilder<any, any, O>,
): { compile(): CompiledQuery<StoredSettingsColumns & { [K in keyof O]: O[K] | null }> } {
  return db
    .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('one'))
    .leftJoin(`${SETTINGS_TABLE} as s`, (join) => join.on('s.id', '=', true))
    .leftJoinLateral(inner.as('x'), (join) => join.onTrue())
    .select(['s.description as setting_description', 's.noindex as setting_noindex', 's.sitemap_url as setting_sitemap_url', 's.llms_notes as setting_llms_notes'])
    .selectAll('x');
}

/** Stores validated settings (`validateSettings`), replacing the row. */
export async function writeStoredSettings(db: Kysely<Database>, s: StoredSettings): Promise<void> {
  const values = { description: s.description, noindex: s.noindex, sitemap_url: s.sitemapUrl, llms_notes: s.llmsNotes, modified: new Date() };
  await db
    .insertInto(SETTINGS_TABLE)
    .values({ id: true, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}
