import type { Request, RequestHandler, Response, Router } from 'express';
import { createContext } from './context.js';
import { openDatabase, type ContentDatabase } from './db/connection.js';
import { migrateToLatest } from './db/migrator.js';
import { assertContentSchema, assertNumericIds, type SchemaLocation } from './db/schema-check.js';
import { createHeadLinks, createLinkMiddleware, createResourceLinks, createSetResourceHeaders } from './discovery/index.js';
import { createAgentRouter } from './http/router.js';
import { resolveOptions, type AgentDiscoveryOptions, type ResolvedOptions } from './options.js';

export type { AgentDiscoveryOptions, ResolvedOptions, PageUrlInput, MediaUrlInput, CallerAccess } from './options.js';
export type { Database, Block, LocalizedText } from './db/schema.js';
export { DEFAULT_PAGE_URL, DEFAULT_MEDIA_URL, PLUGIN_TEMPLATE_DIR } from './options.js';
export { migrateToLatest } from './db/migrator.js';

/** A mounted plugin instance. */
export interface AgentDiscovery {
  /** Discovery documents and the anonymous facade; `app.use(agent.router)` at the root. */
  readonly router: Router;
  /** Link-merging middleware; `app.use(agent.linkHeaders)` once, before the host's routes. */
  readonly linkHeaders: RequestHandler;
  /** Adds the site-level and (when public and indexable) per-resource Link values to a response. */
  readonly setResourceHeaders: (req: Request, res: Response, id: number | string) => Promise<void>;
  /** Route-level middleware for the host's resource route: `app.get('/page/:id', agent.resourceLinks('id'), render)`. */
  readonly resourceLinks: (param?: string) => RequestHandler;
  /** Renders the `<link>` elements for `<head>` (site-level, plus the resource's alternates). */
  readonly headLinks: (req: Request, id?: number | string) => Promise<string>;
  readonly options: ResolvedOptions;
  readonly database: ContentDatabase;
  /** Applies the content schema migrations (also done at start when `migrate: true`). */
  migrate(): Promise<void>;
  /** Closes the database (the pg Pool or the embedded PGlite, unless a Kysely instance was passed in). */
  close(): Promise<void>;
}

/** Which kind of database the options name (for the advice of a missing-schema error). */
function schemaLocation(database: ResolvedOptions['database']): SchemaLocation {
  return 'url' in database ? 'url' : 'dataDir' in database ? 'dataDir' : 'memory' in database ? 'memory' : 'kysely';
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
  const database = 'kysely' in options.database
    ? { db: options.database.kysely, kind: 'postgres' as const, pool: undefined, close: async () => {} }
    : await openDatabase(
        'url' in options.database ? { ...options.database, statementTimeoutMs: options.budgetMs } : options.database,
      );
  try {
    if (options.migrate) await migrateToLatest(database.db);
    else await assertContentSchema(database.db, schemaLocation(options.database));
    if ('kysely' in options.database) await assertNumericIds(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  const ctx = createContext(options, database);
  return Object.freeze({
    router: createAgentRouter(ctx),
    linkHeaders: createLinkMiddleware(ctx),
    setResourceHeaders: createSetResourceHeaders(ctx),
    resourceLinks: createResourceLinks(ctx),
    headLinks: createHeadLinks(ctx),
    options,
    database,
    migrate: async () => {
      await migrateToLatest(database.db);
    },
    close: () => database.close(),
  });
}
