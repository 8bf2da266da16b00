import type { ResolvedOptions } from '../options.js';
import { settingsKey } from '../settings/effective-settings.js';
import { perBaseCache } from './per-base-cache.js';

/**
 * `perBaseCache` for documents that also depend on the run-time settings: built once per public base
 * and per settings value, so a changed description is in the next response.
 */
export function perSettingsCache<T>(build: (options: ResolvedOptions, base: string) => T): (options: ResolvedOptions, base: string) => T {
  let current: ResolvedOptions | undefined;
  const cached = perBaseCache((key) => build(current!, key.slice(key.indexOf('\n') + 1)));
  return function cachedForSettings(options: ResolvedOptions, base: string): T {
    current = options;
    return cached(`${settingsKey(options)}\n${base}`);
  };
}
