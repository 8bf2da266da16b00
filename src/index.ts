import type { Request, RequestHandler, Response, Router } from 'express';
import { createContext } from './context.js';
import type { ContentDatabase } from './db/connection.js';
import { openContent } from './db/open.js';
import { createLinkMiddleware, createSendMarkdownIfPreferred, startIndexNow } from './discovery/index.js';
import { createHeadLinks } from './links/head-links.js';
import { createResourceLinks, createSetResourceHeaders, type PageOptions, type ResourceLinksParams } from './links/resource-links.js';
import { createAgentRouter } from './router.js';
import { createAdminRouter } from './admin/admin-router.js';
import { effectiveSettings, type EffectiveSettings } from './settings/effective-settings.js';
import { resolveOptions, type AgentDiscoveryOptions, type ResolvedOptions } from './options.js';
import { createMarkdownNotFound } from './http/markdown-not-found.js';
import { createContentWriter, type ContentWriter } from './push/index.js';
import { createTrafficRecorder } from './traffic/traffic-recorder.js';
import { createAgentControl, createIdentification } from './policy/agent-control.js';
import type { AgentDecision } from './policy/agent-gate.js';
import { createMetricsRouter } from './traffic/metrics-router.js';
import { readTrafficReport } from './traffic/read-traffic-report.js';
import { parseSince, type TrafficReport } from './traffic/traffic-report.js';

export type { AgentDiscoveryOptions, ResolvedOptions, PageUrlInput, MediaUrlInput, CallerAccess, DatabaseOption } from './options.js';
export type {
  Database,
  Block,
  LocalizedText,
  RscTable,
  CategoryTable,
  PredicateCategoryTable,
  EdgeTable,
  MediumTable,
} from './db/schema.js';
export type { ContentDatabase, DatabaseConfig, BackendKind } from './db/connection.js';
// The two visibility rules as SQL fragments, for a host's own Kysely queries over the content tables.
export { anonymousVisible, indexable } from './content/visibility.js';
// Kysely's `sql` tag (the plugin's own copy), for raw SQL on `agent.database.db`.
export { sql } from 'kysely';
// One language's text out of a per-language value, with the plugin's fallback.
export { localize } from './content/language.js';
export type { PageOptions, ResourceLinksParams } from './links/resource-links.js';
export { DEFAULT_PAGE_URL, DEFAULT_MEDIA_URL, PLUGIN_TEMPLATE_DIR } from './options.js';
export { migrateToLatest } from './db/migrator.js';
// The HTML-to-Markdown conversion of the Markdown representations (same rules and bounds), for a host's own pages.
export { toMarkdown } from './markdown/to-markdown.js';
export type { ToMarkdownOptions, ToMarkdownResult } from './markdown/to-markdown.js';
export { DEFAULT_MARKDOWN_LIMITS, type MarkdownLimits } from './markdown/limits.js';
// The push API (`agent.content`): typed writes into the plugin's tables for a CMS on another database.
export { createContentWriter, ContentPushError } from './push/index.js';
export type {
  ContentWriter,
  ContentWriterOptions,
  ContentPushErrorCode,
  ContentPushErrorDetails,
  BulkOptions,
  BulkProgress,
  BulkResult,
  WriteOptions,
  HostTransaction,
  PutResult,
  RemoveResult,
  ReconcileResult,
  ReconcileScope,
  RemoveLimit,
  ResourceInput,
  CategoryInput,
  PredicateInput,
  EdgeInput,
  EdgeSetInput,
  MediumInput,
  ReconcileEntry,
  ResourceId,
  ContentRef,
} from './push/index.js';
// The content contract (every relation and column the plugin reads) and its start-up check, for a host's own tooling.
export { CONTRACT_RELATIONS, CONTRACT_INDEXES } from './db/content-contract.js';
export { checkContract } from './db/contract-check.js';
export type { ContractProblem, ContractReport } from './db/contract-check.js';
// The checks of `express-agent-discovery check`, for scripts and CI: a report of what agents see on a site.
export { runSiteChecks, checkReportSchema, formatReport, readinessScore, SiteUnreachableError } from './check/index.js';
export type { CheckReport, CheckResult, CheckStatus, SiteCheckOptions, HiddenRef } from './check/index.js';
export type { EffectiveSettings, SettingSource } from './settings/effective-settings.js';
export type { TrafficReport, AgentTrafficLine } from './traffic/traffic-report.js';
export type { AgentEntryInput } from './options.js';

