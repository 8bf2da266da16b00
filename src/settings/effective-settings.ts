import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ResolvedOptions } from '../options.js';
import type { SiteNoindex } from '../content/visibility.js';
import { hasSettingsTable, readSettingsSnapshot, type SettingsSnapshot } from './settings-store.js';
import { SETTINGS, SETTING_NAMES, type EffectiveValue, type SettingName, type StoredSettings } from './settings-schema.js';
import { defaultDescription, defaultLlmsNotes } from './default-texts.js';
import { parseSiteLicense } from './site-license.js';

/** What reading the settings needs of the plugin's context (its options and database). */
export interface SettingsReader {
  readonly options: ResolvedOptions;
  readonly db: Kysely<Database>;
}

/** Where an effective setting comes from: the settings table, a factory option, or neither (the built-in default). */
export type SettingSource = 'database' | 'options' | 'default';

/** The settings in force for one request: each setting's value (see `SETTINGS` in settings-schema.ts), and where each comes from. */
export type EffectiveSettings = { readonly [N in SettingName]: EffectiveValue<N> } & {
  readonly source: Readonly<Record<SettingName, SettingSource>>;
  /** False when the database has no settings table (only the options apply). */
  readonly table: boolean;
  /** What the table holds (null: not set there). */
  readonly stored: StoredSettings;
  /**
   * The snapshot's version: changes whenever a stored setting does (a trigger sets it on every write
   * of the row, from the clock, so a restored backup never brings back a version seen since). `'0'`
   * with nothing stored.
   */
  readonly version: string;
  /** The built-in texts used when no description or notes are set (see `default-texts.ts`). */
  readonly defaults: { readonly description: string; readonly llmsNotes: string };
  /** The options with these settings in place of the options they override (see {@link optionsWith}). */
  readonly options: ResolvedOptions;
};

/**
 * The settings in force now: each stored value, else the factory option, else the built-in default.
 * Read from the database on every call, so an administrator's change applies to the next request
 * without a restart. Every document and header that uses a setting reads it here.
 */
export async function effectiveSettings(ctx: SettingsReader): Promise<EffectiveSettings> {
  return mergeSettings(ctx.options, await readSettingsSnapshot(ctx.db));
}

/** Per options object, the effective settings of the last snapshot merged (the settings change rarely). */
const lastMerged = new WeakMap<ResolvedOptions, EffectiveSettings>();

/**
 * The settings in force given a snapshot of the table: each stored value, else the factory option,
 * else the built-in default. The same object is returned while the snapshot's version holds.
 */
export function mergeSettings(o: ResolvedOptions, snapshot: SettingsSnapshot): EffectiveSettings {
  const last = lastMerged.get(o);
  if (last && last.version === snapshot.version && last.table === snapshot.table) return last;
  const merged = buildEffective(o, snapshot);
  lastMerged.set(o, merged);
  return merged;
}

/** The empty string stored for "set to nothing" is no value. */
const present = (v: unknown): unknown => (v === '' ? undefined : v);

function buildEffective(o: ResolvedOptions, { table, stored, version }: SettingsSnapshot): EffectiveSettings {
  const values: Record<string, unknown> = {};
  const source: Record<string, SettingSource> = {};
  for (const name of SETTING_NAMES) {
    const definition = SETTINGS[name];
    const fromOptions = (definition.fromOptions as (o: ResolvedOptions) => unknown)(o);
    if (stored[name] !== null) {
      values[name] = present(stored[name]);
      source[name] = 'database';
    } else if (fromOptions !== undefined) {
      values[name] = fromOptions;
      source[name] = 'options';
    } else {
      values[name] = definition.builtIn;
      source[name] = 'default';
    }
  }
  const settings = values as { [N in SettingName]: EffectiveValue<N> };
  const options = optionsWith(o, settings);
  settingsVersions.set(options, `${table ? 't' : 'f'}${version}`);
  return Object.freeze({
    ...settings,
    source: Object.freeze(source) as Record<SettingName, SettingSource>,
    table,
    stored,
    version,
    defaults: Object.freeze({ description: defaultDescription(o.siteTitle), llmsNotes: defaultLlmsNotes(o.siteTitle) }),
    options,
  });
}

/**
 * The options with the effective settings in place of `description`, `noindex`, `sitemapUrl`,
 * `llmsNotes`, `siteLicense` and `siteCopyright`, for code that takes options: `const options = await
 * effectiveOptions(ctx)`. The same frozen object while the settings hold.
 */
export async function effectiveOptions(ctx: SettingsReader): Promise<ResolvedOptions> {
  return (await effectiveSettings(ctx)).options;
}

function optionsWith(options: ResolvedOptions, s: { [N in SettingName]: EffectiveValue<N> }): ResolvedOptions {
  const { description: _d, sitemapUrl: _s, llmsNotes: _l, siteLicense: _li, siteCopyright: _c, ...rest } = options;
  const license = s.siteLicense !== undefined ? parseSiteLicense(s.siteLicense) : undefined;
  return Object.freeze({
    ...rest,
    noindex: s.noindex,
    ...(s.description !== undefined ? { description: s.description } : {}),
    ...(s.sitemapUrl !== undefined ? { sitemapUrl: s.sitemapUrl } : {}),
    ...(s.llmsNotes !== undefined ? { llmsNotes: s.llmsNotes } : {}),
    ...(license?.ok && license.license ? { siteLicense: license.license } : {}),
    ...(s.siteCopyright !== undefined ? { siteCopyright: s.siteCopyright } : {}),
  });
}

/** The settings version each options object of {@link mergeSettings} was built with. */
const settingsVersions = new WeakMap<ResolvedOptions, string>();

/**
 * The version of the settings the options were built with, for caches of built documents (`'options'`
 * for options not built from a snapshot: the factory's own).
 */
export function settingsKey(options: ResolvedOptions): string {
  return settingsVersions.get(options) ?? 'options';
}

/**
 * The site's noindex setting for a statement: once the settings table is known to exist, the
 * statement reads the stored value itself (one round trip instead of two, still current on every
 * request); until then (or in a database without the table) it is read first, as a boolean.
 */
export async function siteNoindexForQuery(ctx: SettingsReader): Promise<SiteNoindex> {
  return hasSettingsTable(ctx.db) ? { storedElse: ctx.options.noindex } : (await effectiveSettings(ctx)).noindex;
}
