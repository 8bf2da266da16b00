import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** What an agent's requests are for, from the most to the least specific claim. */
export const AGENT_PURPOSES = ['training', 'search', 'user-fetch', 'coding-agent', 'other-bot', 'browser', 'unknown'] as const;
export type AgentPurpose = (typeof AGENT_PURPOSES)[number];

/** The catalogue the package ships: `data/agent-catalogue.json` at the package root. */
export const AGENT_CATALOGUE_FILE = (() => {
  // Sources live in src/traffic/, compiled code in dist/src/traffic/: both resolve to the package's data/.
  const here = path.dirname(fileURLToPath(import.meta.url));
  const src = path.dirname(here);
  const root = path.basename(path.dirname(src)) === 'dist' ? path.resolve(src, '../..') : path.resolve(src, '..');
  return path.join(root, 'data', 'agent-catalogue.json');
})();

const key = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1-64 lower-case letters, digits and hyphens');
const purpose = z.enum(AGENT_PURPOSES, { error: `must be one of ${AGENT_PURPOSES.join(', ')}` });
/** A user-agent token as it appears in the header (matched case-insensitively, as a whole word). */
const token = z.string().regex(/^[\x21-\x7e](?:[\x20-\x7e]{0,62}[\x21-\x7e])?$/, 'must be 1-64 printable ASCII characters, no space at either end');

const agentEntrySchema = z.strictObject({
  key,
  tokens: z.array(token).min(1, 'must name at least one token'),
  operator: z.string().min(1).nullable(),
  product: z.string().min(1),
  purpose,
  url: z.url().optional(),
  /**
   * The Web Bot Auth key directory origin the operator signs this agent's requests with (`https://chatgpt.com`):
   * such an agent's unsigned (or badly signed) request, from outside its published ranges, is `spoofed`.
   */
  signatureAgent: z.url().optional(),
  /**
   * An HTTP library's token (axios, undici, python-httpx …): a library names no agent, so a request whose
   * Accept puts Markdown first counts as a coding agent (Claude Code's fetch sends `axios/…`), not as the library.
   */
  library: z.boolean().optional(),
  /** A robots.txt token only (Google-Extended): kept for robots.txt, never matched against a user agent. */
  robotsOnly: z.boolean().optional(),
  /** The `sources[].name` documenting the entry's purpose. */
  source: z.string().optional(),
  note: z.string().optional(),
});

const sourceSchema = z.strictObject({
  name: z.string().min(1),
  url: z.url(),
  license: z.string().min(1),
  retrieved: z.iso.date(),
  note: z.string().optional(),
});

const acceptSchema = z.strictObject({
  key,
  signal: z.literal('markdown-first'),
  purpose,
  note: z.string(),
  source: z.string().optional(),
});

const mcpClientSchema = z.strictObject({
  /** The `clientInfo.name` an MCP client sends, compared case-insensitively. */
  match: z.string().min(1).max(128),
  key,
  operator: z.string().min(1).nullable(),
  product: z.string().min(1),
  purpose,
  source: z.string().optional(),
});

const catalogueSchema = z
  .strictObject({
    version: z.iso.date(),
    sources: z.array(sourceSchema).min(1),
    agents: z.array(agentEntrySchema),
    accept: z.array(acceptSchema),
    mcpClients: z.array(mcpClientSchema),
  })
  .superRefine((catalogue, ctx) => {
    const sources = new Set(catalogue.sources.map((s) => s.name));
    const keys = new Set<string>();
    const tokens = new Map<string, string>();
    catalogue.agents.forEach((entry, i) => {
      if (keys.has(entry.key)) ctx.addIssue({ code: 'custom', path: ['agents', i, 'key'], message: `duplicate key "${entry.key}"` });
      keys.add(entry.key);
      for (const t of entry.tokens) {
        const other = tokens.get(t.toLowerCase());
        if (other) ctx.addIssue({ code: 'custom', path: ['agents', i, 'tokens'], message: `token "${t}" is also ${other}'s` });
        tokens.set(t.toLowerCase(), entry.key);
      }
    });
    const named = [...catalogue.agents.map((e, i) => ['agents', i, e.source] as const), ...catalogue.accept.map((e, i) => ['accept', i, e.source] as const), ...catalogue.mcpClients.map((e, i) => ['mcpClients', i, e.source] as const)];
    for (const [list, i, source] of named) {
      if (source !== undefined && !sources.has(source)) ctx.addIssue({ code: 'custom', path: [list, i, 'source'], message: `"${source}" is not in sources` });
    }
  });

