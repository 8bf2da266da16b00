import { sql, type SqlBool } from 'kysely';
import type { AgentContext } from '../context.js';
import { summaryItem } from '../representations/summary-item.js';
import { searchResources } from '../content/search.js';
import { anonymousVisible, indexable, notMeta } from '../content/visibility.js';
import type { SiteProbe } from './site-probe.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import { MEDIA } from '../links/site-links.js';
import type { EffectiveSettings } from '../settings/effective-settings.js';
import { SETTINGS, SETTING_NAMES, type SettingName } from '../settings/settings-schema.js';
import { adminBytes, adminDate } from './admin-format.js';


/** One row of the effective-settings table. */
export interface SettingRow {
  name: string;
  label: string;
  value: string;
  source: string;
}

export function settingRows(s: EffectiveSettings): SettingRow[] {
  const shown = (name: SettingName): string => {
    const v = s[name] as string | boolean | undefined;
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    if (v !== undefined) return v;
    // What is published without a text of the site's own: the built-in text, where it goes.
    if (name === 'description') return `${s.defaults.description} (built-in: the summary line of llms.txt; the other documents carry no description)`;
    if (name === 'llmsNotes') return `${s.defaults.llmsNotes} (built-in)`;
    return name.startsWith('contentSignal') ? '(not set)' : '(none)';
  };
  return SETTING_NAMES.map((name) => ({ name, label: SETTINGS[name].label, value: shown(name), source: s.source[name] }));
}

/** The discovery documents and their expected media type (a parameter-free prefix). */
function documents(ctx: AgentContext): { path: string; type: string }[] {
  return [
    { path: PATHS.llmsTxt.url(), type: MEDIA.llmsTxt },
    { path: PATHS.apiHelp.url(), type: MEDIA.html },
    { path: PATHS.openapi.url(), type: MEDIA.openapi },
    { path: PATHS.apiCatalog.url(), type: MEDIA.linkset },
    { path: PATHS.ard.url(), type: MEDIA.ard },
    { path: PATHS.apiRoot.url(), type: 'application/json' },
    ...(ctx.options.robotsTxt ? [{ path: PATHS.robotsTxt.url(), type: 'text/plain' }] : []),
    ...(ctx.options.mcp ? [{ path: PATHS.mcpServerCard(ctx.options.mcp.path).url(), type: MEDIA.mcpServerCard }] : []),
  ];
}

/** One discovery document as the site answers it now. */
export interface DocumentStatus {
  path: string;
  url: string;
  ok: boolean;
  status: string;
  type: string;
  bytes: number | null;
  /** The size as a person reads it ("3.0 KiB"); empty when the document could not be fetched. */
  size: string;
}

const mediaType = (value: string) => value.split(';')[0]!.trim().toLowerCase();

/**
 * Asks the site for every discovery document through `probe` (the configured `baseUrl`, or the app
 * itself in-process: never an address a request names), as an agent would; `base` builds the links.
 */
export async function documentStatuses(ctx: AgentContext, base: string, probe: SiteProbe): Promise<DocumentStatus[]> {
  try {
    return await Promise.all(
      documents(ctx).map(async ({ path, type }) => {
        const url = absoluteUrl(base, path);
        const r = await probe.get(path);
        if (r.error !== undefined) return { path, url, ok: false, status: r.error, type: '', bytes: null, size: '' };
        const ok = r.status === 200 && mediaType(r.type) === mediaType(type);
        return { path, url, ok, status: String(r.status), type: r.type, bytes: r.bytes, size: adminBytes(r.bytes) };
      }),
    );
  } finally {
    probe.close();
  }
}

/** How many resources agents can reach, by the plugin's rules. */
export interface ResourceCounts {
  total: number;
  public: number;
  indexable: number;
  listed: number;
}

/**
 * ```sql
 * select count(*) as "total", count(*) filter (where <anonymous-visible>) as "public",
 *   count(*) filter (where <anonymous-visible> and <indexable>) as "indexable",
 *   count(*) filter (where <anonymous-visible> and <indexable> and <not meta>) as "listed" from "rsc" as "r"
 * ```
 */
export async function resourceCounts(ctx: AgentContext, siteNoindex: boolean): Promise<ResourceCounts> {
  const visible = anonymousVisible('r');
  const both = sql<SqlBool>`${visible} AND ${indexable(siteNoindex, 'r')}`;
  const row = await ctx.db
    .selectFrom('rsc as r')
    .select([
      sql<string>`count(*)`.as('total'),
      sql<string>`count(*) FILTER (WHERE ${visible})`.as('public'),
      sql<string>`count(*) FILTER (WHERE ${both})`.as('indexable'),
      sql<string>`count(*) FILTER (WHERE ${both} AND ${notMeta('r')})`.as('listed'),
    ])
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), public: Number(row.public), indexable: Number(row.indexable), listed: Number(row.listed) };
}

/**
 * The newest resources as agents see them: the items of the first page of `search?sort=newest`, built
 * by the same function as the facade's.
 */
export async function newestAsAgentsSeeThem(ctx: AgentContext, base: string, siteNoindex: boolean, count = 10) {
  const rows = await searchResources(ctx.db, { sort: 'newest', siteNoindex, offset: 0, limit: count });
  const ic = { base, options: ctx.options, requestedLanguage: ctx.options.defaultLanguage };
  return rows.map((row) => {
    const item = summaryItem(ic, row);
    return { ...item, published: adminDate(item.publication_start) };
  });
}
