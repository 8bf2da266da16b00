import type { AgentCatalogue } from '../traffic/agent-catalogue.js';
import { priceMicros, type CompiledPolicy } from './agent-policy.js';

/**
 * The agent policy said where agents read it, from the same compiled rules the gate enforces (one
 * definition, several renderings): robots.txt groups for the agents it blocks, and the RSL 1.0 licence.
 */

/** A robots.txt group: every token of one agent, and the paths the policy refuses it. */
export interface RobotsGroup {
  readonly tokens: readonly string[];
  readonly disallow: readonly string[];
}

/** The paths the policy's block rules name (`/` for a rule without one). */
const blockPaths = (policy: CompiledPolicy): string[] => [...new Set(policy.policy.rules.filter((r) => r.action === 'block').map((r) => r.path ?? '/'))];

/**
 * The robots.txt groups of the agents the policy blocks even when verified (a rule on spoofed or unverified
 * requests only says nothing a crawler could obey): per catalogue agent, the block paths the gate refuses it,
 * decided by the gate's own `decide`. A path under another blocked path is left out.
 */
export function blockedRobotsGroups(policy: CompiledPolicy, catalogue: AgentCatalogue): RobotsGroup[] {
  if (!policy.active) return [];
  const paths = blockPaths(policy);
  const groups: RobotsGroup[] = [];
  for (const entry of catalogue.agents) {
    const refused = paths.filter((p) => policy.decide({ agent: entry.key, purpose: entry.purpose, verification: 'verified' }, p).action === 'block');
    const disallow = refused.filter((p) => !refused.some((q) => q !== p && p.startsWith(q)));
    if (disallow.length) groups.push({ tokens: entry.tokens, disallow: disallow.sort() });
  }
  return groups;
}

/** The agent keys the policy charges (verified), with their price: the RSL payment terms. */
export function chargedAgents(policy: CompiledPolicy, catalogue: AgentCatalogue): { agent: string; price: string }[] {
  const out: { agent: string; price: string }[] = [];
  for (const entry of catalogue.agents) {
    const d = policy.decide({ agent: entry.key, purpose: entry.purpose, verification: 'verified' }, '/');
    if (d.action === 'charge') out.push({ agent: entry.key, price: d.price! });
  }
  return out;
}

/** RSL usage terms and the purposes whose verified crawlers a site-wide block refuses them. */
const USAGES: readonly [usage: string, purposes: readonly string[]][] = [
  ['ai-train', ['training']],
  ['ai-input', ['user-fetch']],
  ['ai-index', ['search']],
  ['search', ['search']],
];

/** An agent key no rule names: what rules on purposes alone decide. */
const ANY_AGENT = '\u0000any';

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface RslInput {
  readonly policy: CompiledPolicy;
  readonly catalogue: AgentCatalogue;
  readonly siteLicense: { readonly name?: string | undefined; readonly url?: string | undefined } | undefined;
  readonly copyright: string | undefined;
  /** The absolute URL of the site's root (`https://example.org/`). */
  readonly base: string;
  /** The Content Signals in force: a usage a signal says no to is prohibited too (the licence never contradicts them). */
  readonly signals?: { readonly search: boolean | null; readonly 'ai-input': boolean | null; readonly 'ai-train': boolean | null };
}

/** The RSL usages each Content Signal speaks for. */
const SIGNAL_USAGES: Readonly<Record<'search' | 'ai-input' | 'ai-train', readonly string[]>> = { search: ['search', 'ai-index'], 'ai-input': ['ai-input'], 'ai-train': ['ai-train'] };

/**
 * The RSL 1.0 licence (`application/rsl+xml`, namespace `https://rslstandard.org/rsl`) of the whole site: usage
 * the policy refuses to verified agents of every operator (a rule on purposes), or a Content Signal says no to, is
 * prohibited, the rest permitted;
 * the site licence as an attribution licence; a charge rule as pay-per-crawl payment terms.
 *
 * ```xml
 * <rsl xmlns="https://rslstandard.org/rsl">
 *   <content url="https://example.org/">
 *     <license><permits type="usage">ai-input search ai-index</permits><prohibits type="usage">ai-train</prohibits></license>
 *   </content>
 * </rsl>
 * ```
 */
export function buildRslLicense(input: RslInput): string {
  const { policy } = input;
  const refused = (purposes: readonly string[]) =>
    purposes.every((purpose) => policy.active && policy.decide({ agent: ANY_AGENT, purpose: purpose as never, verification: 'verified' }, '/').action === 'block');
  const saidNo = Object.entries(SIGNAL_USAGES).flatMap(([signal, usages]) => (input.signals?.[signal as keyof typeof SIGNAL_USAGES] === false ? usages : []));
  const prohibits = USAGES.filter(([usage, purposes]) => refused(purposes) || saidNo.includes(usage)).map(([usage]) => usage);
  const permits = USAGES.map(([usage]) => usage).filter((u) => !prohibits.includes(u));
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<rsl xmlns="https://rslstandard.org/rsl">', `  <content url="${xml(input.base)}">`];
  if (input.copyright) lines.push(`    <copyright>${xml(input.copyright)}</copyright>`);
  lines.push('    <license>');
  if (permits.length) lines.push(`      <permits type="usage">${permits.join(' ')}</permits>`);
  if (prohibits.length) lines.push(`      <prohibits type="usage">${prohibits.join(' ')}</prohibits>`);
  if (input.siteLicense?.url) lines.push('      <payment type="attribution">', `        <standard>${xml(input.siteLicense.url)}</standard>`, '      </payment>');
  lines.push('    </license>');
  const charged = chargedAgents(policy, input.catalogue);
  if (charged.length) {
    // Pay per crawl: the lowest price asked of any agent (the 402's crawler-price names each agent's own).
    const lowest = charged.reduce((a, b) => (priceMicros(b.price) < priceMicros(a.price) ? b : a));
    lines.push('    <license>', `      <permits type="usage">${permits.join(' ') || 'search'}</permits>`, '      <payment type="crawl">', `        <amount currency="USD">${lowest.price}</amount>`, '      </payment>', '    </license>');
  }
  lines.push('  </content>', '</rsl>', '');
  return lines.join('\n');
}