export type AgentEntry = z.infer<typeof agentEntrySchema>;
export type AgentCatalogueSource = z.infer<typeof sourceSchema>;
export type AcceptSignal = z.infer<typeof acceptSchema>;
export type McpClientEntry = z.infer<typeof mcpClientSchema>;
export type AgentCatalogue = z.infer<typeof catalogueSchema>;

const where = (issue: z.core.$ZodIssue): string => (issue.path.length ? `${issue.path.join('.')}: ` : '');

/**
 * Validates a catalogue (the shape of `data/agent-catalogue.json`): keys and tokens unique, every purpose
 * one of {@link AGENT_PURPOSES}, every `source` named in `sources`, `version` a date. Throws an Error
 * naming the first bad field.
 */
export function parseAgentCatalogue(value: unknown, origin = 'data/agent-catalogue.json'): AgentCatalogue {
  const parsed = catalogueSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`express-agent-discovery: ${origin} is not a valid agent catalogue: ${where(issue)}${issue.message}`);
}

const SHIPPED: AgentCatalogue = deepFreeze(parseAgentCatalogue(JSON.parse(readFileSync(AGENT_CATALOGUE_FILE, 'utf8'))));

/**
 * The shipped catalogue with a host's entries (the `traffic.agents` option) merged in: a host entry
 * replaces the shipped entry of the same key, and its tokens win over a shipped entry's. Throws an Error
 * naming the entry when one is not valid.
 *
 * ```ts
 * loadAgentCatalogue([{ key: 'acme-bot', tokens: ['AcmeBot'], operator: 'Acme', product: 'AcmeBot', purpose: 'search' }])
 * ```
 */
export function loadAgentCatalogue(extra: readonly AgentEntry[] = []): AgentCatalogue {
  if (extra.length === 0) return SHIPPED;
  const loaded = mergeCatalogue(extra);
  policyCatalogue = deepFreeze({ ...policyCatalogue, agents: [...new Map([...policyCatalogue.agents, ...loaded.agents].map((a) => [a.key, a])).values()] });
  return loaded;
}

let policyCatalogue: AgentCatalogue = SHIPPED;

/**
 * The catalogue a stored agent policy's keys are checked against: the package's, with every host entry any
 * plugin of this process loaded (the run-time setting has one schema, whichever plugin reads it).
 */
export function catalogueForPolicies(): AgentCatalogue {
  return policyCatalogue;
}

function mergeCatalogue(extra: readonly AgentEntry[]): AgentCatalogue {
  const merged = new Map(SHIPPED.agents.map((entry) => [entry.key, entry]));
  const seen = new Set<string>();
  extra.forEach((raw, i) => {
    const parsed = agentEntrySchema.safeParse(raw);
    const label = typeof raw?.key === 'string' ? ` ("${raw.key.slice(0, 64)}")` : '';
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`express-agent-discovery: traffic.agents[${i}]${label}: ${where(issue)}${issue.message}`);
    }
    if (seen.has(parsed.data.key)) throw new Error(`express-agent-discovery: traffic.agents[${i}]${label}: key given twice`);
    seen.add(parsed.data.key);
    merged.delete(parsed.data.key);
    merged.set(parsed.data.key, parsed.data);
  });
  return deepFreeze({ ...SHIPPED, agents: [...merged.values()] });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
