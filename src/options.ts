import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Kysely } from 'kysely';
import type { Request } from 'express';
import type { Database } from './db/schema.js';
import { DEFAULT_TEXT_SEARCH_CONFIGURATION } from './db/content-binding.js';
import type { AgentDiscoveryOptions, CallerAccess, MediaUrlInput, PageUrlInput } from './agent-options.js';
import { isLanguageTag } from './content/language.js';
import { MAX_PAGE_URL_LENGTH, PAGE_URL_PATTERN } from './content/page-url.js';

/** The plugin's own templates directory: always the last in the lookup order. */
export const PLUGIN_TEMPLATE_DIR = (() => {
  // Sources live in src/, compiled code in dist/src/: both resolve to the package's templates/.
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../..') : path.resolve(here, '..');
  return path.join(root, 'templates');
})();

export type { AgentDiscoveryOptions, CallerAccess, DatabaseOption, MediaUrlInput, PageUrlInput } from './agent-options.js';

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
/** How many of the newest public, indexable resources llms.txt lists. */
export const DEFAULT_LLMS_NEWEST = 10;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_REPRESENTATIVE_QUERIES = ['recent articles', 'search by keyword', 'what does this site publish about a topic'];

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

const databaseOption = z.union([
  z.object({ url: z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL'), poolSize: z.number().int().min(1).max(200).optional(), preparedStatements: z.boolean().optional(), readUrl: z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL').optional() }).strict(),
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

/** The options schema. Every option and its default is listed in the README's options table. */
export const optionsSchema = z
  .object({
    siteTitle: z.string().trim().min(1).max(200),
    description: z.string().max(1000).optional(),
    baseUrl: absoluteHttpUrl
      .transform((u) => {
        const url = new URL(u);
        return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
      })
      .optional(),
    languages: z.array(languageCode).min(1).default(['en']),
    defaultLanguage: languageCode.optional(),
    noindex: z.boolean().default(false),
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
      .transform((dirs) => dirs.map((d) => path.resolve(d))),
    pageUrl: fn<(r: PageUrlInput) => string>('resource → page URL').default(() => DEFAULT_PAGE_URL),
    mediaUrl: fn<(m: MediaUrlInput) => string>('medium → download URL').default(() => DEFAULT_MEDIA_URL),
    sitemapUrl: z.string().min(1).optional(),
    llmsNotes: z.string().trim().min(1).max(2000).optional(),
    llmsNewest: z.number().int().min(0).max(50).default(DEFAULT_LLMS_NEWEST),
    llmsFull: llmsFullOption,
    linkAllHtml: z.boolean().default(false),
    markdownHome: z.boolean().default(true),
    markdownWorkers: z.number().int().min(0).max(32).optional(),
    database: databaseOption,
    migrate: z.boolean().default(false),
    continuationSecret: z.string().min(32, 'must be at least 32 characters').optional(),
    budgetMs: z.number().int().min(100).max(60_000).default(DEFAULT_BUDGET_MS),
    maxBodyBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(DEFAULT_MAX_BODY_BYTES),
    callerAccess: fn<(req: Request) => CallerAccess | Promise<CallerAccess>>('request → "anonymous" | "all"').default(
      () => DEFAULT_CALLER_ACCESS,
    ),
    onError: fn<(error: unknown, req: Request) => void>('error, request → void').default(() => DEFAULT_ON_ERROR),
    isAdmin: fn<(req: Request) => boolean | Promise<boolean>>('request → true for an administrator').default(() => DEFAULT_IS_ADMIN),
    adminSecret: z.string().min(32, 'must be at least 32 characters').optional(),
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
      .default([]),
    ard: z
      .object({
        namespace: z.string().regex(/^[a-z0-9][a-z0-9-]*$/).default('content'),
        name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/).default('api'),
        representativeQueries: z.array(z.string().min(1).max(200)).min(2).max(5).default(DEFAULT_REPRESENTATIVE_QUERIES),
        identity: z.object({ trustManifestUrl: absoluteHttpUrl }).strict().optional(),
      })
      .strict()
      .default({ namespace: 'content', name: 'api', representativeQueries: DEFAULT_REPRESENTATIVE_QUERIES }),
    apiLicense: z
      .object({
        name: z.string().trim().min(1).max(200),
        url: absoluteHttpUrl.optional(),
        identifier: z.string().regex(/^[A-Za-z0-9.+()-]+(?: (?:AND|OR|WITH) [A-Za-z0-9.+()-]+)*$/, 'expected an SPDX licence expression').optional(),
      })
      .strict()
      .refine((l) => !(l.url && l.identifier), 'give url or identifier, not both')
      .optional(),
    mcp: mcpOption,
    robotsTxt: z.boolean().default(false),
    cors: z.boolean().default(false),
    textSearch: z
      .object({
        configuration: z
          .string()
          .regex(/^[a-z_][a-z0-9_]*$/, 'expected the name of a text search configuration, such as "simple", "english" or "german"')
          .default(DEFAULT_TEXT_SEARCH_CONFIGURATION),
      })
      .strict()
      .default({ configuration: DEFAULT_TEXT_SEARCH_CONFIGURATION }),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.defaultLanguage && !o.languages.includes(o.defaultLanguage)) {
      ctx.addIssue({ code: 'custom', path: ['defaultLanguage'], message: `must be one of languages (${o.languages.join(', ')})` });
    }
    if (o.mcp && o.ard.name === MCP_ARD_NAME) {
      ctx.addIssue({ code: 'custom', path: ['ard', 'name'], message: `"${MCP_ARD_NAME}" names the MCP server's ARD entry when mcp is on; choose another name` });
    }
  })
  .transform((o) => ({ ...o, defaultLanguage: o.defaultLanguage ?? o.languages[0]! }));

/** Both ways assignable, with the same keys: a documented option the schema lacks (or the reverse) fails to compile. */
type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? ([keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false) : false) : false;
type Assert<T extends readonly true[]> = T;
type SchemaInput = z.input<typeof optionsSchema>;
/** Compile-time check: the documented `AgentDiscoveryOptions` is the schema's input type, nested objects included. */
export type OptionsMatchSchema = Assert<
  [
    SameType<AgentDiscoveryOptions, SchemaInput>,
    SameType<NonNullable<AgentDiscoveryOptions['ard']>, NonNullable<SchemaInput['ard']>>,
    SameType<NonNullable<AgentDiscoveryOptions['apiLicense']>, NonNullable<SchemaInput['apiLicense']>>,
    SameType<Exclude<NonNullable<AgentDiscoveryOptions['mcp']>, boolean>, Exclude<NonNullable<SchemaInput['mcp']>, boolean>>,
    SameType<Exclude<NonNullable<AgentDiscoveryOptions['llmsFull']>, boolean>, Exclude<NonNullable<SchemaInput['llmsFull']>, boolean>>,
    SameType<NonNullable<AgentDiscoveryOptions['textSearch']>, NonNullable<SchemaInput['textSearch']>>,
    SameType<NonNullable<AgentDiscoveryOptions['adminLinks']>[number], NonNullable<SchemaInput['adminLinks']>[number]>,
  ]
>;
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
