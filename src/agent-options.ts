import type { Request } from 'express';
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.js';

/** What the page-URL builder receives: enough to build the human page URL of a resource. */
export interface PageUrlInput {
  id: number;
  name: string | null;
  language: string;
  category: string | null;
}

/** What the media URL builder receives. */
export interface MediaUrlInput {
  id: number;
  filename: string;
  mime: string;
}

/** Which resources a caller of the compatibility model API may see. */
export type CallerAccess = 'anonymous' | 'all';

/** Where the content lives: PostgreSQL, an embedded PGlite (on disk or in memory), or a Kysely instance of the host. */
export type DatabaseOption =
  /**
   * PostgreSQL; `poolSize` 1 to 200, default 10. `readUrl`: a streaming read replica (or a pooler in
   * front of replicas) every read goes to; `url` (the primary) is then opened only to migrate.
   * `preparedStatements` (default false): send the reads as named prepared statements (about half the
   * PostgreSQL CPU per read); leave it off behind PgBouncer in transaction pooling mode, which cannot carry them.
   */
  | { url: string; poolSize?: number | undefined; readUrl?: string | undefined; preparedStatements?: boolean | undefined }
  /** PGlite with its data in this directory. */
  | { dataDir: string }
  /** PGlite in memory (tests, demos). */
  | { memory: true }
  /** An existing Kysely instance over the content schema (the host closes it). */
  | { kysely: Kysely<Database> };

/**
 * The options of `createAgentDiscovery`, as an editor shows them. They are validated once at start-up
 * (`optionsSchema` in `src/options.ts`; a compile-time check keeps this interface and the schema's
 * input type the same); a bad option throws a `TypeError` naming it.
 */
