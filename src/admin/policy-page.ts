import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { compilePolicy, parseAgentPolicy, POLICY_PRESETS, type AgentPolicy } from '../policy/agent-policy.js';
import { catalogueForPolicies } from '../traffic/agent-catalogue.js';
import type { AgentPurpose } from '../traffic/agent-catalogue.js';
import type { Verification } from '../traffic/agent-identity.js';

/** What a policy would have done to the last days of traffic. */
export interface PolicyPreview {
  readonly days: number;
  readonly requests: number;
  readonly blocked: { readonly requests: number; readonly agents: number };
  readonly charged: { readonly requests: number; readonly agents: number };
  /** Requests a limit rule matched (at most this many would have been limited). */
  readonly limited: { readonly requests: number; readonly agents: number };
  /** The agents most affected, by requests refused or charged. */
  readonly top: readonly { agent: string; verification: string; action: string; requests: number }[];
}

/**
 * Decides each counted (agent, purpose, verification) of the last `days` with the policy, on the path `/` (the
 * counts keep no paths: a rule limited to a path prefix is not counted), grouped in SQL first; `pending`: the
 * counts of this process not yet written.
 */
export async function previewPolicy(
  db: Kysely<Database>,
  policy: AgentPolicy,
  pending: readonly { agent: string; purpose: string; verdict: string; requests: number }[] = [],
  days = 7,
): Promise<PolicyPreview> {
  const stored = (
    await sql<{ agent: string; purpose: string; verdict: string; requests: string }>`
      SELECT agent, purpose, verdict, sum(requests) AS requests FROM agent_discovery_traffic
      WHERE hour >= now() - make_interval(days => ${days}) GROUP BY agent, purpose, verdict`.execute(db)
  ).rows;
  const rows = [...stored, ...pending.map((p) => ({ ...p, requests: String(p.requests) }))];
  const compiled = compilePolicy(policy);
  const sums = { blocked: [0, new Set<string>()], charged: [0, new Set<string>()], limited: [0, new Set<string>()] } as Record<string, [number, Set<string>]>;
  const top: { agent: string; verification: string; action: string; requests: number }[] = [];
  let total = 0;
  for (const r of rows) {
    const requests = Number(r.requests);
    total += requests;
    const verification = (r.verdict === 'claimed' || r.verdict === 'unsigned' ? 'unverified' : r.verdict) as Verification;
    const d = compiled.decide({ agent: r.agent, purpose: r.purpose as AgentPurpose, verification }, '/');
    // A charge rule refuses what it cannot bill (unverified, spoofed).
    const action = d.action === 'charge' && verification !== 'verified' ? 'block' : d.action;
    const bucket = action === 'block' ? 'blocked' : action === 'charge' ? 'charged' : action === 'limit' ? 'limited' : undefined;
    if (!bucket) continue;
    sums[bucket]![0] += requests;
    sums[bucket]![1].add(r.agent);
    top.push({ agent: r.agent, verification, action, requests });
  }
  const of = (k: string) => ({ requests: sums[k]![0], agents: sums[k]![1].size });
  return { days, requests: total, blocked: of('blocked'), charged: of('charged'), limited: of('limited'), top: top.sort((a, b) => b.requests - a.requests).slice(0, 15) };
}

/** The policy a form sent: its JSON text parsed and checked, or the message naming the rule and field. */
export function readPolicyText(text: unknown): { ok: true; policy: AgentPolicy; text: string } | { ok: false; message: string; text: string } {
  const raw = typeof text === 'string' ? text.slice(0, 100_000) : '';
  let value: unknown;
  try {
    value = JSON.parse(raw.trim() === '' ? '{"rules":[]}' : raw);
  } catch {
    return { ok: false, message: 'The policy must be JSON such as {"rules": [{"purpose": "training", "action": "block"}]}.', text: raw };
  }
  const parsed = parseAgentPolicy(value, catalogueForPolicies(), 'Policy');
  return parsed.ok ? { ok: true, policy: parsed.policy, text: JSON.stringify(parsed.policy, null, 2) } : { ok: false, message: parsed.message, text: raw };
}

/** The preset of a name, as the form's text. */
export function presetText(name: unknown): string | undefined {
  const preset = typeof name === 'string' ? POLICY_PRESETS[name] : undefined;
  return preset ? JSON.stringify({ rules: preset.rules }, null, 2) : undefined;
}

/** One line of what a policy does, for the record of changes. */
export function policySummary(policy: AgentPolicy): string {
  if (!policy.rules.length) return 'no rules: every agent allowed';
  return policy.rules
    .map((r) => {
      const who = [r.agent && `agent ${[r.agent].flat().join('/')}`, r.purpose && `purpose ${[r.purpose].flat().join('/')}`, r.verification && [r.verification].flat().join('/'), r.path && `under ${r.path}`].filter(Boolean).join(', ') || 'every request';
      const what = r.action === 'limit' ? `limit ${r.perMinute}/min` : r.action === 'charge' ? `charge ${r.price} USD` : r.action;
      return `${what}: ${who}`;
    })
    .join('; ');
}

/** Records a saved policy. */
export async function recordPolicyChange(db: Kysely<Database>, policy: AgentPolicy): Promise<void> {
  await db.insertInto('agent_discovery_policy_log').values({ policy: JSON.stringify(policy), summary: policySummary(policy) }).execute();
}

/** The last changes, newest first. */
export async function policyChanges(db: Kysely<Database>, limit = 20): Promise<{ changedAt: string; summary: string }[]> {
  const rows = await db.selectFrom('agent_discovery_policy_log').select(['changed_at', 'summary']).orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ changedAt: new Date(r.changed_at).toISOString().replace('T', ' ').slice(0, 19) + ' UTC', summary: r.summary }));
}
