/** How many public origins' built documents are kept (the base may come from the Host header). */
const PER_BASE_CACHE_SIZE = 8;

/**
 * A value built once per public base URL; past eight bases the oldest is dropped.
 *
 * ```ts
 * const openapi = perBaseCache((base) => JSON.stringify(buildOpenApi(operations(), { title, base })))
 * openapi('https://example.org') // built on the first call, reused after
 * ```
 */
export function perBaseCache<T>(build: (base: string) => T): (base: string) => T {
  const cache = new Map<string, T>();
  return function cachedForBase(base: string): T {
    let value = cache.get(base);
    if (value === undefined) {
      value = build(base);
      if (cache.size >= PER_BASE_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(base, value);
    }
    return value;
  };
}