/** A mounted plugin instance. */
export interface AgentDiscovery {
  /** Discovery documents and the anonymous facade; `app.use(agent.router)` at the root. */
  readonly router: Router;
  /**
   * The admin pages (overview, resource inspector, verify, settings), for the host's admin area:
   * `app.use('/admin/agent', agent.adminRouter)`. Only requests for which `isAdmin(req)` is true are
   * answered; for everyone else the host's 404 stands.
   */
  readonly adminRouter: Router;
  /**
   * The run-time settings in force now (description, site noindex, sitemap URL, llms.txt notes): the
   * admin page's stored values over the options. Read from the database on every call.
   */
  settings(): Promise<EffectiveSettings>;
  /**
   * The agent policy's decision for a request the plugin does not route (the host's own API, say): who asks
   * (verified, spoofed or unverified) and what the policy gives them (`status` 200, 403, 429 or 402). The
   * plugin's routes and every page passing `linkHeaders` are decided already; this sends nothing.
   */
  decide(req: Request): Promise<AgentDecision>;
  /** Link-merging middleware; `app.use(agent.linkHeaders)` once, before the host's routes. */
  readonly linkHeaders: RequestHandler;
  /**
   * What agents did with the site (with the `traffic` option): the stored hourly counts of the range
   * (`since`: `'7d'`, `'24h'`; default 7 days) plus this process's counts not yet flushed. Undefined
   * when the option is off.
   */
  traffic(since?: string): Promise<TrafficReport | undefined>;
  /**
   * Prometheus metrics of agent traffic, for the host to mount where only its monitoring reaches:
   * `app.use('/internal/metrics', agent.metricsRouter)` (404 without the `traffic` option).
   */
  readonly metricsRouter: Router;
  /**
   * Adds the site-level and (when public and indexable) per-resource Link values to a response; the
   * alternates carry the page's language (`{ language }`, else the site's default).
   */
  readonly setResourceHeaders: (req: Request, res: Response, id: number | string, page?: PageOptions) => Promise<void>;
  /**
   * For custom controllers: answers with the resource's Markdown when the request prefers it and the
   * resource is anonymous-visible, resolving `true`; else sends nothing and resolves `false`. Always sets
   * `Vary: Accept`. `if (await agent.sendMarkdownIfPreferred(req, res, id, { language })) return`
   */
  readonly sendMarkdownIfPreferred: (req: Request, res: Response, id: number | string, page?: PageOptions) => Promise<boolean>;
  /**
   * Route-level middleware for the host's resource route, with Markdown negotiation:
   * `app.get('/:lang/page/:id', agent.resourceLinks({ id: 'id', language: 'lang' }), render)`.
   */
  readonly resourceLinks: (params?: string | ResourceLinksParams) => RequestHandler;
  /** Renders the `<link>` elements for `<head>` (site-level, plus the resource's alternates). */
  readonly headLinks: (req: Request, id?: number | string, page?: PageOptions) => Promise<string>;
  /**
   * The public origin the plugin builds absolute URLs on (`https://example.org`): the configured base
   * URL, else the request's validated host. Undefined when the request's host is unusable (a
   * malformed name, an out-of-range port): a host never needs to copy the raw `Host` header.
   */
  readonly baseUrl: (req: Request) => string | undefined;
  /**
   * For the host's own 404 pages: answers `404 text/markdown` (where to search instead, and llms.txt)
   * when the request prefers Markdown, resolving `true`; else sends nothing and returns `false`.
   * `if (!agent.sendMarkdownNotFound(req, res)) res.status(404).render('404')`
   */
  readonly sendMarkdownNotFound: (req: Request, res: Response) => boolean;
  /**
   * Middleware for the host's 404s, mounted after its routes and before its own 404 handler: a GET or
   * HEAD that prefers Markdown (or asks for a `.md` URL without preferring HTML) gets `404 text/markdown`
   * pointing to search and llms.txt (with `cors`, readable from any origin); every other request goes on.
   * `app.use(agent.markdownNotFound); app.use((req, res) => res.status(404).render('404'))`
   */
  readonly markdownNotFound: RequestHandler;
  readonly options: ResolvedOptions;
  readonly database: ContentDatabase;
  /** The push API: typed, validated writes of resources, vocabulary, edges and media, and `reconcile`. */
  readonly content: ContentWriter;
  /** Applies the content schema migrations (also done at start when `migrate: true`). */
  migrate(): Promise<void>;
  /**
   * What the build cache keeps now and has done so far (the `cache` option): entries, kept text,
   * hits, builds, evictions, and builds dropped because they read more than their key covered (a
   * resource's first compositions, until its key covers what its templates read). A low share of hits
   * means writes are frequent.
   */
  cacheStats(): { entries: number; size: number; hits: number; builds: number; evictions: number; dropped: number };
  /** Stops the Markdown worker threads and closes the database (the pg Pool or the embedded PGlite, unless a Kysely instance was passed in). */
  close(): Promise<void>;
}

