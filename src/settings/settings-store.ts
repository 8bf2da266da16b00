import { sql, type CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import { jsonFromStored, NOTHING_STORED, storedFromJson, type StoredSettings } from './settings-schema.js';
import { reusableQuery } from '../db/reusable-query.js';
import { contentVersionColumn, type ContentSeen } from '../content/content-version.js';

const SETTINGS_TABLE = 'agent_discovery_settings';

/** What the settings table holds now, with the version of that content. */
export interface SettingsSnapshot {
  /** False when the database has no settings table (a host-kept schema without the plugin's migrations). */
  readonly table: boolean;
  readonly stored: StoredSettings;
  /** The row's version (`'0'` without a row or a table); see `EffectiveSettings.version`. */
  readonly version: string;
}

/** Nothing stored. */
const EMPTY: SettingsSnapshot = Object.freeze({ table: true, stored: NOTHING_STORED, version: '0' });
const NO_TABLE: SettingsSnapshot = Object.freeze({ table: false, stored: NOTHING_STORED, version: '0' });

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
 * The stored settings, read on every call (a change applies to the next request; only the parse of
 * an unchanged version is reused); `table: false` when the database has no settings table.
 *
 * ```sql
 * select "settings", "version"::text as "version", <content version>, now() … (see readSiteSnapshot)
 * ```
 */
export async function readSettingsSnapshot(db: Kysely<Database>): Promise<SettingsSnapshot> {
  return (await readSiteSnapshot(db)).settings;
}

/** The settings snapshot and what the same statement saw of the content (see {@link readSiteSnapshot}). */
export interface SiteSnapshot {
  readonly settings: SettingsSnapshot;
  /** The content version and the database's clock (version null: no version table, or no settings table). */
  readonly content: ContentSeen;
}

/**
 * The stored settings, the content version and the database's clock, in one statement (the one a
 * settings read costs anyway): what a cached build is keyed by (see src/cache/build-cache.ts).
 *
 * ```sql
 * select s.settings, s.version::text as version, (select v.version::text from agent_discovery_content_version v where v.id) as content_version, now() as now
 * from (select 1 as one) as one left join agent_discovery_settings as s on s.id = true
 * ```
 */
export async function readSiteSnapshot(db: Kysely<Database>): Promise<SiteSnapshot> {
  try {
    const [row] = (await db.executeQuery(settingsRead(db, {}))).rows;
    tableSeen.add(db);
    return {
      settings: snapshotOf(db, row && row.version !== null ? { setting_values: row.settings, settings_version: row.version } : null),
      content: { version: row?.content_version ?? null, now: row ? new Date(row.now) : new Date() },
    };
  } catch (error) {
    if (isMissingTable(error)) {
      tableSeen.delete(db);
      return { settings: NO_TABLE, content: { version: null, now: new Date() } };
    }
    throw error;
  }
}

/** The stored settings alone (see {@link readSettingsSnapshot}). */
export async function readStoredSettings(db: Kysely<Database>): Promise<{ table: boolean; stored: StoredSettings }> {
  return readSettingsSnapshot(db);
}

/** The statement of `readSettingsSnapshot`, built once (`reusableQuery`). */
const settingsRead = reusableQuery((db: Kysely<Database>, _: Record<string, never>) =>
  db
    .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('one'))
    .leftJoin(`${SETTINGS_TABLE} as s`, (join) => join.on('s.id', '=', true))
    .select([
      's.settings as settings',
      sql<string | null>`s.version::text`.as('version'),
      contentVersionColumn().as('content_version'),
      sql<Date>`now()`.as('now'),
    ]),
);

/** The stored settings as a statement selects them beside its own columns ({@link besideStoredSettings}). */
export interface StoredSettingsColumns {
  setting_values: unknown;
  settings_version: string | null;
}

/** The last snapshot parsed per database: the parse is reused while the version holds. */
const lastSnapshot = new WeakMap<Kysely<Database>, SettingsSnapshot>();

/** The snapshot of a row that selected the settings (null columns: no row stored). */
export function snapshotOf(db: Kysely<Database>, row: StoredSettingsColumns | null): SettingsSnapshot {
  if (!row || row.settings_version === null) return EMPTY;
  const last = lastSnapshot.get(db);
  if (last && last.version === row.settings_version) return last;
  const snapshot = Object.freeze({ table: true, stored: storedFromJson(row.setting_values), version: row.settings_version });
  lastSnapshot.set(db, snapshot);
  return snapshot;
}

/**
 * `inner`'s rows with the stored settings beside them, in one statement (one round trip instead of
 * two). Always at least one row: with no row of `inner`, one row whose `inner` columns are null. Use
 * only once {@link hasSettingsTable}; `inner` reads the site noindex setting itself (`{ storedElse }`).
 *
 * ```sql
 * select s.settings as setting_values, s.version::text as settings_version, x.* from (select 1) as one
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
    .select(['s.settings as setting_values', sql<string | null>`s.version::text`.as('settings_version')])
    .selectAll('x');
}

/**
 * Stores validated settings (`validateSettings`), replacing the row; its trigger gives the row a new
 * version.
 */
export async function writeStoredSettings(db: Kysely<Database>, s: StoredSettings): Promise<void> {
  const settings = JSON.stringify(jsonFromStored(s));
  const values = { settings: sql<unknown>`${settings}::jsonb`, modified: new Date() };
  await db
    .insertInto(SETTINGS_TABLE)
    .values({ id: true, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}
