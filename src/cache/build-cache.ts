/**
 * The one cache of built answers of a mounted plugin (its discovery documents, llms.txt's frame,
 * llms-full.txt, a resource's composed Markdown): each entry is keyed by everything it was built from
 * (the kind of build, the settings version, the content key, the public base, the language, the id…),
 * so an entry is never served for another version than its own; a changed version makes a new key and
 * the old entry ages out. One rule of eviction: least recently used, past `maxEntries` entries or
 * `maxBytes` of kept text. A build in flight is shared by every request for its key; a build that
 * fails is not kept.
 *
 * ```ts
 * const body = await ctx.cache.get(['llms-full', settingsVersion, contentKey, base], () => buildLlmsFull(…), (b) => b.body.length)
 * ```
 */

/** The parts of a key: what the entry was built from. */
export type CacheKey = readonly (string | number | boolean | null)[];

/** How much the cache keeps; `false`: nothing is kept, every request builds. */
export interface BuildCacheLimits {
  readonly maxEntries: number;
  /** The most UTF-16 code units of kept text (as the entries' size functions count them). */
  readonly maxBytes: number;
}

interface Entry {
  value: unknown;
  size: number;
}

/** Separates key parts: a character no URL, language tag or version holds. */
const SEPARATOR = '\u0000';

/** An entry's size while it is being built, and of a value without a size function. */
const NOMINAL_SIZE = 256;

export class BuildCache {
  readonly #entries = new Map<string, Entry>();
  readonly #limits: BuildCacheLimits | false;
  #size = 0;
  /**
   * Hits, builds and evictions so far (for tests and operators); `dropped`: builds not kept because
   * they were found to depend on more than their key covers (`delete`).
   */
  readonly counts = { hits: 0, builds: 0, evictions: 0, dropped: 0 };

  constructor(limits: BuildCacheLimits | false) {
    this.#limits = limits;
  }

  /** Whether entries are kept at all. */
  get enabled(): boolean {
    return this.#limits !== false;
  }

  /** How many entries and how much text are kept now. */
  get usage(): { entries: number; size: number } {
    return { entries: this.#entries.size, size: this.#size };
  }

  /**
   * The value built for `key`: kept from an earlier build (or shared with one in flight), else built
   * now and kept. `build` may answer a value or a promise; a promise that rejects, or a build that
   * throws, leaves nothing behind. `sizeOf` measures a value for the `maxBytes` bound.
   */
  get<T>(key: CacheKey, build: () => T, sizeOf?: (value: Awaited<T>) => number): T {
    if (this.#limits === false) return build();
    const id = key.join(SEPARATOR);
    const found = this.#entries.get(id);
    if (found) {
      this.counts.hits++;
      // Most recently used last: the Map's order is the eviction order.
      this.#entries.delete(id);
      this.#entries.set(id, found);
      return found.value as T;
    }
    this.counts.builds++;
    const value = build();
    const entry: Entry = { value, size: NOMINAL_SIZE };
    this.#add(id, entry);
    if (value instanceof Promise) {
      value.then(
        (settled: Awaited<T>) => this.#resize(id, entry, sizeOf ? sizeOf(settled) : NOMINAL_SIZE),
        () => this.#remove(id, entry),
      );
    } else if (sizeOf) {
      this.#resize(id, entry, sizeOf(value as Awaited<T>));
    }
    return value;
  }

  /** The value kept for `key` (counted as a use), or undefined; never builds. */
  peek<T>(key: CacheKey): T | undefined {
    if (this.#limits === false) return undefined;
    const id = key.join(SEPARATOR);
    const found = this.#entries.get(id);
    if (!found) return undefined;
    this.#entries.delete(id);
    this.#entries.set(id, found);
    return found.value as T;
  }

  /** Keeps `value` under `key` in place of what was there (nothing with the cache off). */
  set(key: CacheKey, value: unknown, size = NOMINAL_SIZE): void {
    if (this.#limits === false) return;
    const id = key.join(SEPARATOR);
    const found = this.#entries.get(id);
    if (found) this.#remove(id, found);
    this.#add(id, { value, size });
  }

  /**
   * Drops the entry of `key`, if any (a build found afterwards not to be the content of its key);
   * `dropped` counts it unless `counted` is false (a layer above a build already counted).
   */
  delete(key: CacheKey, counted = true): void {
    if (this.#limits === false) return;
    const id = key.join(SEPARATOR);
    const found = this.#entries.get(id);
    if (!found) return;
    this.#remove(id, found);
    if (counted) this.counts.dropped++;
  }

  /** Drops every entry (the content or the settings are known to have changed wholesale). */
  clear(): void {
    this.#entries.clear();
    this.#size = 0;
  }

  #add(id: string, entry: Entry): void {
    this.#entries.set(id, entry);
    this.#size += entry.size;
    this.#evict();
  }

  #resize(id: string, entry: Entry, size: number): void {
    if (this.#entries.get(id) !== entry) return;
    this.#size += size - entry.size;
    entry.size = size;
    this.#evict();
  }

  #remove(id: string, entry: Entry): void {
    if (this.#entries.get(id) !== entry) return;
    this.#entries.delete(id);
    this.#size -= entry.size;
  }

  /** Least recently used first, until both bounds hold (an entry larger than `maxBytes` is not kept). */
  #evict(): void {
    const limits = this.#limits as BuildCacheLimits;
    while (this.#entries.size > limits.maxEntries || this.#size > limits.maxBytes) {
      const [oldest, entry] = this.#entries.entries().next().value as [string, Entry];
      this.#entries.delete(oldest);
      this.#size -= entry.size;
      this.counts.evictions++;
    }
  }
}
