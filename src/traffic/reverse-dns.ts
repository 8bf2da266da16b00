import { promises as dns } from 'node:dns';

/**
 * Reverse-then-forward DNS verification, as Google, Bing and Apple document it: the address's PTR name must
 * end with one of the operator's domains, and that name's A/AAAA records must give the address back. Off the
 * request path: `known` answers from the cache only; `lookup` starts a check in the background, bounded in
 * concurrency (a check that finds no free slot is not started; a later request asks again), in time (the
 * resolver's timeout, one try) and in memory (a cache of `maxEntries` addresses, emptied when full; positive
 * answers kept an hour, negative ones ten minutes). An address is held only in this cache, never stored.
 */
export interface DnsVerifier {
  /** The verified host name of an address ending with one of `suffixes`: `true`; a failed check: `false`; unknown: `undefined`. */
  known(address: string, suffixes: readonly string[]): boolean | undefined;
  /** Starts a check of `address` unless one is cached, running, or no slot is free. */
  lookup(address: string): void;
  /** Resolves when the checks running now have ended (tests, close). */
  settled(): Promise<void>;
  close(): void;
}

/** The two lookups a check makes, typed structurally (node:dns's Resolver, or a stand-in pointing at a test server). */
export interface DnsLookups {
  reverse(address: string): Promise<string[]>;
  forward(name: string, family: 4 | 6): Promise<string[]>;
}

export interface DnsVerifierOptions {
  readonly timeoutMs?: number;
  readonly concurrency?: number;
  readonly maxEntries?: number;
  readonly lookups?: DnsLookups;
  readonly now?: () => number;
}

const POSITIVE_MS = 3_600_000;
const NEGATIVE_MS = 600_000;
const MAX_NAMES = 8;

interface Entry {
  /** Verified host names (lower case, no trailing dot); empty: nothing verified. */
  readonly names: readonly string[];
  readonly until: number;
}

function systemLookups(timeoutMs: number): DnsLookups {
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 1 });
  return {
    reverse: (address) => resolver.reverse(address),
    forward: (name, family) => (family === 4 ? resolver.resolve4(name) : resolver.resolve6(name)),
  };
}

const normal = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** See {@link DnsVerifier}. */
export function createDnsVerifier(options: DnsVerifierOptions = {}): DnsVerifier {
  const timeoutMs = options.timeoutMs ?? 1500;
  const concurrency = options.concurrency ?? 4;
  const maxEntries = options.maxEntries ?? 10_000;
  const lookups = options.lookups ?? systemLookups(timeoutMs);
  const now = options.now ?? Date.now;
  const cache = new Map<string, Entry>();
  const running = new Map<string, Promise<void>>();
  let closed = false;

  const withTimeout = <T>(p: Promise<T>): Promise<T> =>
    Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('dns timeout')), timeoutMs).unref())]);

  async function check(address: string): Promise<readonly string[]> {
    const family = address.includes(':') ? 6 : 4;
    const names = (await withTimeout(lookups.reverse(address))).slice(0, MAX_NAMES).map(normal);
    const verified: string[] = [];
    for (const name of names) {
      const back = await withTimeout(lookups.forward(name, family)).catch(() => [] as string[]);
      if (back.some((a) => a.toLowerCase() === address.toLowerCase())) verified.push(name);
    }
    return verified;
  }

  return {
    known(address, suffixes) {
      const entry = cache.get(address);
      if (!entry || entry.until < now()) return undefined;
      return entry.names.some((name) => suffixes.some((s) => name.endsWith(s)));
    },
    lookup(address) {
      if (closed || running.has(address) || running.size >= concurrency) return;
      const entry = cache.get(address);
      if (entry && entry.until >= now()) return;
      const job = check(address)
        .then(
          (names) => ({ names, until: now() + (names.length ? POSITIVE_MS : NEGATIVE_MS) }),
          () => ({ names: [], until: now() + NEGATIVE_MS }),
        )
        .then((result) => {
          if (closed) return;
          if (cache.size >= maxEntries) cache.clear();
          cache.set(address, result);
        })
        .finally(() => running.delete(address));
      running.set(address, job);
    },
    async settled() {
      await Promise.allSettled([...running.values()]);
    },
    close() {
      closed = true;
      cache.clear();
    },
  };
}
