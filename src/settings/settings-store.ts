import { sql, type CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { StoredSettings } from './settings-schema.js';
import { reusableQuery } from '../db/reusable-query.js';

const SETTINGS_TABLE = 'agent_discovery_settings';

/** Nothing stored: every setting comes from the options. */
export const NOTHING_STORED: StoredSettings = Object.freeze({
  description: null,
  noindex: null,
  sitemapUrl: null,
  llmsNotes: null,
  contentSignalSearch: null,
  contentSignalAiInput: null,
  contentSignalAiTrain: null,
  crawlerRules: null,
});

/** The settings columns, in the order statements select them. */
const COLUMNS = ['description', 'noindex', 'sitemap_url', 'llms_notes', 'content_signal_search', 'content_signal_ai_input', 'content_signal_ai_train', 'crawler_rules'] as const;

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
 * select "description", "noindex", "sitemap_url", "llms_notes", "content_signal_search", …, "crawler_rules" from "agent_discovery_settings" where "id" = true
 * ```
 */
export async function readStoredSettings(db: Kysely<Database>): Promise<{ table: boolean; stored: StoredSettings }> {
  try {
    const [row] = (await db.executeQuery(settingsRead(db, {}))).rows;
    tableSeen.add(db);
    if (!row) return { table: true, stored: NOTHING_STORED };
    return {
      table: true,
      stored: storedFromRow({
        setting_description: row.description,
        setting_noindex: row.noindex,
        setting_sitemap_url: row.sitemap_url,
        setting_llms_notes: row.llms_notes,
        setting_content_signal_search: row.content_signal_search,
        setting_content_signal_ai_input: row.content_signal_ai_input,
        setting_content_signal_ai_train: row.content_signal_ai_train,
        setting_crawler_rules: row.crawler_rules,
      }),
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
  db.selectFrom(SETTINGS_TABLE).select(COLUMNS).where('id', '=', true),
);

/** The stored settings as a statement selects them beside its own columns ({@link besideStoredSettings}). */
export interface StoredSettingsColumns {
  setting_description: string | null;
  setting_noindex: boolean | null;
  setting_sitemap_url: string | null;
  setting_llms_notes: string | null;
  setting_content_signal_search: boolean | null;
  setting_content_signal_ai_input: boolean | null;
  setting_content_signal_ai_train: boolean | null;
  setting_crawler_rules: string | null;
}

/** The stored settings of a row that selected them (null columns: not set, or no row stored). */
export function storedFromRow(row: StoredSettingsColumns): StoredSettings {
  return {
    description: row.setting_description,
    noindex: row.setting_noindex,
    sitemapUrl: row.setting_sitemap_url,
    llmsNotes: row.setting_llms_notes,
    contentSignalSearch: row.setting_content_signal_search,
    contentSignalAiInput: row.setting_content_signal_ai_input,
    contentSignalAiTrain: row.setting_content_signal_ai_train,
    crawlerRules: row.setting_crawler_rules,
  };
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
    .select([
      's.description as setting_description',
      's.noindex as setting_noindex',
      's.sitemap_url as setting_sitemap_url',
      's.llms_notes as setting_llms_notes',
      's.content_signal_search as setting_content_signal_search',
      's.content_signal_ai_input as setting_content_signal_ai_input',
      's.content_signal_ai_train as setting_content_signal_ai_train',
      's.crawler_rules as setting_crawler_rules',
    ])
    .selectAll('x');
}

/** Stores validated settings (`validateSettings`), replacing the row. */
export async function writeStoredSettings(db: Kysely<Database>, s: StoredSettings): Promise<void> {
  const values = {
    description: s.description,
    noindex: s.noindex,
    sitemap_url: s.sitemapUrl,
    llms_notes: s.llmsNotes,
    content_signal_search: s.contentSignalSearch,
    content_signal_ai_input: s.contentSignalAiInput,
    content_signal_ai_train: s.contentSignalAiTrain,
    crawler_rules: s.crawlerRules,
    modified: new Date(),
  };
  await db
    .insertInto(SETTINGS_TABLE)
    .values({ id: true, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}
