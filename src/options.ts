import { parseAgentPolicy } from './policy/agent-policy.js';
import { loadAgentCatalogue, type AgentEntry } from './traffic/agent-catalogue.js';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Kysely } from 'kysely';
import type { Request } from 'express';
import type { Database } from './db/schema.js';
import { DEFAULT_TEXT_SEARCH_CONFIGURATION } from './db/content-binding.js';
import type { CallerAccess, MediaUrlInput, PageUrlInput } from './agent-options.js';
import { isLanguageTag } from './content/language.js';
import { MAX_PAGE_URL_LENGTH, PAGE_URL_PATTERN } from './content/page-url.js';
import { CONTROL_OR_BREAK, isHttpUrl, SITE_COPYRIGHT_MAX, SITE_LICENSE_NAME_MAX, SITE_LICENSE_URL_MAX } from './settings/site-license.js';

/** The plugin's own templates directory: always the last in the lookup order. */
export const PLUGIN_TEMPLATE_DIR = (() => {
  // Sources live in src/, compiled code in dist/src/: both resolve to the package's templates/.
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../..') : path.resolve(here, '..');
  return path.join(root, 'templates');
})();

export type { CallerAccess, MediaUrlInput, PageUrlInput } from './agent-options.js';

/** Default page-URL builder: `/<language>/page/<id>`. */
export const DEFAULT_PAGE_URL = (r: PageUrlInput): string => `/${r.language}/page/${r.id}`;
/** Default media download URL builder: `/media/attachment/<filename>`. */
export const DEFAULT_MEDIA_URL = (m: MediaUrlInput): string => `/media/attachment/${encodeURIComponent(m.filename)}`;
/** Default ACL hook of the compatibility model API: everyone is anonymous. */
export const DEFAULT_CALLER_ACCESS = (): CallerAccess => 'anonymous';
/** Default admin hook: nobody is an administrator (`adminRouter` answers nothing). */
export const DEFAULT_IS_ADMIN = (): boolean => false;

/**
 * Default report of an unexpected error inside a plugin route (the request answered 500
 * `internal_error`): a process warning of type `ExpressAgentDiscoveryWarning` naming the request and
 * the error's message (on one line, at most 500 characters). Node prints it on stderr without a stack (`--trace-warnings` adds one);
 * `process.on('warning')` or the `onError` option take it elsewhere.
 */
export const DEFAULT_ON_ERROR = (error: unknown, req: Request): void => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const message = text.replace(/\s+/g, ' ').slice(0, 500);
  const url = (req.originalUrl ?? req.url).slice(0, 200);
  process.emitWarning(`express-agent-discovery: ${req.method} ${url} failed: ${message}`, {
    type: 'ExpressAgentDiscoveryWarning',
    code: 'EAD_INTERNAL_ERROR',
  });
};

export const DEFAULT_BUDGET_MS = 5000;
/** The build cache's bounds by default (`cache`). */
export const DEFAULT_CACHE_ENTRIES = 2000;
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
/** How many of the newest public, indexable resources llms.txt lists. */
export const DEFAULT_LLMS_NEWEST = 10;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_REPRESENTATIVE_QUERIES = ['recent articles', 'search by keyword', 'what does this site publish about a topic'];

/**
 * What the options reference (`docs/reference/options.md`, from `optionsReference`) says of an option:
 * its meaning in Markdown, links relative to that page, and its default in words where the schema's
 * own `.default()` cannot say it (a function, a value applied later, nothing).
 */
export interface OptionDoc {
  description: string;
  default?: string;
}
/**
 * The documentation of each option, registered on the option's schema (`.register(optionDocs, …)`).
 * The doc comment above each option's property is a copy for editors: edit the description, then
 * `npm run docs` rewrites the comment (and `docs/reference/options.md`) from it.
 */
export const optionDocs = z.registry<OptionDoc>();

const fn = <T extends (...args: any[]) => unknown>(what: string) =>
  z.custom<T>((v) => typeof v === 'function', { message: `expected a function (${what})` });

const languageCode = z.string().refine(isLanguageTag, 'expected a language code such as "en" or "pt-br"');

const absoluteHttpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), 'expected an http or https URL')
  .refine((u) => !new URL(u).search && !new URL(u).hash, 'must not have a query or fragment');

const kyselyInstance = z.custom<Kysely<Database>>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { selectFrom?: unknown }).selectFrom === 'function',
  { message: 'expected a Kysely instance' },
);

const postgresUrl = z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL');

const postgresShape = {
  url: postgresUrl,
  /** with `{ url }`: the size of the plugin's connection pool, 1 to 200. @default `10` */
  poolSize: z.number().int().min(1).max(200).optional().register(optionDocs, {
    description: 'with `{ url }`: the size of the plugin\'s connection pool, 1 to 200',
    default: '`10`',
  }),
  /**
   * with `{ url }`: send the plugin's reads as named prepared statements (parsed once per connection, plans reusable),
   * about half the PostgreSQL CPU per read (see [Cost per
   * request](../../bench/README.md#cost-per-request-against-the-bare-read-earlier-rounds-benchcost-benchts)); turn it
   * on when connecting to PostgreSQL directly or through a session-pooling pooler, leave it off behind PgBouncer in
   * transaction pooling mode (Debian 12's PgBouncer 1.18 cannot carry named statements).
   * @default `false`
   */
  preparedStatements: z.boolean().optional().register(optionDocs, {
    description:
      'with `{ url }`: send the plugin\'s reads as named prepared statements (parsed once per connection, plans reusable), about half the PostgreSQL CPU per read (see [Cost per request](../../bench/README.md#cost-per-request-against-the-bare-read-earlier-rounds-benchcost-benchts)); turn it on when connecting to PostgreSQL directly or through a session-pooling pooler, leave it off behind PgBouncer in transaction pooling mode (Debian 12\'s PgBouncer 1.18 cannot carry named statements)',
    default: '`false`',
  }),
  /**
   * with `{ url }`: a streaming read replica (or a pooler in front of replicas) every read goes to; `url` (the primary)
   * is then opened only to migrate; see
   * [Deployment](../guides/deployment.md#deployment-several-instances-pgbouncer-read-replicas).
   * @default none
   */
  readUrl: postgresUrl.optional().register(optionDocs, {
    description:
      'with `{ url }`: a streaming read replica (or a pooler in front of replicas) every read goes to; `url` (the primary) is then opened only to migrate; see [Deployment](../guides/deployment.md#deployment-several-instances-pgbouncer-read-replicas)',
  }),
};
// Each object of options is typed by `typeof` its shape: the emitted declarations then keep the fields' doc
// comments, which zod's inferred type alone loses.
const postgresObject: z.ZodObject<typeof postgresShape, z.core.$strict> = z.object(postgresShape).strict();

