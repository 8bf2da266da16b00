import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ResolvedOptions } from '../options.js';
import type { SiteNoindex } from '../content/visibility.js';
import { hasSettingsTable, readStoredSettings } from './settings-store.js';
import { SETTING_NAMES, type SettingName, type StoredSettings } from './settings-schema.js';
import { DEFAULT_CRAWLER_RULES } from './crawler-rules.js';
import { defaultDescription, defaultLlmsNotes } from './default-texts.js';

/** What reading the settings needs of the plugin's context (its options and database). */
export interface SettingsReader {
  readonly options: ResolvedOptions;
  readonly db: Kysely<Database>;
}

/** Where an effective setting comes from: the settings table, a factory option, or neither (the built-in default). */
export type SettingSource = 'database' | 'options' | 'default';

/** The settings in force for one request. */
export interface EffectiveSettings {
  description: string | undefined;
  noindex: boolean;
  sitemapUrl: string | undefined;
  llmsNotes: string | undefined;
  /** The Content Signals (undefined: set neither in the table nor by the `contentSignals` option). */
  contentSignalSearch: boolean | undefined;
  contentSignalAiInput: boolean | undefined;
  contentSignalAiTrain: boolean | undefined;
  /** The `Allow:`/`Disallow:` lines of the plugin's robots.txt (default `Allow: /`). */
  crawlerRules: string;
  source: Record<SettingName, SettingSource>;
  /** False when the database has no settings table (only the options apply). */
  table: boolean;
  /** What the table holds (null: not set there). */
  stored: StoredSettings;
  /** The built-in texts used when no description or notes are set (see `default-texts.ts`). */
  defaults: { description: string; llmsNotes: string };
}

/** The empty string stored for "set to nothing" is no value. */
const present = (s: string | null | undefined): string | undefined => (s ? s : undefined);

/**
 * The settings in force now: each stored value, else the factory option, else the built-in default.
 * Read from the database on every call, so an administrator's change applies to the next request
 * without a restart. Every document and header that uses a setting reads it here.
 */
export async function effectiveSettings(ctx: SettingsReader): Promise<EffectiveSettings> {
  const { table, stored } = await readStoredSettings(ctx.db);
  return mergeSettings(ctx.options, table, stored);
}

/** The settings in force given what the table holds: each stored value, else the factory option, else the built-in default. */
export function mergeSettings(o: ResolvedOptions, table: boolean, stored: StoredSettings): EffectiveSettings {
  const fromOptions: Record<SettingName, unknown> = {
    description: o.description,
    noindex: o.noindex ? true : undefined,
    sitemapUrl: o.sitemapUrl,
    llmsNotes: o.llmsNotes,
    contentSignalSearch: o.contentSignals.search,
    contentSignalAiInput: o.contentSignals['ai-input'],
    contentSignalAiTrain: o.contentSignals['ai-train'],
    crawlerRules: undefined,
  };
  const source = Object.fromEntries(
    SETTING_NAMES.map((name) => [name, stored[name] !== null ? 'database' : fromOptions[name] !== undefined ? 'options' : 'default']),
  ) as Record<SettingName, SettingSource>;
  return {
    description: stored.description !== null ? present(stored.description) : o.description,
    noindex: stored.noindex ?? o.noindex,
    sitemapUrl: stored.sitemapUrl !== null ? present(stored.sitemapUrl) : o.sitemapUrl,
    llmsNotes: stored.llmsNotes !== null ? present(stored.llmsNotes) : o.llmsNotes,
    contentSignalSearch: stored.contentSignalSearch ?? o.contentSignals.search,
    contentSignalAiInput: stored.contentSignalAiInput ?? o.contentSignals['ai-input'],
    contentSignalAiTrain: stored.contentSignalAiTrain ?? o.contentSignals['ai-train'],
    crawlerRules: present(stored.crawlerRules) ?? DEFAULT_CRAWLER_RULES,
    source,
    table,
    stored,
    defaults: { description: defaultDescription(o.siteTitle), llmsNotes: defaultLlmsNotes(o.siteTitle) },
  };
}

/**
 * The options with the effective settings in place of `description`, `noindex`, `sitemapUrl` and
 * `llmsNotes`, for code that takes options: `const options = await effectiveOptions(ctx)`.
 */
export async function effectiveOptions(ctx: SettingsReader): Promise<ResolvedOptions> {
  return optionsWith(ctx.options, await effectiveSettings(ctx));
}

/** The options with the given effective settings in place (see {@link effectiveOptions}). */
export function optionsWith(options: ResolvedOptions, s: EffectiveSettings): ResolvedOptions {
  // The settings change rarely: the frozen options built last time for the same values are returned again.
  const last = lastOptionsWith.get(options);
  if (last && last.noindex === s.noindex && last.description === s.description && last.sitemapUrl === s.sitemapUrl && last.llmsNotes === s.llmsNotes) {
    return last.result;
  }
  const result = buildOptionsWith(options, s);
  lastOptionsWith.set(options, { noindex: s.noindex, description: s.description, sitemapUrl: s.sitemapUrl, llmsNotes: s.llmsNotes, result });
  return result;
}

/** Per options object, the settings `optionsWith` was last given and what it built. */
const lastOptionsWith = new WeakMap<ResolvedOptions, Pick<EffectiveSettings, 'noindex' | 'description' | 'sitemapUrl' | 'llmsNotes'> & { result: ResolvedOptions }>();

function buildOptionsWith(options: ResolvedOptions, s: EffectiveSettings): ResolvedOptions {
  const { description: _d, sitemapUrl: _s, llmsNotes: _l, ...rest } = options;
  return Object.freeze({
    ...rest,
    noindex: s.noindex,
    ...(s.description !== undefined ? { description: s.description } : {}),
    ...(s.sitemapUrl !== undefined ? { sitemapUrl: s.sitemapUrl } : {}),
    ...(s.llmsNotes !== undefined ? { llmsNotes: s.llmsNotes } : {}),
  });
}

/** A string that changes whenever an effective setting does (for per-base caches of built documents). */
export function settingsKey(options: ResolvedOptions): string {
  let key = settingsKeys.get(options);
  if (key === undefined) {
    key = JSON.stringify([options.description ?? null, options.noindex, options.sitemapUrl ?? null, options.llmsNotes ?? null]);
    settingsKeys.set(options, key);
  }
  return key;
}

/** The key of each (frozen) options object seen: `optionsWith` hands the same object out while the settings hold. */
const settingsKeys = new WeakMap<ResolvedOptions, string>();

/**
 * The site's noindex setting for a statement: once the settings table is known to exist, the
 * statement reads the stored value itself (one round trip instead of two, still current on every
 * request); until then (or in a database without the table) it is read first, as a boolean.
 */
export async function siteNoindexForQuery(ctx: SettingsReader): Promise<SiteNoindex> {
  return hasSettingsTable(ctx.db) ? { storedElse: ctx.options.noindex } : (await effectiveSettings(ctx)).noindex;
}
