import type { Request } from 'express';
import type nunjucks from 'nunjucks';
import type { Kysely } from 'kysely';
import type { ContentDatabase } from './db/connection.js';
import type { Database } from './db/schema.js';
import type { ResolvedOptions } from './options.js';
import { publicBaseUrl } from './http/base-url.js';
import { createTemplateEnvironment } from './markdown/template-environment.js';
import { createMarkdownConverter, type MarkdownConverter } from './markdown/converter.js';
import { createContinuationCodec, type ContinuationCodec } from './http/continuation.js';
import { readContentUsage } from './settings/ai-preferences.js';
import type { TrafficRecorder } from './traffic/traffic-recorder.js';
import type { AgentControl } from './policy/agent-control.js';
import { BuildCache } from './cache/build-cache.js';
import { ContentClock } from './content/content-version.js';

/** What every part of a mounted plugin shares: options, the database, and the public base URL. */
export interface AgentContext {
  readonly options: ResolvedOptions;
  readonly content: ContentDatabase;
  readonly db: Kysely<Database>;
  /** The plugin's private Nunjucks environment: site override directories first, its own templates last. */
  readonly templates: nunjucks.Environment;
  /** Converts composed HTML to Markdown: worker threads (`markdownWorkers`), closed with the plugin. */
  readonly markdown: MarkdownConverter;
  /** Seals and opens the keyset continuations of `next_url`. */
  readonly continuations: ContinuationCodec;
  /** The public origin for absolute URLs (configured, or from the request with trust proxy honoured). */
  baseUrl(req: Request): string;
  /**
   * The `Content-Usage` value of content responses, read from the settings now (with `robotsTxt` on);
   * undefined when none is set or the option is off.
   */
  contentUsage(): Promise<string | undefined>;
  /** The counting of agent traffic (with the `traffic` option), else undefined. */
  readonly traffic: TrafficRecorder | undefined;
  /** Who is asking and what they get: the identification, the agent policy, its gate (every route passes it first). */
  readonly agents: AgentControl | undefined;
  /** The plugin's one cache of built answers (the `cache` option; see src/cache/build-cache.ts). */
  readonly cache: BuildCache;
  /** Keys of the content for that cache (the content version and the publication window). */
  readonly contentClock: ContentClock;
  /**
   * Whether a resource's compositions are kept under exact keys (the fingerprint of the rows they
   * read, `compositionFingerprint`): when every content relation is a table (the plugin's own, or a
   * host's tables of the contract's shape, never views), with the cache on.
   */
  readonly exactCompositions: boolean;
}

const noContentUsage = async (): Promise<undefined> => undefined;

/**
 * `contentOwned`: the content relations are the plugin's own tables (their triggers bump the content
 * version), as opposed to a host's own relations, whose builds are kept only with `cache.contentVersioned`;
 * `contentTables`: every content relation is a table (row versions for exact composition keys).
 */
export function createContext(
  options: ResolvedOptions,
  content: ContentDatabase,
  traffic?: TrafficRecorder,
  contentOwned = false,
  contentTables = false,
  agents?: AgentControl,
): AgentContext {
  const contentVersioned = options.cache !== false && (options.cache.contentVersioned ?? contentOwned);
  return Object.freeze({
    options,
    content,
    db: content.db,
    templates: createTemplateEnvironment(options.templateDirs),
    markdown: createMarkdownConverter({ workers: options.markdownWorkers, timeoutMs: options.budgetMs }),
    continuations: createContinuationCodec(options.continuationSecret),
    baseUrl: (req: Request) => publicBaseUrl(req, options.baseUrl),
    // The AI preferences are opt-in with robots.txt: a site without it pays no settings read per content response.
    contentUsage: options.robotsTxt ? () => readContentUsage(content.db, options) : noContentUsage,
    traffic,
    agents,
    cache: new BuildCache(options.cache === false ? false : { maxEntries: options.cache.maxEntries, maxBytes: options.cache.maxBytes }),
    contentClock: new ContentClock(content.db, contentVersioned),
    exactCompositions: options.cache !== false && contentTables,
  });
}
