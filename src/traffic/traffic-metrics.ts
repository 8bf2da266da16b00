import { Counter, Registry } from 'prom-client';
import type { CountsBatch } from './traffic-counts.js';

/** Prometheus counters of agent traffic, in a registry of their own (never the process's global one). */
export interface TrafficMetrics {
  readonly registry: Registry;
  /** Adds a batch taken from the counts (at each flush): the counters then hold it for good. */
  add(batch: CountsBatch): void;
}

const SEP = '\u0001';
const addTo = (totals: Map<string, number>, key: string, n: number) => totals.set(key, (totals.get(key) ?? 0) + n);

/**
 * The counters, with labels from bounded sets only (purposes, surfaces, status classes, verdicts,
 * assistants of the referrers list): never an agent's user agent, a path or an id. Nothing is done
 * per request: the totals grow at each flush, and a scrape adds the counts not yet flushed (`pending`).
 *
 * ```text
 * agent_discovery_requests_total{purpose="training",surface="page-html",status_class="2xx",verdict="unsigned"} 12
 * ```
 */
export function createTrafficMetrics(pending: () => CountsBatch): TrafficMetrics {
  const registry = new Registry();
  const requests = new Map<string, number>();
  const violations = new Map<string, number>();
  const referrals = new Map<string, number>();
  let dropped = 0;
  const tally = (batch: CountsBatch, into: { requests: Map<string, number>; violations: Map<string, number>; referrals: Map<string, number> }) => {
    for (const r of batch.requests) {
      addTo(into.requests, [r.purpose, r.surface, `${r.statusClass}xx`, r.verdict].join(SEP), r.requests);
      if (r.robotsViolations) addTo(into.violations, r.purpose, r.robotsViolations);
    }
    for (const r of batch.referrals) addTo(into.referrals, r.assistant, r.visits);
  };
  /** Sets a counter to the flushed totals plus the pending ones. */
  const fill = (counter: Counter<string>, names: readonly string[], flushed: Map<string, number>, now: Map<string, number>) => {
    const merged = new Map(flushed);
    for (const [key, n] of now) addTo(merged, key, n);
    counter.reset();
    for (const [key, n] of merged) counter.inc(Object.fromEntries(key.split(SEP).map((v, i) => [names[i]!, v])), n);
  };
  let scrape: { requests: Map<string, number>; violations: Map<string, number>; referrals: Map<string, number> } | undefined;
  /** The pending counts of the scrape under way (read once per scrape, by the first counter collected). */
  const pendingNow = () => {
    if (!scrape) {
      scrape = { requests: new Map(), violations: new Map(), referrals: new Map() };
      tally(pending(), scrape);
      queueMicrotask(() => (scrape = undefined));
    }
    return scrape;
  };
  const requestLabels = ['purpose', 'surface', 'status_class', 'verdict'] as const;
  new Counter({
    name: 'agent_discovery_requests_total',
    help: 'Requests counted as agent traffic, by purpose class, surface, status class and Web Bot Auth verdict',
    labelNames: requestLabels,
    registers: [registry],
    collect() {
      fill(this as Counter<string>, requestLabels, requests, pendingNow().requests);
    },
  });
  new Counter({
    name: 'agent_discovery_robots_violations_total',
    help: "Requests by agents to paths the plugin's robots.txt disallows, by purpose class",
    labelNames: ['purpose'] as const,
    registers: [registry],
    collect() {
      fill(this as Counter<string>, ['purpose'], violations, pendingNow().violations);
    },
  });
  new Counter({
    name: 'agent_discovery_ai_referrals_total',
    help: 'Human visits referred by AI assistants, by assistant',
    labelNames: ['assistant'] as const,
    registers: [registry],
    collect() {
      fill(this as Counter<string>, ['assistant'], referrals, pendingNow().referrals);
    },
  });
  new Counter({
    name: 'agent_discovery_traffic_dropped_total',
    help: 'Counts dropped because more distinct keys arrived between two flushes than traffic.maxKeys',
    registers: [registry],
    collect() {
      this.reset();
      if (dropped) this.inc(dropped);
    },
  });
  return {
    registry,
    add(batch) {
      tally(batch, { requests, violations, referrals });
      dropped += batch.dropped;
    },
  };
}
