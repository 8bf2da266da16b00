import { z } from 'zod';
import { AGENT_PURPOSES, type AgentCatalogue } from '../traffic/agent-catalogue.js';
import { VERIFICATION_STATES, type AgentIdentity } from '../traffic/agent-identity.js';

/**
 * The agent policy: what each agent gets, said once (the `agentPolicy` option and the run-time setting of the
 * same name share this schema). Ordered rules, first match wins, default allow. A rule matches on any of agent
 * key(s), purpose(s), verification state(s) and a path prefix; its action is `allow`, `block` (403), `limit`
 * (`perMinute`, 429) or `charge` (`price` in USD per request, 402 pay per crawl; verified agents only).
 *
 * ```json
 * { "rules": [ { "purpose": "training", "action": "block" },
 *              { "verification": "spoofed", "action": "block" },
 *              { "agent": "bingbot", "action": "charge", "price": "0.002" } ] }
 * ```
 */
export const POLICY_ACTIONS = ['allow', 'block', 'limit', 'charge'] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];
export const MAX_POLICY_RULES = 200;
/** The most a `limit` rule may allow a minute, and the dearest price (USD) a `charge` rule may ask. */
export const MAX_PER_MINUTE = 100_000;
export const MAX_PRICE_MICROS = 1_000_000_000;

/** The agent keys a rule may name besides the catalogue's: the classes of requests no entry names. */
export const AGENT_CLASSES = ['browser', 'markdown-client', 'other-bot', 'unknown'] as const;

const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1).max(500)]);
const agentKey = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be an agent key of the catalogue (lower-case letters, digits, hyphens)');

const ruleSchema = z.strictObject({
  agent: oneOrMany(agentKey).optional(),
  purpose: oneOrMany(z.enum(AGENT_PURPOSES, { error: `must be one of ${AGENT_PURPOSES.join(', ')}` })).optional(),
  verification: oneOrMany(z.enum(VERIFICATION_STATES, { error: `must be one of ${VERIFICATION_STATES.join(', ')}` })).optional(),
  path: z
    .string()
    .max(512, 'must be at most 512 characters')
    .regex(/^\/[^\s?#]*$/, 'must be a path starting with / (no spaces, query or fragment)')
    .optional(),
  action: z.enum(POLICY_ACTIONS, { error: `must be one of ${POLICY_ACTIONS.join(', ')}` }),
  perMinute: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(MAX_PER_MINUTE, `must be at most ${MAX_PER_MINUTE}`).optional(),
  price: z.string({ error: 'must be a decimal text such as "0.002"' }).regex(/^\d{1,4}(?:\.\d{1,6})?$/, 'must be a decimal amount in USD with at most 6 places, such as "0.002"').optional(),
});

export const agentPolicySchema = z.strictObject({
  rules: z.array(ruleSchema).max(MAX_POLICY_RULES, `must have at most ${MAX_POLICY_RULES} rules`),
});

export type AgentPolicyRule = z.infer<typeof ruleSchema>;
export type AgentPolicy = z.infer<typeof agentPolicySchema>;

export const EMPTY_POLICY: AgentPolicy = Object.freeze({ rules: Object.freeze([]) as unknown as AgentPolicyRule[] });

/** A price text in millionths of a dollar (`"0.002"` → 2000). */
export const priceMicros = (price: string): number => {
  const [whole, fraction = ''] = price.split('.');
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0'));
};

/** A price in the form the pay-per-crawl headers carry it (`USD 0.002`). */
export const priceHeader = (price: string): string => `USD ${price}`;

const list = <T>(v: T | readonly T[] | undefined): readonly T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? (v as readonly T[]) : [v as T]);

/** The problems a schema cannot see: actions without their amount, unknown agents, rules that can never match. */
function ruleProblems(rules: readonly AgentPolicyRule[], catalogue: AgentCatalogue): { index: number; field: string; message: string } | undefined {
  const purposeOf = new Map<string, string>([...catalogue.agents.map((a) => [a.key, a.purpose] as const), ...catalogue.mcpClients.map((m) => [m.key, m.purpose] as const)]);
  for (const c of AGENT_CLASSES) purposeOf.set(c, c === 'markdown-client' ? 'coding-agent' : c === 'other-bot' ? 'other-bot' : c === 'browser' ? 'browser' : 'unknown');
  let catchAll = -1;
  for (const [index, rule] of rules.entries()) {
    if (catchAll >= 0) return { index, field: 'action', message: `can never match: rule ${catchAll + 1} before it matches every request` };
    if (rule.action === 'limit' && rule.perMinute === undefined) return { index, field: 'perMinute', message: 'is required with action "limit"' };
    if (rule.action !== 'limit' && rule.perMinute !== undefined) return { index, field: 'perMinute', message: 'is only for action "limit"' };
    if (rule.action === 'charge' && rule.price === undefined) return { index, field: 'price', message: 'is required with action "charge"' };
    if (rule.action !== 'charge' && rule.price !== undefined) return { index, field: 'price', message: 'is only for action "charge"' };
    if (rule.price !== undefined && (priceMicros(rule.price) === 0 || priceMicros(rule.price) > MAX_PRICE_MICROS)) return { index, field: 'price', message: 'must be more than 0 and at most 1000 USD' };
    const agents = list(rule.agent);
    const purposes = list(rule.purpose);
    for (const agent of agents ?? []) {
      const purpose = purposeOf.get(agent);
      if (purpose === undefined) return { index, field: 'agent', message: `"${agent}" is not an agent of the catalogue` };
    }
    if (agents && purposes && !agents.some((a) => purposes.includes(purposeOf.get(a) as never))) {
      return { index, field: 'purpose', message: `can never match: none of the agents named has one of these purposes` };
    }
    if (!agents && !purposes && !rule.verification && !rule.path) catchAll = index;
  }
  return undefined;
}

/**
 * Validates a policy (the option at start-up, the setting when the form is saved): the policy, or a message
 * naming the rule (1-based, as the admin form numbers them) and the field.
 */
export function parseAgentPolicy(value: unknown, catalogue: AgentCatalogue, label = 'agentPolicy'): { ok: true; policy: AgentPolicy } | { ok: false; message: string } {
  const parsed = agentPolicySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [, index, field] = issue.path;
    const where = typeof index === 'number' ? `rule ${index + 1}${field !== undefined ? ` field "${String(field)}"` : ''}` : issue.path.join('.') || 'the policy';
    const message = issue.code === 'unrecognized_keys' ? `has an unknown field (${issue.keys.join(', ')})` : issue.message;
    return { ok: false, message: `${label}: ${where} ${message}` };
  }
  const problem = ruleProblems(parsed.data.rules, catalogue);
  if (problem) return { ok: false, message: `${label}: rule ${problem.index + 1} field "${problem.field}" ${problem.message}` };
  return { ok: true, policy: parsed.data };
}

