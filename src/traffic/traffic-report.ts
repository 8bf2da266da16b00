import { AGENT_PURPOSES } from './agent-catalogue.js';
import type { CountsBatch } from './traffic-counts.js';
import { MARKDOWN_SURFACES } from './traffic-mark.js';
import { hourOf } from './traffic-counts.js';
import { OTHER_RESOURCE } from './traffic-store.js';
import { assistantOperators } from './ai-referrals.js';

/** One agent's line of the report. */
export interface AgentTrafficLine {
  agent: string;
  operator: string | null;
  purpose: string;
  requests: number;
  /** Requests per surface (`page-html`, `resource-markdown`, …; MCP calls as `mcp`). */
  surfaces: Record<string, number>;
  /** MCP tool calls per tool. */
  tools: Record<string, number>;
  /** Requests per status class (`2xx`, `3xx`, `4xx`, `5xx`). */
  statuses: Record<string, number>;
  /** The share of its requests answered in Markdown (0 to 1). */
  markdownShare: number;
  /** The share of its requests verified, by signature, published ranges or DNS (0 to 1). */
  verifiedShare: number;
  /** The share of its requests that claimed a catalogue agent and came from outside its operator's ranges or keys (0 to 1). */
  spoofedShare: number;
  /** Verified requests per method (`signature`, `ranges`, `dns`). */
  methods: Record<string, number>;
  /** Requests per outcome of the agent policy (`served`, `limited`, `blocked`, `charged`, `payment-required`). */
  outcomes: Record<string, number>;
  /** Signed requests that did not verify, per reason (`key-not-found`, `bad-signature` …). */
  claimReasons: Record<string, number>;
  robotsViolations: number;
  /** ISO time of its last request. */
  lastSeen: string;
}

/** What agents did with the site over a time range: `traffic.json`, the Agents page and the CLI. */
export interface TrafficReport {
  range: { since: string; until: string };
  totals: { requests: number; byPurpose: Record<string, number>; verified: number; spoofed: number; robotsViolations: number; referrals: number; outcomes: Record<string, number> };
  /** Requests per day (UTC) by purpose, every day of the range. */
  daily: { day: string; byPurpose: Record<string, number>; requests: number }[];
  agents: AgentTrafficLine[];
  /** The resources agents read most (at most 20). */
  resources: { id: number; title: string | null; requests: number; byPurpose: Record<string, number> }[];
  /** Human visits referred by AI assistants, by assistant and landing path (at most 50). */
  referrals: { assistant: string; landing: string; visits: number }[];
  /**
   * Per operator, the requests of its crawlers and fetchers (training, search and user-fetch agents it operates;
   * spoofed ones are not its) against the human visits its assistants referred: the crawl-to-referral ratio
   * (`crawlsPerReferral`, null with no referral), crawled most first.
   */
  operators: { operator: string; crawlRequests: number; referrals: number; crawlsPerReferral: number | null }[];
  /** Requests counted in this process and not yet flushed (included above). */
  pending: number;
  /**
   * The pay-per-crawl ledger of the range per agent: requests served with `crawler-charged` and their amount in
   * USD (a decimal text with 6 places), dearest first. The record an owner bills from; no payment network is involved.
   */
  charges?: { agent: string; requests: number; amountUsd: string }[];
}

const DAY_MS = 86_400_000;
const zeroPurposes = (): Record<string, number> => Object.fromEntries(AGENT_PURPOSES.map((p) => [p, 0]));
const add = (record: Record<string, number>, key: string, n: number) => void (record[key] = (record[key] ?? 0) + n);

/**
 * The report of a range from its counts (stored and pending together; rows of the same key add up).
 * Pure: `titles` names the resources (the caller reads them).
 */