const databaseOption = z.union([
  postgresObject,
  z.object({ dataDir: z.string().min(1) }).strict(),
  z.object({ memory: z.literal(true) }).strict(),
  z.object({ kysely: kyselyInstance }).strict(),
], { error: 'expected { url }, { dataDir }, { memory: true } or { kysely }' });

/** Default path of the MCP endpoint. */
export const DEFAULT_MCP_PATH = '/mcp';
export { DEFAULT_TEXT_SEARCH_CONFIGURATION };
/** The last segment of the MCP server's ARD identifier and server-card name. */
export const MCP_ARD_NAME = 'mcp';

/**
 * An origin a browser sends (`https://app.example.org`, `http://localhost:6274`): scheme, host and
 * optional port, nothing after (a lone trailing slash is dropped); resolved to its serialized form.
 */
const webOrigin = z
  .string()
  .refine((s) => {
    if (!URL.canParse(s)) return false;
    const u = new URL(s);
    return /^https?:$/.test(u.protocol) && !u.username && !u.password && u.pathname === '/' && !/[?#]/.test(s);
  }, 'expected an origin such as "https://app.example.org" (scheme, host and port only)')
  .transform((s) => new URL(s).origin);

/** The byte budget of `/llms-full.txt` when `llmsFull` is `true`, and its bounds. */
export const DEFAULT_LLMS_FULL_BYTES = 256 * 1024;
export const MIN_LLMS_FULL_BYTES = 16 * 1024;
export const MAX_LLMS_FULL_BYTES = 5 * 1024 * 1024;

/** `llmsFull`: off (default), on with the default budget, or on with `maxBytes`; resolved to `false | { maxBytes }`. */
const llmsFullOption = z
  .union([z.boolean(), z.object({ maxBytes: z.number().int().min(MIN_LLMS_FULL_BYTES).max(MAX_LLMS_FULL_BYTES).optional() }).strict()], {
    error: `expected true, false or { maxBytes } (an integer from ${MIN_LLMS_FULL_BYTES} to ${MAX_LLMS_FULL_BYTES})`,
  })
  .default(false)
  .transform((v): false | { maxBytes: number } => (v === false ? false : { maxBytes: (v === true ? undefined : v.maxBytes) ?? DEFAULT_LLMS_FULL_BYTES }));

/** The sitemaps protocol's bound of URLs in one file. */
export const MAX_SITEMAP_URLS = 50_000;

/** `sitemap`: off (default), on, or on with `maxUrls` per file; resolved to `false | { maxUrls }`. */
const sitemapOption = z
  .union([z.boolean(), z.strictObject({ maxUrls: z.number().int().min(100).max(MAX_SITEMAP_URLS).optional() })], {
    error: `expected true, false or { maxUrls } (an integer from 100 to ${MAX_SITEMAP_URLS})`,
  })
  .default(false)
  .transform((v): false | { maxUrls: number } => (v === false ? false : { maxUrls: (v === true ? undefined : v.maxUrls) ?? MAX_SITEMAP_URLS }));

/** The endpoint IndexNow submissions go to by default (shared by every engine of the protocol). */
export const DEFAULT_INDEXNOW_ENDPOINT = 'https://api.indexnow.org/indexnow';

/** `indexNow`, resolved. */
export interface ResolvedIndexNow {
  readonly key: string;
  readonly endpoint: string;
  readonly intervalMs: number;
  readonly batchSize: number;
  readonly maxQueue: number;
}

/** `indexNow`: off (default), or `{ key, endpoint?, intervalMs?, batchSize?, maxQueue? }`. */
const indexNowOption = z
  .union(
    [
      z.literal(false),
      z.strictObject({
        key: z.string().regex(/^[A-Za-z0-9-]{8,128}$/, 'expected 8 to 128 letters, digits or dashes'),
        endpoint: absoluteHttpUrl.optional(),
        intervalMs: z.number().int().min(100).max(3_600_000).optional(),
        batchSize: z.number().int().min(1).max(10_000).optional(),
        maxQueue: z.number().int().min(10).max(1_000_000).optional(),
      }),
    ],
    { error: 'expected false or { key, endpoint, intervalMs, batchSize, maxQueue }' },
  )
  .default(false)
  .transform((v): false | ResolvedIndexNow =>
    v === false
      ? false
      : Object.freeze({ key: v.key, endpoint: v.endpoint ?? DEFAULT_INDEXNOW_ENDPOINT, intervalMs: v.intervalMs ?? 60_000, batchSize: v.batchSize ?? 10_000, maxQueue: v.maxQueue ?? 100_000 }),
  );

/** `contentSignals`: the site's Content Signals in code, each `true` (yes), `false` (no) or left out (not said). */
const contentSignalsOption = z
  .object({ search: z.boolean().optional(), 'ai-input': z.boolean().optional(), 'ai-train': z.boolean().optional() })
  .strict()
  .default({});

/** `mcp`: off (default), on at `/mcp`, or on at a path of its own; resolved to `false | { path, allowedOrigins }`. */
const mcpOption = z
  .union([
    z.boolean(),
    z
      .object({
        path: z
          .string()
          .regex(/^(?:\/[A-Za-z0-9._~-]+)+$/, 'expected an absolute path such as "/mcp" (no trailing slash, query or fragment)')
          .refine((p) => !/^\/(?:\.well-known|api\/agent|agent)(?:\/|$)/.test(p) && !p.split('/').some((seg) => seg === '.' || seg === '..'), 'must not be under /.well-known, /api/agent or /agent')
          .optional(),
        allowedOrigins: z.array(webOrigin).optional(),
      })
      .strict(),
  ], { error: 'expected true, false or { path, allowedOrigins }' })
  .default(false)
  .transform((v): false | { path: string; allowedOrigins: readonly string[] } => {
    if (v === false) return false;
    const o = v === true ? {} : v;
    return { path: o.path ?? DEFAULT_MCP_PATH, allowedOrigins: Object.freeze([...new Set(o.allowedOrigins ?? [])]) };
  });

/** The purposes a rate limit may name (never `browser`). */
const LIMITED_PURPOSES = ['training', 'search', 'user-fetch', 'coding-agent', 'other-bot', 'unknown'] as const;

/** One class's limit: at most `requests` per `perSeconds` per agent (a token bucket). */
const rateLimit = z.strictObject({
  requests: z.number().int().min(1).max(1_000_000),
  perSeconds: z.number().int().min(1).max(86_400),
});

const trafficOption = z
  .union([
    z.boolean(),
    z.strictObject({
      flushIntervalMs: z.number().int().min(1000).max(300_000).optional(),
      retentionDays: z.number().int().min(1).max(3650).optional(),
      agents: z.array(z.custom<AgentEntryInput>((v) => typeof v === 'object' && v !== null, 'expected catalogue entries')).optional(),
      signatureAgents: z
        .array(webOrigin.refine((o) => o.startsWith('https://') || /^http:\/\/(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?$/.test(o), 'expected an https origin (http only on loopback, for tests)'))
        .optional(),
      rateLimits: z.partialRecord(z.enum(LIMITED_PURPOSES), rateLimit).optional(),
      maxKeys: z.number().int().min(100).max(1_000_000).optional(),
    }),
  ], { error: 'expected true, false or { flushIntervalMs, retentionDays, agents, signatureAgents, rateLimits, maxKeys }' })
  .default(false)
  .transform((v): false | ResolvedTraffic => {
    if (v === false) return false;
    const o = v === true ? {} : v;
    return Object.freeze({
      flushIntervalMs: o.flushIntervalMs ?? 5000,
      retentionDays: o.retentionDays ?? 90,
      agents: Object.freeze([...(o.agents ?? [])]),
      signatureAgents: Object.freeze([...new Set(o.signatureAgents ?? [])]),
      rateLimits: Object.freeze({ ...(o.rateLimits ?? {}) }),
      maxKeys: o.maxKeys ?? 10_000,
    });
  });

/** An entry of the agent catalogue a host adds (see docs/reference/agent-catalogue.md). */
export interface AgentEntryInput {
  key: string;
  tokens: string[];
  operator: string | null;
  product: string;
  purpose: 'training' | 'search' | 'user-fetch' | 'coding-agent' | 'other-bot' | 'browser' | 'unknown';
  url?: string;
}

/** The `traffic` option, resolved. */
export interface ResolvedTraffic {
  readonly flushIntervalMs: number;
  readonly retentionDays: number;
  readonly agents: readonly AgentEntryInput[];
  readonly signatureAgents: readonly string[];
  readonly rateLimits: Readonly<Partial<Record<(typeof LIMITED_PURPOSES)[number], { requests: number; perSeconds: number }>>>;
  readonly maxKeys: number;
}

const ardShape = {
  /**
   * the ARD identifier `urn:air:<publisher>:<namespace>:<name>` (publisher: see [ARD
   * manifest](discovery.md#discovery-documents-and-link-headers-decisions)).
   * @default `'content'`
   */
  namespace: z.string().regex(/^[a-z0-9][a-z0-9-]*$/).default('content').register(optionDocs, {
    description: 'the ARD identifier `urn:air:<publisher>:<namespace>:<name>` (publisher: see [ARD manifest](discovery.md#discovery-documents-and-link-headers-decisions))',
  }),
  /** the last part of the ARD identifier; not `mcp` while `mcp` is on. @default `'api'` */
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/).default('api').register(optionDocs, {
    description: 'the last part of the ARD identifier; not `mcp` while `mcp` is on',
  }),
  /**
   * 2 to 5 example questions for ARD registries.
   * @default `['recent articles', 'search by keyword', 'what does this site publish about a topic']`
   */
  representativeQueries: z.array(z.string().min(1).max(200)).min(2).max(5).default(DEFAULT_REPRESENTATIVE_QUERIES).register(optionDocs, {
    description: '2 to 5 example questions for ARD registries',
  }),
  /** `{ trustManifestUrl }`; only then is a trust manifest advertised. @default none */
  identity: z.object({ trustManifestUrl: absoluteHttpUrl }).strict().optional().register(optionDocs, {
    description: '`{ trustManifestUrl }`; only then is a trust manifest advertised',
  }),
};
const ardObject: z.ZodObject<typeof ardShape, z.core.$strict> = z.object(ardShape).strict();

const textSearchShape = {
  /**
   * the PostgreSQL text search configuration `text=` is parsed with (`websearch_to_tsquery`; `english`, `german`, …);
   * use the one your `fts` vector is built with; checked at start.
   * @default `'simple'`
   */
  configuration: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, 'expected the name of a text search configuration, such as "simple", "english" or "german"')
    .default(DEFAULT_TEXT_SEARCH_CONFIGURATION)
    .register(optionDocs, {
      description:
        'the PostgreSQL text search configuration `text=` is parsed with (`websearch_to_tsquery`; `english`, `german`, …); use the one your `fts` vector is built with; checked at start',
    }),
};
const textSearchObject: z.ZodObject<typeof textSearchShape, z.core.$strict> = z.object(textSearchShape).strict();