/**
 * Creates the plugin: validates the options (a bad option throws, naming it), opens the database
 * and, with `migrate: true`, applies the migrations; without it, a database lacking the content
 * schema (or holding an older one) fails here with an error naming the fix. Nothing is served
 * before this resolves.
 *
 * ```ts
 * const agent = await createAgentDiscovery({ siteTitle: 'Example', database: { url: process.env.DATABASE_URL! } })
 * app.use(agent.linkHeaders)
 * app.use(agent.router)
 * ```
 */
export async function createAgentDiscovery(input: AgentDiscoveryOptions): Promise<AgentDiscovery> {
  const options = resolveOptions(input);
  const { database, migrate, contentOwned, contentTables } = await openContent(options.database, {
    migrate: options.migrate,
    statementTimeoutMs: options.budgetMs,
    textConfiguration: options.textSearch.configuration,
  });
  const identification = createIdentification(options);
  const traffic = options.traffic ? await createTrafficRecorder({ options, db: database.db }, options.traffic, identification.identifier) : undefined;
  const agents = await createAgentControl({ options, db: database.db }, identification, traffic);
  const ctx = createContext(options, database, traffic, contentOwned, contentTables, agents);
  const sendMarkdownIfPreferred = createSendMarkdownIfPreferred(ctx);
  const linkMiddleware = createLinkMiddleware(ctx);
  const notFound = createMarkdownNotFound({ cors: options.cors });
  // Off the request path: changed pages are submitted to IndexNow on a timer, stopped by close().
  const indexNow = options.indexNow && options.baseUrl ? startIndexNow(ctx, options.indexNow, options.baseUrl) : undefined;
  return Object.freeze({
    router: createAgentRouter(ctx),
    adminRouter: createAdminRouter(ctx),
    settings: () => effectiveSettings(ctx),
    linkHeaders: function linkHeaders(req: Request, res: Response, next: (error?: unknown) => void) {
      agents.gate.middleware(req, res, (error?: unknown) => (error ? next(error) : linkMiddleware(req, res, next)));
    },
    decide: (req: Request) => agents.decide(req),
    traffic: async (since?: string) => {
      if (!traffic) return undefined;
      const range = parseSince(since);
      if (!range) throw new TypeError(`express-agent-discovery: traffic: since must be like '7d' or '24h' (got ${JSON.stringify(since)})`);
      return readTrafficReport(database.db, range, options.defaultLanguage, traffic, agents.ledger.peek());
    },
    metricsRouter: createMetricsRouter(traffic),
    setResourceHeaders: createSetResourceHeaders(ctx),
    sendMarkdownIfPreferred,
    resourceLinks: createResourceLinks(ctx, sendMarkdownIfPreferred),
    headLinks: createHeadLinks(ctx),
    baseUrl: (req: Request) => {
      try {
        return ctx.baseUrl(req);
      } catch {
        return undefined;
      }
    },
    sendMarkdownNotFound: notFound.send,
    markdownNotFound: notFound.middleware,
    options,
    database,
    cacheStats: () => ({ ...ctx.cache.usage, ...ctx.cache.counts }),
    content: createContentWriter(database.db, { defaultLanguage: options.defaultLanguage }),
    migrate,
    close: async () => {
      await indexNow?.close();
      await traffic?.close();
      await agents.close();
      await ctx.markdown.close();
      await database.close();
    },
  });
}