export function summarizeTraffic(
  batch: CountsBatch,
  since: Date,
  until: Date,
  pending: number,
  titles: ReadonlyMap<number, string> = new Map(),
  stored?: {
    readonly daily: readonly { day: string; purpose: string; requests: number }[];
    readonly referralVisits: number;
    /** How many of the batch's first request and referral rows are the stored aggregates. */
    readonly requestRows: number;
    readonly referralRows: number;
    readonly referralsByAssistant: readonly { assistant: string; visits: number }[];
  },
): TrafficReport {
  // With `stored`, the batch's first rows are the range's aggregates (their hour is the range's start): the
  // days come from `stored.daily`, and only the pending rows (after them) are added to their own days.
  const aggregated = stored?.requestRows ?? 0;
  const inRange = (hour: number) => hour >= since.getTime() && hour < until.getTime();
  const totals = { requests: 0, byPurpose: zeroPurposes(), verified: 0, spoofed: 0, robotsViolations: 0, referrals: 0, outcomes: {} as Record<string, number> };
  const days = new Map<string, Record<string, number>>();
  for (let t = Date.UTC(since.getUTCFullYear(), since.getUTCMonth(), since.getUTCDate()); t < until.getTime(); t += DAY_MS) {
    days.set(new Date(t).toISOString().slice(0, 10), zeroPurposes());
  }
  const agents = new Map<string, AgentTrafficLine & { markdown: number; verified: number; spoofed: number; last: number }>();
  for (const [index, r] of batch.requests.entries()) {
    if (!inRange(r.hour)) continue;
    totals.requests += r.requests;
    add(totals.byPurpose, r.purpose, r.requests);
    if (index < aggregated) {
      // Its days are counted from `stored.daily` below.
    } else {
      const pendingDay = days.get(new Date(r.hour).toISOString().slice(0, 10));
      if (pendingDay) add(pendingDay, r.purpose, r.requests);
    }
    if (r.verdict === 'verified') totals.verified += r.requests;
    if (r.verdict === 'spoofed') totals.spoofed += r.requests;
    add(totals.outcomes, r.outcome || 'served', r.requests);
    totals.robotsViolations += r.robotsViolations;
    const key = `${r.agent}\u0001${r.purpose}`;
    let line = agents.get(key);
    if (!line) {
      line = { agent: r.agent, operator: r.operator, purpose: r.purpose, requests: 0, surfaces: {}, tools: {}, statuses: {}, markdownShare: 0, verifiedShare: 0, spoofedShare: 0, methods: {}, outcomes: {}, claimReasons: {}, robotsViolations: 0, lastSeen: '', markdown: 0, verified: 0, spoofed: 0, last: 0 };
      agents.set(key, line);
    }
    line.requests += r.requests;
    add(line.surfaces, r.surface, r.requests);
    if (r.tool) add(line.tools, r.tool, r.requests);
    add(line.statuses, `${r.statusClass}xx`, r.requests);
    if (MARKDOWN_SURFACES.has(r.surface)) line.markdown += r.requests;
    if (r.verdict === 'verified') line.verified += r.requests;
    if (r.verdict === 'spoofed') line.spoofed += r.requests;
    if (r.method) add(line.methods, r.method, r.requests);
    if (r.reason) add(line.claimReasons, r.reason, r.requests);
    add(line.outcomes, r.outcome || 'served', r.requests);
    line.robotsViolations += r.robotsViolations;
    if (r.lastSeen > line.last) line.last = r.lastSeen;
    if (r.operator) line.operator = r.operator;
  }
  for (const d of stored?.daily ?? []) {
    const day = days.get(d.day);
    if (day) add(day, d.purpose, d.requests);
  }
  const resources = new Map<number, { requests: number; byPurpose: Record<string, number> }>();
  for (const r of batch.resources) {
    if (!inRange(r.hour)) continue;
    let line = resources.get(r.resourceId);
    if (!line) resources.set(r.resourceId, (line = { requests: 0, byPurpose: {} }));
    line.requests += r.requests;
    add(line.byPurpose, r.purpose, r.requests);
  }
  const referrals = new Map<string, { assistant: string; landing: string; visits: number }>();
  for (const [index, r] of batch.referrals.entries()) {
    if (!inRange(r.hour)) continue;
    if (index >= (stored?.referralRows ?? 0)) totals.referrals += r.visits;
    const key = `${r.assistant}\u0001${r.landing}`;
    const line = referrals.get(key);
    if (line) line.visits += r.visits;
    else referrals.set(key, { assistant: r.assistant, landing: r.landing, visits: r.visits });
  }
  if (stored) totals.referrals += stored.referralVisits;
  const operators = crawlToReferral(agents.values(), [
    ...(stored?.referralsByAssistant ?? []),
    ...batch.referrals.filter((r, index) => index >= (stored?.referralRows ?? 0) && inRange(r.hour)),
  ]);
  const share = (n: number, of: number) => (of ? Math.round((n / of) * 1000) / 1000 : 0);
  return {
    range: { since: since.toISOString(), until: until.toISOString() },
    totals,
    daily: [...days].map(([day, byPurpose]) => ({ day, byPurpose, requests: Object.values(byPurpose).reduce((a, b) => a + b, 0) })),
    agents: [...agents.values()]
      .sort((a, b) => b.requests - a.requests || a.agent.localeCompare(b.agent))
      .map(({ markdown, verified, spoofed, last, ...line }) => ({
        ...line,
        markdownShare: share(markdown, line.requests),
        verifiedShare: share(verified, line.requests),
        spoofedShare: share(spoofed, line.requests),
        lastSeen: new Date(last).toISOString(),
      })),
    resources: [...resources]
      .sort(([ia, a], [ib, b]) => b.requests - a.requests || ia - ib)
      .slice(0, 20)
      .map(([id, line]) => ({ id, title: id === OTHER_RESOURCE ? 'Other resources (each read less than the 500 most read of its hour)' : (titles.get(id) ?? null), ...line })),
    referrals: [...referrals.values()].sort((a, b) => b.visits - a.visits || a.landing.localeCompare(b.landing)).slice(0, 50),
    operators,
    pending,
  };
}