/** A list of predicate names (the resource-name grammar), at most 20, with its default. */
const predicateNames = (fallback: string[]) =>
  z
    .array(z.string().max(100).regex(/^[a-z][a-z0-9_]*$/, 'expected a predicate name such as "author"'))
    .max(20)
    .default(fallback);

/**
 * The options of `createAgentDiscovery`, each with its validation, its default and its documentation
 * (`optionDocs`): the one definition the public type, `resolveOptions` and the options reference come from.
 */
export const optionsShape = {
  /** the site's title (H1 of llms.txt, API help, ARD display name), 1 to 200 characters. Required. */
  siteTitle: z.string().trim().min(1).max(200).register(optionDocs, {
    description: "the site's title (H1 of llms.txt, API help, ARD display name), 1 to 200 characters",
  }),
  /**
   * one-line public description of the site's information, at most 1,000 characters (a run-time setting: see [The admin
   * page](../guides/admin.md#the-admin-page-what-agents-see-and-run-time-settings)).
   * @default none
   */
  description: z.string().max(1000).optional().register(optionDocs, {
    description:
      "one-line public description of the site's information, at most 1,000 characters (a run-time setting: see [The admin page](../guides/admin.md#the-admin-page-what-agents-see-and-run-time-settings))",
  }),
  /**
   * public origin for absolute URLs, e.g. `https://example.org` (no query or fragment); without it the request's
   * protocol and host are used, `X-Forwarded-*` only when the host app's `trust proxy` trusts the peer.
   * @default from the request
   */
  baseUrl: absoluteHttpUrl
    .transform((u) => {
      const url = new URL(u);
      return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
    })
    .optional()
    .register(optionDocs, {
      description:
        "public origin for absolute URLs, e.g. `https://example.org` (no query or fragment); without it the request's protocol and host are used, `X-Forwarded-*` only when the host app's `trust proxy` trusts the peer",
      default: 'from the request',
    }),
  /** the site's language codes (`en`, `pt-br`). @default `['en']` */
  languages: z.array(languageCode).min(1).default(['en']).register(optionDocs, {
    description: "the site's language codes (`en`, `pt-br`)",
  }),
  /** the default language; must be one of `languages`. @default the first of `languages` */
  defaultLanguage: languageCode.optional().register(optionDocs, {
    description: 'the default language; must be one of `languages`',
    default: 'the first of `languages`',
  }),
  /** site-wide noindex: nothing is listed or advertised as alternate (a run-time setting). @default `false` */
  noindex: z.boolean().default(false).register(optionDocs, {
    description: 'site-wide noindex: nothing is listed or advertised as alternate (a run-time setting)',
  }),
  /** override directories, searched in order before the plugin's `templates/`; each must exist. @default `[]` */
  templateDirs: z
    .array(z.string().min(1))
    .default([])
    .superRefine((dirs, ctx) => {
      dirs.forEach((dir, i) => {
        if (!existsSync(dir) || !statSync(dir).isDirectory()) {
          ctx.addIssue({ code: 'custom', path: [i], message: `template directory does not exist: ${dir}` });
        }
      });
    })
    .transform((dirs) => dirs.map((d) => path.resolve(d)))
    .register(optionDocs, {
      description: "override directories, searched in order before the plugin's `templates/`; each must exist",
    }),
  /**
   * human page URL of a resource, `(r: { id, name, language, category }) => string` (relative URLs are made absolute).
   * @default `/<language>/page/<id>`
   */
  pageUrl: fn<(r: PageUrlInput) => string>('resource → page URL').default(() => DEFAULT_PAGE_URL).register(optionDocs, {
    description: 'human page URL of a resource, `(r: { id, name, language, category }) => string` (relative URLs are made absolute)',
    default: '`/<language>/page/<id>`',
  }),
  /**
   * download URL of a resource's medium, `(m: { id, filename, mime }) => string`.
   * @default `/media/attachment/<filename>`
   */
  mediaUrl: fn<(m: MediaUrlInput) => string>('medium → download URL').default(() => DEFAULT_MEDIA_URL).register(optionDocs, {
    description: "download URL of a resource's medium, `(m: { id, filename, mime }) => string`",
    default: '`/media/attachment/<filename>`',
  }),
  /**
   * names of the predicates whose edges (the resource as subject) lead to its authors: their titles are the `authors`
   * of the Markdown front matter and of the JSON read (anonymous-visible ones only); `[]` leaves authors out.
   * @default `['author']`
   */
  authorPredicates: predicateNames(['author']).register(optionDocs, {
    description:
      "names of the predicates whose edges (the resource as subject) lead to its authors: their titles are the `authors` of the Markdown front matter and of the JSON read (anonymous-visible ones only); `[]` leaves authors out",
  }),
  /**
   * names of the predicates whose edges (the resource as subject) lead to its tags: their titles are the `tags` of the
   * Markdown front matter and of the JSON read (anonymous-visible ones only); `[]` leaves tags out.
   * @default `['tagged', 'tag']`
   */
  tagPredicates: predicateNames(['tagged', 'tag']).register(optionDocs, {
    description:
      'names of the predicates whose edges (the resource as subject) lead to its tags: their titles are the `tags` of the Markdown front matter and of the JSON read (anonymous-visible ones only); `[]` leaves tags out',
  }),
  /**
   * the sitemap URL, linked from API help and llms.txt (and named in robots.txt) when set (a run-time setting).
   * @default none; `/sitemap.xml` with the `sitemap` option
   */
  sitemapUrl: z.string().min(1).optional().register(optionDocs, {
    description: 'the sitemap URL, linked from API help and llms.txt (and named in robots.txt) when set (a run-time setting)',
    default: 'none; `/sitemap.xml` with the `sitemap` option',
  }),
  /**
   * serve `/sitemap.xml` for a host that has none (`true`, or `{ maxUrls }`: URLs per file, 100 to 50,000): every
   * public, indexable page in each of its languages with a full date-time `lastmod` and its other language versions as
   * hreflang alternates; past `maxUrls` (or 50 MB) a sitemap index of parts `/sitemaps/{from}.xml`. Named in
   * robots.txt, llms.txt and API help when no `sitemapUrl` is set; see [Sitemap](discovery.md#sitemap).
   * @default `false`
   */
  sitemap: sitemapOption.register(optionDocs, {
    description:
      "serve `/sitemap.xml` for a host that has none (`true`, or `{ maxUrls }`: URLs per file, 100 to 50,000): every public, indexable page in each of its languages with a full date-time `lastmod` and its other language versions as hreflang alternates; past `maxUrls` (or 50 MB) a sitemap index of parts `/sitemaps/{from}.xml`. Named in robots.txt, llms.txt and API help when no `sitemapUrl` is set; see [Sitemap](discovery.md#sitemap)",
  }),
  /**
   * the text between llms.txt's summary and its first section (at most 2,000 characters; blank-line separated
   * paragraphs, each folded to one line; a run-time setting).
   * @default a paragraph on what the site offers, that no key is needed, and how to cite
   */
  llmsNotes: z.string().trim().min(1).max(2000).optional().register(optionDocs, {
    description:
      "the text between llms.txt's summary and its first section (at most 2,000 characters; blank-line separated paragraphs, each folded to one line; a run-time setting)",
    default: 'a paragraph on what the site offers, that no key is needed, and how to cite',
  }),
  /**
   * how many of the newest public, indexable resources llms.txt lists (0 to 50; 0 leaves the section out).
   * @default `10`
   */
  llmsNewest: z.number().int().min(0).max(50).default(DEFAULT_LLMS_NEWEST).register(optionDocs, {
    description: 'how many of the newest public, indexable resources llms.txt lists (0 to 50; 0 leaves the section out)',
  }),
  /**
   * serve `/llms-full.txt`: the Markdown of the newest public, indexable resources up to `maxBytes` (`true`: 256 KiB;
   * `{ maxBytes }` from 16 KiB to 5 MiB), ending with a note on what was cut and where to continue; one build at a time
   * per process; see [llms-full.txt](discovery.md#llms-fulltxt).
   * @default `false`
   */
  llmsFull: llmsFullOption.register(optionDocs, {
    description:
      'serve `/llms-full.txt`: the Markdown of the newest public, indexable resources up to `maxBytes` (`true`: 256 KiB; `{ maxBytes }` from 16 KiB to 5 MiB), ending with a note on what was cut and where to continue; one build at a time per process; see [llms-full.txt](discovery.md#llms-fulltxt)',
  }),
  /** also put the site-level links on every HTML response of the host. @default `false` */
  linkAllHtml: z.boolean().default(false).register(optionDocs, {
    description: 'also put the site-level links on every HTML response of the host',
  }),
  /**
   * answer `/` with the llms.txt body as `text/markdown` to requests preferring Markdown over HTML; `false` leaves `/`
   * entirely to the host.
   * @default `true`
   */
  markdownHome: z.boolean().default(true).register(optionDocs, {
    description: 'answer `/` with the llms.txt body as `text/markdown` to requests preferring Markdown over HTML; `false` leaves `/` entirely to the host',
  }),
  /**
   * answer `<page URL>.md` (and `/index.md` for `/`) with the page's Markdown, as a request preferring Markdown gets it
   * on the page URL (the host's routes with `resourceLinks`, or `sendMarkdownIfPreferred`); anything else on a `.md`
   * URL is the Markdown 404. The router rewrites the URL before the host's routes, so leave it off if the host serves
   * `.md` files of its own; see [`.md` twins](discovery.md#md-twins).
   * @default `false`
   */
  markdownTwins: z.boolean().default(false).register(optionDocs, {
    description:
      "answer `<page URL>.md` (and `/index.md` for `/`) with the page's Markdown, as a request preferring Markdown gets it on the page URL (the host's routes with `resourceLinks`, or `sendMarkdownIfPreferred`); anything else on a `.md` URL is the Markdown 404. The router rewrites the URL before the host's routes, so leave it off if the host serves `.md` files of its own; see [`.md` twins](discovery.md#md-twins)",
  }),
  /**
   * worker threads converting HTML to Markdown off the event loop (HTML over 8 KiB; smaller converts in process), 0 to
   * 32; `0` converts every article in process; stopped by `close()`. See [Conversion off the event
   * loop](../guides/templates.md#conversion-off-the-event-loop).
   * @default CPU cores − 1 (1 to 4)
   */
  markdownWorkers: z.number().int().min(0).max(32).optional().register(optionDocs, {
    description:
      'worker threads converting HTML to Markdown off the event loop (HTML over 8 KiB; smaller converts in process), 0 to 32; `0` converts every article in process; stopped by `close()`. See [Conversion off the event loop](../guides/templates.md#conversion-off-the-event-loop)',
    default: 'CPU cores − 1 (1 to 4)',
  }),
  /**
   * where the content lives: `{ url, poolSize?, readUrl?, preparedStatements? }` (PostgreSQL), `{ dataDir }` or `{
   * memory: true }` (PGlite on disk or in memory), or `{ kysely }` (an existing Kysely instance over the content
   * schema, which the host closes).
   * Required.
   */
  database: databaseOption.register(optionDocs, {
    description:
      'where the content lives: `{ url, poolSize?, readUrl?, preparedStatements? }` (PostgreSQL), `{ dataDir }` or `{ memory: true }` (PGlite on disk or in memory), or `{ kysely }` (an existing Kysely instance over the content schema, which the host closes)',
  }),
  /** apply the migrations at start-up. @default `false` */
  migrate: z.boolean().default(false).register(optionDocs, { description: 'apply the migrations at start-up' }),
  /**
   * key (≥ 32 characters) sealing the `cursor` of `next_url`; give every instance behind one load balancer the same
   * secret, or cursors stop working across instances and restarts (a 400 asking to start over).
   * @default random per process
   */
  continuationSecret: z.string().min(32, 'must be at least 32 characters').optional().register(optionDocs, {
    description:
      'key (≥ 32 characters) sealing the `cursor` of `next_url`; give every instance behind one load balancer the same secret, or cursors stop working across instances and restarts (a 400 asking to start over)',
    default: 'random per process',
  }),
  /**
   * time budget per request in ms, 100 to 60,000; on the plugin's own pool also the limit after which a statement is
   * cancelled on the server (a CancelRequest, not `statement_timeout`, so it works behind PgBouncer).
   * @default `5000`
   */
  budgetMs: z.number().int().min(100).max(60_000).default(DEFAULT_BUDGET_MS).register(optionDocs, {
    description:
      "time budget per request in ms, 100 to 60,000; on the plugin's own pool also the limit after which a statement is cancelled on the server (a CancelRequest, not `statement_timeout`, so it works behind PgBouncer)",
  }),
  /** larger responses are a 413; 1 KiB to 64 MiB. @default `1048576` */
  maxBodyBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(DEFAULT_MAX_BODY_BYTES).register(optionDocs, {
    description: 'larger responses are a 413; 1 KiB to 64 MiB',
  }),
  /**
   * the host's ACL hook for the compatibility edge reads: `(req) => 'anonymous' | 'all'` (or a promise of it).
   * @default `() => 'anonymous'`
   */
  callerAccess: fn<(req: Request) => CallerAccess | Promise<CallerAccess>>('request → "anonymous" | "all"')
    .default(() => DEFAULT_CALLER_ACCESS)
    .register(optionDocs, {
      description: "the host's ACL hook for the compatibility edge reads: `(req) => 'anonymous' | 'all'` (or a promise of it)",
      default: "`() => 'anonymous'`",
    }),
  /**
   * `(error, req) => void`, called once for every unexpected error inside a plugin route (answered `500
   * internal_error`), for a failure that costs a host page its links, and when the Markdown asked for on a page URL
   * falls back to the host's HTML (`X-Markdown-Fallback`); see [Faults and
   * errors](../guides/deployment.md#faults-and-errors).
   * @default a process warning
   */
  onError: fn<(error: unknown, req: Request) => void>('error, request → void').default(() => DEFAULT_ON_ERROR).register(optionDocs, {
    description:
      '`(error, req) => void`, called once for every unexpected error inside a plugin route (answered `500 internal_error`), for a failure that costs a host page its links, and when the Markdown asked for on a page URL falls back to the host\'s HTML (`X-Markdown-Fallback`); see [Faults and errors](../guides/deployment.md#faults-and-errors)',
    default: 'a process warning',
  }),
  /**
   * `(req) => boolean | Promise<boolean>`: the host's hook deciding who may use `agent.adminRouter`; for everyone else
   * (and when the hook throws, reported through `onError`) the admin router does nothing and the host's 404 stands.
   * @default `() => false`
   */
  isAdmin: fn<(req: Request) => boolean | Promise<boolean>>('request → true for an administrator').default(() => DEFAULT_IS_ADMIN).register(optionDocs, {
    description:
      "`(req) => boolean | Promise<boolean>`: the host's hook deciding who may use `agent.adminRouter`; for everyone else (and when the hook throws, reported through `onError`) the admin router does nothing and the host's 404 stands",
    default: '`() => false`',
  }),
  /**
   * key (≥ 32 characters) of the admin forms' CSRF tokens; give every instance the same secret, or a form loaded from
   * one instance (or before a restart) is refused by another with a 403 asking to reload.
   * @default random per process
   */
  adminSecret: z.string().min(32, 'must be at least 32 characters').optional().register(optionDocs, {
    description:
      "key (≥ 32 characters) of the admin forms' CSRF tokens; give every instance the same secret, or a form loaded from one instance (or before a restart) is refused by another with a 403 asking to reload",
    default: 'random per process',
  }),
  /**
   * `[{ label, href }]` (at most 10; `href` root-relative or http(s)): links the admin pages show next to "Back to the
   * site", such as the host's own admin: `[{ label: 'Edit resources', href: '/admin/resources' }]`.
   * @default `[]`
   */
  adminLinks: z
    .array(
      z
        .object({
          label: z.string().trim().min(1).max(100),
          href: z.string().max(MAX_PAGE_URL_LENGTH).regex(PAGE_URL_PATTERN, 'expected a root-relative path such as "/admin" or an http(s) URL'),
        })
        .strict(),
    )
    .max(10)
    .default([])
    .register(optionDocs, {
      description:
        "`[{ label, href }]` (at most 10; `href` root-relative or http(s)): links the admin pages show next to \"Back to the site\", such as the host's own admin: `[{ label: 'Edit resources', href: '/admin/resources' }]`",
    }),
  /** the ARD manifest's identifier and registry hints. @default its fields' defaults */
  ard: ardObject
    .prefault({})
    .register(optionDocs, { description: "the ARD manifest's identifier and registry hints", default: 'its fields\' defaults' }),
  /**
   * the licence of the site's content, `{ name?, url? }`: its name (`'CC BY 4.0'`, at most 200 characters), a link to
   * its text (an absolute http(s) URL), or both. Stated in llms.txt, the MCP server card and the front matter of every
   * Markdown read whose resource has no licence of its own (a resource's own `license` wins); a run-time setting; see
   * [Site licence and copyright](../guides/templates.md#site-licence-and-copyright).
   * @default none
   */
  siteLicense: z
    .strictObject({
      name: z
        .string()
        .trim()
        .min(1)
        .max(SITE_LICENSE_NAME_MAX)
        .refine((s) => !CONTROL_OR_BREAK.test(s), 'must be one line, without control characters')
        .refine((s) => !s.includes('://'), 'put the link in url')
        .optional(),
      url: z.string().max(SITE_LICENSE_URL_MAX).refine(isHttpUrl, 'expected an absolute http or https URL').optional(),
    })
    .refine((l) => l.name !== undefined || l.url !== undefined, 'give name, url or both')
    .optional()
    .register(optionDocs, {
      description:
        "the licence of the site's content, `{ name?, url? }`: its name (`'CC BY 4.0'`, at most 200 characters), a link to its text (an absolute http(s) URL), or both. Stated in llms.txt, the MCP server card and the front matter of every Markdown read whose resource has no licence of its own (a resource's own `license` wins); a run-time setting; see [Site licence and copyright](../guides/templates.md#site-licence-and-copyright)",
    }),
  /**
   * the copyright line of the site's content (`'© 2026 Example Press'`, one line, at most 300 characters), published
   * beside `siteLicense` and with the same rule; a run-time setting.
   * @default none
   */
  siteCopyright: z
    .string()
    .trim()
    .min(1)
    .max(SITE_COPYRIGHT_MAX)
    .refine((s) => !CONTROL_OR_BREAK.test(s), 'must be one line, without control characters')
    .optional()
    .register(optionDocs, {
      description:
        "the copyright line of the site's content (`'© 2026 Example Press'`, one line, at most 300 characters), published beside `siteLicense` and with the same rule; a run-time setting",
    }),
  /**
   * the licence of the API description, as OpenAPI's License Object: `{ name, identifier? }` (an SPDX expression) or `{
   * name, url? }`; without it `info.license` is left out.
   * @default none
   */
  apiLicense: z
    .object({
      name: z.string().trim().min(1).max(200),
      url: absoluteHttpUrl.optional(),
      identifier: z.string().regex(/^[A-Za-z0-9.+()-]+(?: (?:AND|OR|WITH) [A-Za-z0-9.+()-]+)*$/, 'expected an SPDX licence expression').optional(),
    })
    .strict()
    .refine((l) => !(l.url && l.identifier), 'give url or identifier, not both')
    .optional()
    .register(optionDocs, {
      description:
        "the licence of the API description, as OpenAPI's License Object: `{ name, identifier? }` (an SPDX expression) or `{ name, url? }`; without it `info.license` is left out",
    }),
  /**
   * `true` or `{ path, allowedOrigins }` turns on the read-only MCP endpoint at `/mcp` (or `path`: absolute, no
   * trailing slash, not under `/.well-known`, `/api/agent` or `/agent`); with it on, `ard.name` must not be `mcp`. A
   * request with an `Origin` header is served only from the site's own origin (of `baseUrl`, else of the request) or
   * one of `allowedOrigins` (default none: origins such as `'https://app.example.org'`), else 403; see
   * [MCP](../guides/mcp.md#mcp-an-opt-in-read-only-mcp-endpoint).
   * @default `false`
   */
  mcp: mcpOption.register(optionDocs, {
    description:
      "`true` or `{ path, allowedOrigins }` turns on the read-only MCP endpoint at `/mcp` (or `path`: absolute, no trailing slash, not under `/.well-known`, `/api/agent` or `/agent`); with it on, `ard.name` must not be `mcp`. A request with an `Origin` header is served only from the site's own origin (of `baseUrl`, else of the request) or one of `allowedOrigins` (default none: origins such as `'https://app.example.org'`), else 403; see [MCP](../guides/mcp.md#mcp-an-opt-in-read-only-mcp-endpoint)",
  }),
  /**
   * submit changed pages to IndexNow (Bing, Yandex, Naver, Seznam, Yep): `{ key, endpoint?, intervalMs?, batchSize?,
   * maxQueue? }` (`key`: 8 to 128 letters, digits or dashes, served at `/<key>.txt`; `endpoint`: default
   * `https://api.indexnow.org/indexnow`; every `intervalMs`, default 60000, the change feed is read and the page URLs
   * of changed public, indexable resources are POSTed in batches of `batchSize`, default 10000, off the request path,
   * retried with backoff; at most `maxQueue`, default 100000, URLs wait). Needs `baseUrl`; see
   * [IndexNow](discovery.md#indexnow).
   * @default `false`
   */
  indexNow: indexNowOption.register(optionDocs, {
    description:
      'submit changed pages to IndexNow (Bing, Yandex, Naver, Seznam, Yep): `{ key, endpoint?, intervalMs?, batchSize?, maxQueue? }` (`key`: 8 to 128 letters, digits or dashes, served at `/<key>.txt`; `endpoint`: default `https://api.indexnow.org/indexnow`; every `intervalMs`, default 60000, the change feed is read and the page URLs of changed public, indexable resources are POSTed in batches of `batchSize`, default 10000, off the request path, retried with backoff; at most `maxQueue`, default 100000, URLs wait). Needs `baseUrl`; see [IndexNow](discovery.md#indexnow)',
  }),
  /**
   * answer NLWeb's `/ask` (protocol 0.5) in list mode: `POST /ask` with an `AskRequest` (or `GET /ask?query=…`) gets
   * the search's first ten results as schema.org items with their page URLs, as JSON or as the protocol's stream
   * (Server-Sent Events); a mode that needs a language model gets the list and says so; see
   * [NLWeb](discovery.md#nlweb-ask-in-list-mode).
   * @default `false`
   */
  nlweb: z.boolean().default(false).register(optionDocs, {
    description:
      "answer NLWeb's `/ask` (protocol 0.5) in list mode: `POST /ask` with an `AskRequest` (or `GET /ask?query=…`) gets the search's first ten results as schema.org items with their page URLs, as JSON or as the protocol's stream (Server-Sent Events); a mode that needs a language model gets the list and says so; see [NLWeb](discovery.md#nlweb-ask-in-list-mode)",
  }),
  /**
   * serve `/robots.txt` for a host that has none: `User-agent: *` with the crawler rules (default `Allow: /`) and
   * Content Signals set on the admin page, and the absolute `Sitemap:` when a sitemap is configured; also turns on the
   * `Content-Usage` header on content responses when a signal is set; see [robots.txt, AI usage preferences and
   * CORS](discovery.md#robotstxt-ai-usage-preferences-and-cors).
   * @default `false`
   */
  robotsTxt: z.boolean().default(false).register(optionDocs, {
    description:
      'serve `/robots.txt` for a host that has none: `User-agent: *` with the crawler rules (default `Allow: /`) and Content Signals set on the admin page, and the absolute `Sitemap:` when a sitemap is configured; also turns on the `Content-Usage` header on content responses when a signal is set; see [robots.txt, AI usage preferences and CORS](discovery.md#robotstxt-ai-usage-preferences-and-cors)',
  }),
  /**
   * the site's Content Signals in code: `{ search, 'ai-input', 'ai-train' }`, each `true` (yes) or `false` (no); a
   * signal left out is not said. A value chosen on the admin page's Settings replaces it; used by the plugin's
   * robots.txt (`Content-Signal:`) and the `Content-Usage` header, so only with `robotsTxt`; see [robots.txt, AI usage
   * preferences and CORS](discovery.md#robotstxt-ai-usage-preferences-and-cors).
   * @default none set
   */
  contentSignals: contentSignalsOption.register(optionDocs, {
    description:
      "the site's Content Signals in code: `{ search, 'ai-input', 'ai-train' }`, each `true` (yes) or `false` (no); a signal left out is not said. A value chosen on the admin page's Settings replaces it; used by the plugin's robots.txt (`Content-Signal:`) and the `Content-Usage` header, so only with `robotsTxt`; see [robots.txt, AI usage preferences and CORS](discovery.md#robotstxt-ai-usage-preferences-and-cors)",
    default: 'none set',
  }),
  /**
   * `Access-Control-Allow-Origin: *` (never credentials) on the anonymous documents and reads (discovery documents,
   * robots.txt, `/api/agent/*`, the Markdown reads, the Markdown negotiated on page URLs and `/`, the `/id/{id}` 303s,
   * Markdown 404s), `OPTIONS` preflights answered 204 on the plugin's own paths and `/id/{id}`; off, no
   * `Access-Control-*` header is sent (the MCP server card has its own).
   * @default `false`
   */
  cors: z.boolean().default(false).register(optionDocs, {
    description:
      '`Access-Control-Allow-Origin: *` (never credentials) on the anonymous documents and reads (discovery documents, robots.txt, `/api/agent/*`, the Markdown reads, the Markdown negotiated on page URLs and `/`, the `/id/{id}` 303s, Markdown 404s), `OPTIONS` preflights answered 204 on the plugin\'s own paths and `/id/{id}`; off, no `Access-Control-*` header is sent (the MCP server card has its own)',
  }),
  /**
   * count agent traffic (opt-in): `true` or `{ flushIntervalMs, retentionDays, agents, signatureAgents, rateLimits,
   * maxKeys }`. Every request the plugin answers and every host page passing `linkHeaders` is classified (agent,
   * operator, purpose), verified (published ranges, Web Bot Auth, reverse DNS) or found spoofed, and counted in memory,
   * flushed as hourly rows every `flushIntervalMs` (default 5000) and at `close()`; rows older than `retentionDays`
   * (default 90) are deleted. `agents`: catalogue entries added to the package's; `signatureAgents`: key-directory
   * origins trusted besides the defaults; `rateLimits`: `{ training: { requests, perSeconds } }` per purpose (never
   * browsers or verified user fetches), answered 429 with `Retry-After`; `maxKeys` (default 10000): distinct keys kept
   * between flushes. No IP, cookie, query string or user-agent text is stored; see [Agent
   * traffic](../guides/traffic.md).
   * @default `false`
   */
  traffic: trafficOption.register(optionDocs, {
    description:
      "count agent traffic (opt-in): `true` or `{ flushIntervalMs, retentionDays, agents, signatureAgents, rateLimits, maxKeys }`. Every request the plugin answers and every host page passing `linkHeaders` is classified (agent, operator, purpose), verified (published ranges, Web Bot Auth, reverse DNS) or found spoofed, and counted in memory, flushed as hourly rows every `flushIntervalMs` (default 5000) and at `close()`; rows older than `retentionDays` (default 90) are deleted. `agents`: catalogue entries added to the package's; `signatureAgents`: key-directory origins trusted besides the defaults; `rateLimits`: `{ training: { requests, perSeconds } }` per purpose (never browsers or verified user fetches), answered 429 with `Retry-After`; `maxKeys` (default 10000): distinct keys kept between flushes. No IP, cookie, query string or user-agent text is stored; see [Agent traffic](../guides/traffic.md)",
  }),
  /**
   * what each agent gets, said once and kept on every surface: `{ rules: [{ agent?, purpose?, verification?, path?,
   * action, perMinute?, price? }] }`, ordered, first match wins, default allow; `action` is `allow`, `block` (403),
   * `limit` (429 past `perMinute`) or `charge` (402 pay per crawl at `price` USD a request, verified agents only). The
   * run-time setting of the same name (the admin's Policy page) replaces it. robots.txt, Content Signals, the
   * `Content-Usage` header and the RSL licence (`/license.xml`) are written from it; see [Deciding what agents
   * get](../guides/admin.md#deciding-what-agents-get).
   * @default `{ rules: [] }` (every agent allowed)
   */
  agentPolicy: z.unknown().optional().register(optionDocs, {
    default: '`{ rules: [] }` (every agent allowed)',
    description:
      'what each agent gets, said once and kept on every surface: `{ rules: [{ agent?, purpose?, verification?, path?, action, perMinute?, price? }] }`, ordered, first match wins, default allow; `action` is `allow`, `block` (403), `limit` (429 past `perMinute`) or `charge` (402 pay per crawl at `price` USD a request, verified agents only). The run-time setting of the same name (the admin\'s Policy page) replaces it. robots.txt, Content Signals, the `Content-Usage` header and the RSL licence (`/license.xml`) are written from it; see [Deciding what agents get](../guides/admin.md#deciding-what-agents-get)',
  }),
  /**
   * how agents are verified: `rangesFile` (default: the package's `data/agent-ranges.json`, the operators' published IP
   * ranges; `npx express-agent-discovery ranges --refresh` rewrites it and a running plugin reads it again within
   * seconds), `reverseDns` (default `true`: reverse-then-forward DNS, off the request path, for operators that document
   * it). The client address is Express's `req.ip`: set the host's `trust proxy` behind a proxy or CDN; see [Who is
   * really asking](../guides/traffic.md#who-is-really-asking).
   * @default `{ reverseDns: true }` with the package's ranges
   */
  verification: z
    .strictObject({ rangesFile: z.string().min(1).optional(), reverseDns: z.boolean().optional() })
    .default({})
    .register(optionDocs, {
      default: "`{ reverseDns: true }` with the package's ranges",
      description:
        'how agents are verified: `rangesFile` (default: the package\'s `data/agent-ranges.json`, the operators\' published IP ranges; `npx express-agent-discovery ranges --refresh` rewrites it and a running plugin reads it again within seconds), `reverseDns` (default `true`: reverse-then-forward DNS, off the request path, for operators that document it). The client address is Express\'s `req.ip`: set the host\'s `trust proxy` behind a proxy or CDN; see [Who is really asking](../guides/traffic.md#who-is-really-asking)',
    }),
  /**
   * the cache of built answers (discovery documents, llms.txt, llms-full.txt, composed Markdown), keyed by the settings
   * version, the content version (for a resource's composed Markdown over tables, not views: the row versions of
   * exactly what it shows), the public base and what else each was built from; `false` builds every answer per request.
   * `maxEntries` (default 2000) and `maxBytes` (default 64 MiB of text) bound it, least recently used out first.
   * `contentVersioned`: whether every write of the content bumps the content version, so builds from the content can be
   * kept; default true over the plugin's own tables (its triggers bump it), false over a host's own relations until the
   * host's triggers call `agent_discovery_content_changed()` and say so here; see [What is
   * cached](../architecture.md#what-is-cached).
   * @default `{ maxEntries: 2000, maxBytes: 67108864 }`
   */
  cache: z
    .union([
      z.literal(false),
      z
        .object({
          maxEntries: z.number().int().min(1).max(1_000_000).default(DEFAULT_CACHE_ENTRIES),
          maxBytes: z.number().int().min(65_536).max(4 * 1024 * 1024 * 1024).default(DEFAULT_CACHE_BYTES),
          contentVersioned: z.boolean().optional(),
        })
        .strict(),
    ])
    .prefault({})
    .register(optionDocs, {
      description:
        "the cache of built answers (discovery documents, llms.txt, llms-full.txt, composed Markdown), keyed by the settings version, the content version (for a resource's composed Markdown over tables, not views: the row versions of exactly what it shows), the public base and what else each was built from; `false` builds every answer per request. `maxEntries` (default 2000) and `maxBytes` (default 64 MiB of text) bound it, least recently used out first. `contentVersioned`: whether every write of the content bumps the content version, so builds from the content can be kept; default true over the plugin's own tables (its triggers bump it), false over a host's own relations until the host's triggers call `agent_discovery_content_changed()` and say so here; see [What is cached](../architecture.md#what-is-cached)",
      default: '`{ maxEntries: 2000, maxBytes: 67108864 }`',
    }),
  /** full-text search (`text=`) on the contract's `fts` column. @default its fields' defaults */
  textSearch: textSearchObject
    .prefault({})
    .register(optionDocs, { description: "full-text search (`text=`) on the contract's `fts` column", default: 'its fields\' defaults' }),
};

