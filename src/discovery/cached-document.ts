import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { settingsKey } from '../settings/effective-settings.js';

/**
 * A document built once per public base and kept in the plugin's build cache (`ctx.cache`), under
 * `kind` (unique per document) and the base: for documents that depend on the base alone.
 *
 * ```ts
 * const catalog = cachedPerBase('api-catalog', (base) => fixedBody({ body: JSON.stringify(buildApiCatalog(base)) }))
 * catalog(ctx, 'https://example.org') // built on the first call, reused after
 * ```
 */
export function cachedPerBase<T>(kind: string, build: (base: string) => T): (ctx: AgentContext, base: string) => T {
  return (ctx, base) => ctx.cache.get([kind, base], () => build(base));
}

/**
 * A document built once per settings version and public base (the options in force are built from
 * the settings, see `effectiveOptions`), kept in the plugin's build cache: a changed setting makes a
 * new key, so the next response has it.
 */
export function cachedPerSettings<T>(kind: string, build: (options: ResolvedOptions, base: string) => T): (ctx: AgentContext, options: ResolvedOptions, base: string) => T {
  return (ctx, options, base) => ctx.cache.get([kind, settingsKey(options), base], () => build(options, base));
}
