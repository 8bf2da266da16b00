import type { Kysely } from 'kysely';
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
    return {
      table: true,
      stored: { description: row.description, noindex: row.noindex, sitemapUrl: row.sitemap_url, llmsNotes: row.llms_notes },
    };
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

/** Stores validated settings (`validateSettings`), replacing the row. */
export async function writeStoredSettings(db: Kysely<Database>, s: StoredSettings): Promise<void> {
  const values = { description: s.description, noindex: s.noindex, sitemap_url: s.sitemapUrl, llms_notes: s.llmsNotes, modified: new Date() };
  await db
    .insertInto(SETTINGS_TABLE)
    .values({ id: true, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}