export interface AgentDiscoveryOptions {
  /** The site's title (H1 of llms.txt, API help, ARD display name); 1 to 200 characters. Required. */
  siteTitle: string;
  /** One-line public description of the site's information (at most 1,000 characters). @default none */
  description?: string | undefined;
  /**
   * Public origin for absolute URLs, e.g. `https://example.org` (no query or fragment). Without it the
   * request's protocol and host are used, `X-Forwarded-*` only when the app's `trust proxy` trusts the peer.
   * @default from the request
   */
  baseUrl?: string | undefined;
  /** The site's language codes (`en`, `pt-br`). @default ['en'] */
  languages?: string[] | undefined;
  /** The default language; one of `languages`. @default the first of `languages` */
  defaultLanguage?: string | undefined;
  /** Site-wide noindex: nothing is listed or advertised as alternate. @default false */
  noindex?: boolean | undefined;
  /** Override directories, searched in order before the plugin's `templates/`; each must exist. @default [] */
  templateDirs?: string[] | undefined;
  /** Human page URL of a resource (relative URLs are made absolute). @default `/<language>/page/<id>` */
  pageUrl?: ((r: PageUrlInput) => string) | undefined;
  /** Download URL of a resource's medium. @default `/media/attachment/<filename>` */
  mediaUrl?: ((m: MediaUrlInput) => string) | undefined;
  /** Sitemap URL, linked from API help and llms.txt. @default none */
  sitemapUrl?: string | undefined;
  /**
   * The text between llms.txt's summary and its first section (at most 2,000 characters; blank-line
   * separated paragraphs). @default a paragraph on what the site offers, that no key is needed, and how to cite
   */
  llmsNotes?: string | undefined;
  /** How many of the newest public, indexable resources llms.txt lists (0 to 50; 0 leaves the section out). @default 10 */
  llmsNewest?: number | undefined;
  /**
   * Serve `/llms-full.txt`: the Markdown of the newest public, indexable resources up to a byte budget
   * (`maxBytes`, 16 KiB to 5 MiB; `true` takes 256 KiB), ending with a note on what was cut and where
   * to continue. Built one at a time per process. @default false
   */
  llmsFull?: boolean | { maxBytes?: number | undefined } | undefined;
  /** Also put the site-level links on every HTML response of the host. @default false */
  linkAllHtml?: boolean | undefined;
  /** Answer `/` with the llms.txt body as `text/markdown` to requests preferring Markdown over HTML. @default true */
  markdownHome?: boolean | undefined;
  /**
   * Worker threads converting composed HTML over 8 KiB to Markdown off the event loop; `0` converts in
   * process. Stopped by `close()`. @default CPU cores − 1, from 1 to 4
   */
  markdownWorkers?: number | undefined;
  /** Where the content lives. Required. */
  database: DatabaseOption;
  /** Apply the migrations at start-up. @default false */
  migrate?: boolean | undefined;
  /**
   * Key (at least 32 characters) sealing the `cursor` of `next_url`; give every instance behind one load
   * balancer the same secret. @default random per process
   */
  continuationSecret?: string | undefined;
  /** Time budget per request in ms, 100 to 60,000 (on the plugin's own pool also the limit after which a statement is cancelled on the server). @default 5000 */
  budgetMs?: number | undefined;
  /** Larger responses are a 413; 1 KiB to 64 MiB. @default 1048576 */
  maxBodyBytes?: number | undefined;
  /** The host's ACL hook for the compatibility edge reads. @default () => 'anonymous' */
  callerAccess?: ((req: Request) => CallerAccess | Promise<CallerAccess>) | undefined;
  /** Called once for every unexpected error inside a plugin route (answered `500 internal_error`). @default a process warning */
  onError?: ((error: unknown, req: Request) => void) | undefined;
  /**
   * Who may use `agent.adminRouter`; for everyone else the host's 404 stands (a throwing hook counts
   * as no). @default () => false
   */
  isAdmin?: ((req: Request) => boolean | Promise<boolean>) | undefined;
  /** Key (≥ 32 characters) of the admin forms' CSRF tokens; the same on every instance. @default random per process */
  adminSecret?: string | undefined;
  /**
   * Links the admin pages show next to "Back to the site", such as the host's own admin:
   * `[{ label: 'Edit resources', href: '/admin/resources' }]` (a root-relative path or an http(s) URL;
   * at most 10). @default []
   */
  adminLinks?: { label: string; href: string }[] | undefined;
  /** The ARD manifest's identifier and registry hints. */
  ard?:
    | {
        /** `urn:air:<publisher>:<namespace>:<name>`. @default 'content' */
        namespace?: string | undefined;
        /** @default 'api' */
        name?: string | undefined;
        /** 2 to 5 example questions for ARD registries. @default three generic queries */
        representativeQueries?: string[] | undefined;
        /** Only then is a trust manifest advertised. @default none */
        identity?: { trustManifestUrl: string } | undefined;
      }
    | undefined;
  /** The licence of the API description, as OpenAPI's License Object (`url` or `identifier`, not both). @default none */
  apiLicense?: { name: string; url?: string | undefined; identifier?: string | undefined } | undefined;
  /**
   * `true` or `{ path, allowedOrigins }` turns on the read-only MCP endpoint at `/mcp` (or `path`).
   * A request carrying an `Origin` header is served only from the site's own origin or one of
   * `allowedOrigins` (origins such as `"https://app.example.org"`); other origins get 403. @default false
   */
  mcp?: boolean | { path?: string | undefined; allowedOrigins?: string[] | undefined } | undefined;
  /**
   * Serve `/robots.txt` (for a host that has none): `User-agent: *` with the crawler rules and Content
   * Signals of the admin Settings, and the absolute `Sitemap:` when a sitemap is set. @default false
   */
  robotsTxt?: boolean | undefined;
  /**
   * Public CORS on the anonymous documents and reads (discovery documents, robots.txt, `/api/agent/*`,
   * the Markdown reads): `Access-Control-Allow-Origin: *`, never credentials; preflights answered 204.
   * @default false
   */
  cors?: boolean | undefined;
  /** Full-text search (`text=`) on the contract's `fts` column. */
  textSearch?:
    | {
        /**
         * The PostgreSQL text search configuration queries are parsed with (`websearch_to_tsquery`); use the one
         * the `fts` vector was built with (e.g. `english`, `german`). Checked at start. @default 'simple'
         */
        configuration?: string | undefined;
      }
    | undefined;
}