// Typed by `typeof optionsShape`, as `postgresObject`: the declarations keep the options' doc comments.
const optionsObject: z.ZodObject<typeof optionsShape, z.core.$strict> = z.object(optionsShape).strict();

/** The options schema: `optionsShape`, strict, with the rules between options. */
export const optionsSchema = optionsObject
  .superRefine((o, ctx) => {
    if (o.defaultLanguage && !o.languages.includes(o.defaultLanguage)) {
      ctx.addIssue({ code: 'custom', path: ['defaultLanguage'], message: `must be one of languages (${o.languages.join(', ')})` });
    }
    if (o.indexNow && !o.baseUrl) {
      ctx.addIssue({ code: 'custom', path: ['indexNow'], message: 'needs the baseUrl option (the public host the page URLs are submitted for)' });
    }
    if (o.agentPolicy !== undefined) {
      let message: string | undefined;
      try {
        const parsed = parseAgentPolicy(o.agentPolicy, loadAgentCatalogue(o.traffic ? (o.traffic.agents as readonly AgentEntry[]) : []), 'agentPolicy');
        if (!parsed.ok) message = parsed.message.replace(/^agentPolicy: /, '');
      } catch (error) {
        message = error instanceof Error ? error.message : String(error);
      }
      if (message) ctx.addIssue({ code: 'custom', path: ['agentPolicy'], message });
    }
    if (o.mcp && o.ard.name === MCP_ARD_NAME) {
      ctx.addIssue({ code: 'custom', path: ['ard', 'name'], message: `"${MCP_ARD_NAME}" names the MCP server's ARD entry when mcp is on; choose another name` });
    }
  })
  .transform((o) => ({
    ...o,
    defaultLanguage: o.defaultLanguage ?? o.languages[0]!,
    // The plugin's own sitemap is the sitemap when the host names none (the admin may still set another, or none).
    ...(o.sitemapUrl === undefined && o.sitemap ? { sitemapUrl: '/sitemap.xml' as string | undefined } : {}),
  }));

/**
 * The options of `createAgentDiscovery`, as the schema takes them; validated once at start-up, a bad
 * option throws a `TypeError` naming it. Every option, its default and meaning: `docs/reference/options.md`.
 */
export type AgentDiscoveryOptions = z.input<typeof optionsSchema>;
/** Where the content lives: PostgreSQL, an embedded PGlite (on disk or in memory), or a Kysely instance of the host. */
export type DatabaseOption = z.input<typeof databaseOption>;
export type ResolvedOptions = Readonly<z.output<typeof optionsSchema>>;

/** Validates options once at start-up; a bad option throws an error naming the option path. */
export function resolveOptions(input: unknown): ResolvedOptions {
  const parsed = optionsSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const where = issue.path.length ? issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('') : '(options)';
      return `option "${where}": ${issue.message}`;
    });
    throw new TypeError(`express-agent-discovery: invalid options: ${lines.join('; ')}`);
  }
  return Object.freeze(parsed.data);
}
