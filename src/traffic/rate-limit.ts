/** One class's limit: at most `requests` per `perSeconds`, per agent. */
export interface ClassLimit {
  readonly requests: number;
  readonly perSeconds: number;
}

/** How many agents' buckets are kept; past it the map starts over (every agent then gets a full bucket once more). */
const MAX_BUCKETS = 10_000;

interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * Token buckets per agent key for the purposes that have a limit: a bucket holds `requests` tokens
 * and refills at `requests / perSeconds` a second. `take` answers 0 when a token was taken, else the
 * seconds until one is there (for `Retry-After`).
 *
 * ```ts
 * const limiter = createRateLimiter({ training: { requests: 60, perSeconds: 60 } })
 * limiter.take('training', 'gptbot', Date.now()) // 0, then … 1 once the bucket is empty
 * ```
 */
export function createRateLimiter(limits: Readonly<Partial<Record<string, ClassLimit>>>) {
  const buckets = new Map<string, Bucket>();
  return {
    /** Whether a purpose has a limit at all. */
    limits(purpose: string): boolean {
      return limits[purpose] !== undefined;
    },
    take(purpose: string, agent: string, now: number): number {
      const limit = limits[purpose];
      if (!limit) return 0;
      const key = `${purpose}\u0001${agent}`;
      const rate = limit.requests / (limit.perSeconds * 1000);
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= MAX_BUCKETS) buckets.clear();
        bucket = { tokens: limit.requests, updated: now };
        buckets.set(key, bucket);
      }
      bucket.tokens = Math.min(limit.requests, bucket.tokens + (now - bucket.updated) * rate);
      bucket.updated = now;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000));
    },
  };
}
