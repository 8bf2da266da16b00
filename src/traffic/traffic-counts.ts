/**
 * Agent traffic counted in memory between flushes: additive counts per hour and key, bounded in the
 * number of distinct keys (a flood of distinct resources or landing paths cannot grow memory past
 * `maxKeys`; what does not fit is counted in `dropped`).
 */

/** One hour's requests of one agent on one surface with one status class. */
export interface RequestCount {
  hour: number;
  agent: string;
  operator: string | null;
  purpose: string;
  verdict: string;
  method: string;
  reason: string;
  outcome: string;
  surface: string;
  tool: string;
  statusClass: number;
  requests: number;
  robotsViolations: number;
  lastSeen: number;
}

export interface ResourceCount {
  hour: number;
  resourceId: number;
  purpose: string;
  requests: number;
}

export interface ReferralCount {
  hour: number;
  assistant: string;
  landing: string;
  visits: number;
}

/** What one flush takes. */
export interface CountsBatch {
  readonly requests: RequestCount[];
  readonly resources: ResourceCount[];
  readonly referrals: ReferralCount[];
  /** Counts that found no room (distinct keys over the bound). */
  readonly dropped: number;
}

const HOUR_MS = 3_600_000;

/** The start of the hour of `time` (ms since 1970, UTC). */
export const hourOf = (time: number): number => time - (time % HOUR_MS);

/** The request being counted: who, verified or not, what, with what status. */
export interface CountedRequest {
  readonly time: number;
  readonly agent: string;
  readonly operator: string | null;
  readonly purpose: string;
  /** The verification state: `verified`, `spoofed`, `unverified`. */
  readonly verdict: string;
  /** How it was verified (`signature`, `ranges`, `dns`), else ''. */
  readonly method: string;
  /** Why a signature did not verify, else ''. */
  readonly reason: string;
  /** What the agent policy did: `served`, `limited`, `blocked`, `charged`, `payment-required`. */
  readonly outcome: string;
  readonly surface: string;
  readonly tool: string;
  readonly status: number;
  readonly robotsViolation: boolean;
  readonly resourceId: number | undefined;
}

/** The separator of key parts (never in an agent key, surface, tool or path we keep). */
const SEP = '\u0001';

/**
 * The counts of one process since its last flush.
 *
 * ```ts
 * const counts = new TrafficCounts(10_000)
 * counts.addRequest({ time: Date.now(), agent: 'gptbot', … })
 * const batch = counts.take() // and the counts start over
 * ```
 */
export class TrafficCounts {
  #requests = new Map<string, RequestCount>();
  #resources = new Map<string, ResourceCount>();
  #referrals = new Map<string, ReferralCount>();
  #dropped = 0;

  constructor(private readonly maxKeys: number) {}

  /** How many requests are counted and not yet taken. */
  get pending(): number {
    let n = 0;
    for (const c of this.#requests.values()) n += c.requests;
    return n;
  }

  addRequest(r: CountedRequest): void {
    const hour = hourOf(r.time);
    const statusClass = Math.trunc(r.status / 100);
    const key = `${hour}${SEP}${r.agent}${SEP}${r.purpose}${SEP}${r.verdict}${SEP}${r.method}${SEP}${r.reason}${SEP}${r.outcome}${SEP}${r.surface}${SEP}${r.tool}${SEP}${statusClass}`;
    let count = this.#requests.get(key);
    if (!count) {
      if (this.#requests.size >= this.maxKeys) return void this.#dropped++;
      count = { hour, agent: r.agent, operator: r.operator, purpose: r.purpose, verdict: r.verdict, method: r.method, reason: r.reason, outcome: r.outcome, surface: r.surface, tool: r.tool, statusClass, requests: 0, robotsViolations: 0, lastSeen: r.time };
      this.#requests.set(key, count);
    }
    count.requests++;
    if (r.robotsViolation) count.robotsViolations++;
    if (r.time > count.lastSeen) count.lastSeen = r.time;
    // "Read by agents": a person's page view is not an agent's read.
    if (r.resourceId !== undefined && statusClass === 2 && r.purpose !== 'browser') this.#addResource(hour, r.resourceId, r.purpose);
  }

  #addResource(hour: number, resourceId: number, purpose: string): void {
    const key = `${hour}${SEP}${resourceId}${SEP}${purpose}`;
    let count = this.#resources.get(key);
    if (!count) {
      if (this.#resources.size >= this.maxKeys) return void this.#dropped++;
      count = { hour, resourceId, purpose, requests: 0 };
      this.#resources.set(key, count);
    }
    count.requests++;
  }

  /** A human visit an AI assistant referred, by the path it landed on (no query string). */
  addReferral(time: number, assistant: string, landing: string): void {
    const hour = hourOf(time);
    const key = `${hour}${SEP}${assistant}${SEP}${landing}`;
    let count = this.#referrals.get(key);
    if (!count) {
      if (this.#referrals.size >= this.maxKeys) return void this.#dropped++;
      count = { hour, assistant, landing, visits: 0 };
      this.#referrals.set(key, count);
    }
    count.visits++;
  }

  /** Everything counted since the last take, as copies (the live counts go on). */
  peek(): CountsBatch {
    return {
      requests: [...this.#requests.values()].map((c) => ({ ...c })),
      resources: [...this.#resources.values()].map((c) => ({ ...c })),
      referrals: [...this.#referrals.values()].map((c) => ({ ...c })),
      dropped: this.#dropped,
    };
  }

  /** Everything counted since the last take; the counts start over. */
  take(): CountsBatch {
    const batch = { requests: [...this.#requests.values()], resources: [...this.#resources.values()], referrals: [...this.#referrals.values()], dropped: this.#dropped };
    this.#requests = new Map();
    this.#resources = new Map();
    this.#referrals = new Map();
    this.#dropped = 0;
    return batch;
  }
}
