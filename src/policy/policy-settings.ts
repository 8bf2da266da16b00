import { compilePolicy, EMPTY_POLICY, type AgentPolicy, type CompiledPolicy } from './agent-policy.js';

const EMPTY = compilePolicy(EMPTY_POLICY);
let last: { text: string; compiled: CompiledPolicy } = { text: '{"rules":[]}', compiled: EMPTY };

/**
 * The policy in force, from the effective `agentPolicy` setting (JSON text, validated when stored or, for the
 * option, at start-up): compiled once per distinct text. Every place that writes or keeps the policy (the gate,
 * robots.txt, Content Signals, the RSL licence, `check`) reads it through here.
 */
export function policyInForce(settings: { readonly agentPolicy: string }): CompiledPolicy {
  const text = settings.agentPolicy;
  if (text === last.text) return last.compiled;
  let compiled = EMPTY;
  try {
    compiled = compilePolicy(JSON.parse(text) as AgentPolicy);
  } catch {
    // Stored values are validated; a row edited by hand that does not parse is no policy.
  }
  last = { text, compiled };
  return compiled;
}
