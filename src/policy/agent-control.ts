import type { Request } from 'express';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ResolvedOptions } from '../options.js';
import { effectiveSettings } from '../settings/effective-settings.js';
import { loadAgentCatalogue, type AgentCatalogue, type AgentEntry } from '../traffic/agent-catalogue.js';
import { createAgentIdentifier, type AgentIdentifier } from '../traffic/agent-identity.js';
import { AGENT_RANGES_FILE, createRangesSource } from '../traffic/agent-ranges.js';
import { createDnsVerifier } from '../traffic/reverse-dns.js';
import type { TrafficRecorder } from '../traffic/traffic-recorder.js';
import { createBotVerifier, DEFAULT_SIGNATURE_AGENT_ORIGINS } from '../traffic/web-bot-auth.js';
import { PATHS } from '../paths.js';
import { createAgentGate, type AgentDecision, type AgentGate } from './agent-gate.js';
import type { CompiledPolicy } from './agent-policy.js';
import { ChargeLedger } from '../traffic/charge-ledger.js';
import { policyInForce } from './policy-settings.js';

/** Who is asking and what they get: the identification, the policy in force, the gate, the charge ledger. */
export interface AgentControl {
  readonly identifier: AgentIdentifier;
  /** The catalogue the requests are identified by (the package's and `traffic.agents`). */
  readonly catalogue: AgentCatalogue;
  readonly gate: AgentGate;
  readonly ledger: ChargeLedger;
  /** The policy in force (read from the settings every few seconds, and at once after `refresh`). */
  policy(): CompiledPolicy;
  /** Reads the settings again now (the admin's Policy and Settings forms call it after a save). */
  refresh(): Promise<void>;
  decide(req: Request): Promise<AgentDecision>;
  close(): Promise<void>;
}

/** The identification of requests, with what it holds open (DNS checks, key directory fetches). */
export interface Identification {
  readonly identifier: AgentIdentifier;
  readonly catalogue: AgentCatalogue;
  close(): Promise<void>;
}

/**
 * The one identification of requests: the catalogue (the package's and `traffic.agents`), the published ranges
 * (`verification.rangesFile`, read again when it changes), reverse DNS (off the request path), Web Bot Auth (the
 * default origins and `traffic.signatureAgents`).
 */
export function createIdentification(o: ResolvedOptions): Identification {
  const catalogue = loadAgentCatalogue(o.traffic ? (o.traffic.agents as readonly AgentEntry[]) : []);
  const ranges = createRangesSource(o.verification.rangesFile ?? AGENT_RANGES_FILE);
  const dns = o.verification.reverseDns === false ? undefined : createDnsVerifier();
  const signatures = createBotVerifier({ allowedOrigins: [...new Set([...DEFAULT_SIGNATURE_AGENT_ORIGINS, ...(o.traffic ? o.traffic.signatureAgents : [])])] });
  return {
    catalogue,
    identifier: createAgentIdentifier({ catalogue, ranges: () => ranges.current(), dns, signatures }),
    async close() {
      await dns?.settled();
      dns?.close();
      signatures.close();
    },
  };
}

/** How often the policy is read from the settings, and the charges written. */
const TICK_MS = 5000;

/** The decision of requests over an identification: the policy from the settings, the gate, the charge ledger. */
export async function createAgentControl(
  ctx: { readonly options: ResolvedOptions; readonly db: Kysely<Database> },
  identification: Identification,
  traffic: TrafficRecorder | undefined,
): Promise<AgentControl> {
  const o = ctx.options;
  const { identifier } = identification;
  const ledger = new ChargeLedger();
  let policy = policyInForce({ agentPolicy: o.agentPolicy === undefined ? '{"rules":[]}' : JSON.stringify(o.agentPolicy) });
  let robotsTxt = o.robotsTxt;

  async function refresh(): Promise<void> {
    try {
      policy = policyInForce(await effectiveSettings(ctx));
    } catch {
      // The database is away: keep the policy known; the next tick reads it again.
    }
  }

  async function flushCharges(): Promise<void> {
    await ledger.flush(ctx.db).catch(() => undefined);
  }

  await refresh();
  const timer = setInterval(() => void refresh().then(flushCharges), TICK_MS);
  timer.unref();

  const gate = createAgentGate({
    identifier,
    policy: () => policy,
    purposeLimits: o.traffic ? o.traffic.rateLimits : {},
    traffic,
    ledger,
    mcpPath: o.mcp ? o.mcp.path : null,
    places: () => ({ robotsTxt: robotsTxt ? PATHS.robotsTxt.template : 'this site\'s robots.txt', license: robotsTxt ? PATHS.licenseXml.template : null }),
  });

  return {
    identifier,
    catalogue: identification.catalogue,
    gate,
    ledger,
    policy: () => policy,
    refresh,
    decide: (req) => gate.decide(req),
    async close() {
      clearInterval(timer);
      robotsTxt = false;
      await identification.close();
      await flushCharges();
    },
  };
}