/** What the policy decides for one request. */
export interface PolicyDecision {
  readonly action: PolicyAction;
  /** The index of the rule that matched (`null`: none did, the default allow). */
  readonly rule: number | null;
  readonly perMinute?: number;
  readonly price?: string;
}

const ALLOW: PolicyDecision = Object.freeze({ action: 'allow', rule: null });

interface CompiledRule {
  readonly agents: ReadonlySet<string> | null;
  readonly purposes: ReadonlySet<string> | null;
  readonly verifications: ReadonlySet<string> | null;
  readonly path: string | null;
  readonly decision: PolicyDecision;
}

/** A policy compiled for deciding: sets per rule, decisions made once. */
export interface CompiledPolicy {
  readonly policy: AgentPolicy;
  /** Decides on who asks and the path alone (never on other headers): a blocked agent retrying with other headers gets the same answer. */
  decide(who: Pick<AgentIdentity, 'agent' | 'purpose' | 'verification'>, path: string): PolicyDecision;
  /** Whether any rule applies at all (an empty policy costs a request nothing). */
  readonly active: boolean;
}

export function compilePolicy(policy: AgentPolicy): CompiledPolicy {
  const set = <T extends string>(v: T | readonly T[] | undefined) => (v === undefined ? null : new Set<string>(list(v)));
  const rules: CompiledRule[] = policy.rules.map((rule, index) => ({
    agents: set(rule.agent),
    purposes: set(rule.purpose),
    verifications: set(rule.verification),
    path: rule.path ?? null,
    decision: Object.freeze({ action: rule.action, rule: index, ...(rule.perMinute !== undefined ? { perMinute: rule.perMinute } : {}), ...(rule.price !== undefined ? { price: rule.price } : {}) }),
  }));
  const compiled: CompiledPolicy = {
    policy,
    active: rules.length > 0,
    decide(who, path) {
      for (const r of rules) {
        if (r.agents && !r.agents.has(who.agent)) continue;
        if (r.purposes && !r.purposes.has(who.purpose)) continue;
        if (r.verifications && !r.verifications.has(who.verification)) continue;
        if (r.path && !path.startsWith(r.path)) continue;
        return r.decision;
      }
      return ALLOW;
    },
  };
  return Object.freeze(compiled);
}

/** Presets an owner picks in one click (the admin's Policy page; the docs list them). */
export const POLICY_PRESETS: Readonly<Record<string, { readonly label: string; readonly rules: readonly AgentPolicyRule[] }>> = Object.freeze({
  'block-training': { label: 'Block AI training', rules: [{ purpose: 'training', action: 'block' }] },
  'block-spoofed': { label: 'Block spoofed agents', rules: [{ verification: 'spoofed', action: 'block' }] },
  'only-verified': {
    label: 'Only verified AI agents',
    rules: [{ purpose: ['training', 'search', 'user-fetch'], verification: ['spoofed', 'unverified'], action: 'block' }],
  },
});

/** An agent key no rule names: what a rule on purposes alone decides for every agent of that purpose. */
const ANY_AGENT = '\u0000any';

/** Whether the policy refuses verified training crawlers the whole site (a rule on the purpose, not on named agents). */
export function blocksTraining(policy: CompiledPolicy): boolean {
  return policy.active && policy.decide({ agent: ANY_AGENT, purpose: 'training', verification: 'verified' }, '/').action === 'block';
}
