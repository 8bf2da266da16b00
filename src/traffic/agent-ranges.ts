import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { AGENT_CATALOGUE_FILE } from './agent-catalogue.js';
import { buildRangeList, parsePrefix, type RangeList } from './ip-ranges.js';

/**
 * The operators' published verification data (`data/agent-ranges.json`): the IP ranges each operator
 * publishes for its crawlers and fetchers (with the operator's URL, which `ranges --refresh` fetches, and
 * where the shipped snapshot was taken from), and the reverse-DNS suffixes operators document.
 */
export const AGENT_RANGES_FILE = path.join(path.dirname(AGENT_CATALOGUE_FILE), 'agent-ranges.json');

/**
 * Upstream shapes a refresh reads: `prefixes`, the JSON `{ prefixes: [{ ipv4Prefix } | { ipv6Prefix }] }` most
 * operators publish; `amazon-embedded`, Amazon's HTML page embedding one such object (bare addresses get /32 or /128).
 */
export const RANGE_FORMATS = ['prefixes', 'amazon-embedded'] as const;

const agentKey = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/);
const prefix = z.string().refine((p) => parsePrefix(p) !== undefined, { message: 'is not an IPv4 or IPv6 prefix' });

const rangeListSchema = z.object({
  key: agentKey,
  operator: z.string().min(1),
  agents: z.array(agentKey).min(1),
  url: z.url(),
  format: z.enum(RANGE_FORMATS),
  retrieved: z.iso.date(),
  via: z.string().optional(),
  prefixes: z.array(prefix).min(1).max(100_000),
});

const dnsSchema = z.object({
  agents: z.array(agentKey).min(1),
  operator: z.string().min(1),
  suffixes: z.array(z.string().regex(/^(?:[a-z0-9-]+\.)+[a-z]{2,}$/, 'must be a domain name')).min(1),
  source: z.url(),
});

export const agentRangesSchema = z.object({
  version: z.iso.date(),
  formats: z.record(z.string(), z.string()).optional(),
  lists: z.array(rangeListSchema),
  dns: z.array(dnsSchema),
});

export type AgentRangesData = z.infer<typeof agentRangesSchema>;
export type AgentRangeListData = z.infer<typeof rangeListSchema>;

/** What verification knows per agent key: its range lists and its DNS suffixes. */
export interface AgentRanges {
  readonly version: string;
  /** The ranges that verify each agent (several lists may name one agent). */
  readonly lists: ReadonlyMap<string, readonly RangeList[]>;
  /** The reverse-DNS suffixes that verify each agent (`.googlebot.com` form, lower case). */
  readonly dns: ReadonlyMap<string, readonly string[]>;
  /** Every list, by its key, with its source: for the docs, `ranges`, the admin. */
  readonly sources: readonly { key: string; operator: string; agents: readonly string[]; url: string; retrieved: string; prefixes: number }[];
}

/** Validates a ranges document; throws an Error naming the first bad field. */
export function parseAgentRanges(value: unknown, origin: string): AgentRangesData {
  const parsed = agentRangesSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`express-agent-discovery: ${origin} is not a valid ranges file: ${issue.path.join('.')}: ${issue.message}`);
}

/** The in-memory form of a ranges document. */
export function indexAgentRanges(data: AgentRangesData): AgentRanges {
  const lists = new Map<string, RangeList[]>();
  for (const list of data.lists) {
    const built = buildRangeList(list.prefixes);
    for (const agent of list.agents) lists.set(agent, [...(lists.get(agent) ?? []), built]);
  }
  const dns = new Map<string, string[]>();
  for (const entry of data.dns) {
    for (const agent of entry.agents) dns.set(agent, [...(dns.get(agent) ?? []), ...entry.suffixes.map((s) => `.${s.toLowerCase()}`)]);
  }
  return Object.freeze({
    version: data.version,
    lists,
    dns,
    sources: Object.freeze(data.lists.map((l) => Object.freeze({ key: l.key, operator: l.operator, agents: l.agents, url: l.url, retrieved: l.retrieved, prefixes: l.prefixes.length }))),
  });
}

/**
 * The ranges read from each file, by path, with the file's stamp when read: every instance of a process
 * (an app with several mounts, a test suite) shares one parse of a file that has not changed since (the
 * shipped file is about 5,000 prefixes, each validated: about 40 ms of CPU a read).
 */
const parsedFiles = new Map<string, { stamp: string; ranges: AgentRanges }>();

/** A file's modification time and size, or '' when it cannot be read. */
function fileStamp(file: string): string {
  try {
    const s = statSync(file);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return '';
  }
}

/** Reads and indexes a ranges file (or returns the ranges already read from it unchanged). Throws naming the file and the problem. */
export function readAgentRanges(file: string): AgentRanges {
  const stamp = fileStamp(file);
  const known = parsedFiles.get(file);
  if (known && stamp && known.stamp === stamp) return known.ranges;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`express-agent-discovery: cannot read the ranges file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const ranges = indexAgentRanges(parseAgentRanges(json, file));
  if (stamp) parsedFiles.set(file, { stamp, ranges });
  return ranges;
}

/**
 * The ranges in force, read from `file` and read again when the file changes (its modification time and
 * size, checked at most once per `checkEveryMs` when `current()` is called: a `ranges --refresh` that
 * replaced the file is picked up without a restart). A file that no longer reads keeps the last good ranges.
 */
export function createRangesSource(file: string, checkEveryMs = 5000): { current(): AgentRanges; readonly file: string } {
  let seen = fileStamp(file);
  let ranges = readAgentRanges(file);
  let checked = Date.now();
  return {
    file,
    current() {
      const now = Date.now();
      if (now - checked < checkEveryMs) return ranges;
      checked = now;
      const next = fileStamp(file);
      if (next && next !== seen) {
        seen = next;
        try {
          ranges = readAgentRanges(file);
        } catch {
          // Keep the last good ranges; the CLI refuses to write a bad file, so this is a file edited by hand.
        }
      }
      return ranges;
    },
  };
}
