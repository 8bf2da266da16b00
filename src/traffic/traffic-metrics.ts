import { Counter, Registry } from 'prom-client';

/** Prometheus counters of agent traffic, in a registry of their own (never the process's global one). */
export interface TrafficMetrics {
  readonly registry: Registry;
  count(purpose: string, surface: string, status: number, verdict: string, robotsViolation: boolean): void;
  referral(assistant: string): void;
  dropped(n: number): void;
}

/**
 * The counters, with labels from bounded sets only (purposes, surfaces, status classes, verdicts,
 * assistants of the referrers list): never an agent's user agent, a path or an id.
 *
 * ```text
 * agent_discovery_requests_total{purpose="training",surface="page-html",status_class="2xx",verdict="unsigned"} 12
 * ```
 */
export function createTrafficMetrics(): TrafficMetrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'agent_discovery_requests_total',
    help: 'Requests counted as agent traffic, by purpose class, surface, status class and Web Bot Auth verdict',
    labelNames: ['purpose', 'surface', 'status_class', 'verdict'] as const,
    registers: [registry],
  });
  const violations = new Counter({
    name: 'agent_discovery_robots_violations_total',
    help: "Requests by agents to paths the plugin's robots.txt disallows, by purpose class",
    labelNames: ['purpose'] as const,
    registers: [registry],
  });
  const referrals = new Counter({
    name: 'agent_discovery_ai_referrals_total',
    help: 'Human visits referred by AI assistants, by assistant',
    labelNames: ['assistant'] as const,
    registers: [registry],
  });
  const dropped = new Counter({
    name: 'agent_discovery_traffic_dropped_total',
    help: 'Counts dropped because more distinct keys arrived between two flushes than traffic.maxKeys',
    registers: [registry],
  });
  return {
    registry,
    count(purpose, surface, status, verdict, robotsViolation) {
      requests.inc({ purpose, surface, status_class: `${Math.trunc(status / 100)}xx`, verdict });
      if (robotsViolation) violations.inc({ purpose });
    },
    referral(assistant) {
      referrals.inc({ assistant });
    },
    dropped(n) {
      if (n > 0) dropped.inc(n);
    },
  };
}