const CRAWLING: ReadonlySet<string> = new Set(['training', 'search', 'user-fetch']);

/** The crawl-to-referral ratio per operator, from the agent lines and the referred visits per assistant. */
function crawlToReferral(lines: Iterable<{ operator: string | null; purpose: string; requests: number }>, referrals: readonly { assistant: string; visits: number }[]) {
  const byOperator = new Map<string, { crawlRequests: number; referrals: number }>();
  const of = (operator: string) => byOperator.get(operator) ?? (byOperator.set(operator, { crawlRequests: 0, referrals: 0 }), byOperator.get(operator)!);
  for (const l of lines) if (l.operator && CRAWLING.has(l.purpose)) of(l.operator).crawlRequests += l.requests;
  const assistants = assistantOperators();
  for (const r of referrals) {
    const operator = assistants.get(r.assistant);
    if (operator) of(operator).referrals += r.visits;
  }
  return [...byOperator]
    .map(([operator, n]) => ({ operator, ...n, crawlsPerReferral: n.referrals ? Math.round((n.crawlRequests / n.referrals) * 10) / 10 : null }))
    .sort((a, b) => b.crawlRequests - a.crawlRequests || b.referrals - a.referrals || a.operator.localeCompare(b.operator));
}

/** The resources a report's counts name, most read first (the ids whose titles a caller reads). */
export function topResourceIds(batch: CountsBatch, limit = 20): number[] {
  const totals = new Map<number, number>();
  for (const r of batch.resources) totals.set(r.resourceId, (totals.get(r.resourceId) ?? 0) + r.requests);
  return [...totals].sort(([ia, a], [ib, b]) => b - a || ia - ib).slice(0, limit).map(([id]) => id);
}

/** Concatenates two batches (stored and pending): the report adds rows of one key up. */
export function joinBatches(a: CountsBatch, b: CountsBatch): CountsBatch {
  return { requests: [...a.requests, ...b.requests], resources: [...a.resources, ...b.resources], referrals: [...a.referrals, ...b.referrals], dropped: a.dropped + b.dropped };
}

/** A range from `since` text: `7d`, `24h`, `90d` (default 7 days), ending now. */
export function parseSince(text: string | undefined, now = Date.now()): { since: Date; until: Date } | undefined {
  const m = /^(\d{1,4})([dh])$/.exec(text ?? '7d');
  if (!m) return undefined;
  const n = Number(m[1]);
  if (n < 1 || (m[2] === 'd' && n > 3650) || (m[2] === 'h' && n > 87_600)) return undefined;
  const span = n * (m[2] === 'd' ? DAY_MS : 3_600_000);
  return { since: new Date(hourOf(now - span)), until: new Date(now + 1) };
}
