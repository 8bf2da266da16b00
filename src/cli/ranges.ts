import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { agentRangesSchema, AGENT_RANGES_FILE, parseAgentRanges, type AgentRangeListData, type AgentRangesData } from '../traffic/agent-ranges.js';
import { buildRangeList } from '../traffic/ip-ranges.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliCommand } from './command.js';

const HELP = `Usage: express-agent-discovery ranges [--refresh] [--file <path>] [--json]

Lists the IP ranges agents are verified by (the operators' published lists, data/agent-ranges.json of
the package unless --file names another). With --refresh, fetches every list again from its operator's
URL, checks every prefix, and replaces the file in one step (a temporary file renamed over it) only when
every list was fetched and valid; otherwise nothing is written and the command exits 1 naming the list
and the problem. A running plugin reads the file again within five seconds (verification.rangesFile).

  --refresh       fetch the lists from their operators' URLs and replace the file
  --file <path>   the ranges file (default: the package's data/agent-ranges.json)
  --json          what changed (or the lists) as JSON
`;

/** A list's answer larger than this is refused (the largest published list is a few hundred KB). */
const MAX_BYTES = 5 * 1024 * 1024;
const TIMEOUT_MS = 15_000;
const MAX_PREFIXES = 100_000;

/** The prefixes of an upstream answer in one of the RANGE_FORMATS; throws naming what is wrong. */
export function prefixesOf(format: AgentRangeListData['format'], body: string): string[] {
  let document: unknown;
  if (format === 'amazon-embedded') {
    const embedded = /\{\s*"creationTime"\s*:\s*"[^"]+"\s*,\s*"prefixes"\s*:\s*\[.*?\]\s*\}/s.exec(body);
    if (!embedded) throw new Error('the page embeds no {"creationTime", "prefixes"} object');
    document = JSON.parse(embedded[0]);
  } else {
    try {
      document = JSON.parse(body);
    } catch {
      throw new Error('the answer is not JSON');
    }
  }
  const prefixes = (document as { prefixes?: unknown })?.prefixes;
  if (!Array.isArray(prefixes) || prefixes.length === 0) throw new Error('the answer has no "prefixes" list');
  if (prefixes.length > MAX_PREFIXES) throw new Error(`the answer has more than ${MAX_PREFIXES} prefixes`);
  return prefixes.map((p: Record<string, unknown>, i) => {
    const value = p?.ipv4Prefix ?? p?.ipv6Prefix ?? p?.ip_prefix ?? p?.ipv6_prefix;
    if (typeof value !== 'string') throw new Error(`prefixes[${i}] has no ipv4Prefix or ipv6Prefix`);
    return value.includes('/') ? value : `${value}/${value.includes(':') ? 128 : 32}`;
  });
}

/** Fetches one list: https (http only on loopback, for tests), a timeout, a size bound. */
async function fetchList(list: AgentRangeListData): Promise<string[]> {
  const url = new URL(list.url);
  const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new Error('the URL is not https');
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error', headers: { accept: 'application/json, text/html;q=0.5' } });
  if (response.status !== 200) throw new Error(`the operator answered ${response.status}`);
  if (Number(response.headers.get('content-length') ?? 0) > MAX_BYTES) throw new Error(`the answer is larger than ${MAX_BYTES} bytes`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength > MAX_BYTES) throw new Error(`the answer is larger than ${MAX_BYTES} bytes`);
  const prefixes = prefixesOf(list.format, new TextDecoder().decode(bytes));
  buildRangeList(prefixes); // Throws naming the first prefix that is not one.
  return prefixes;
}

/** Every list fetched again; throws naming the first list that failed (nothing is written then). */
export async function refreshRanges(data: AgentRangesData, today = new Date().toISOString().slice(0, 10)) {
  const changes: { key: string; before: number; after: number; added: number; removed: number }[] = [];
  const lists: AgentRangeListData[] = [];
  for (const list of data.lists) {
    let prefixes: string[];
    try {
      prefixes = await fetchList(list);
    } catch (error) {
      throw new Error(`${list.key} (${list.url}): ${error instanceof Error ? error.message : String(error)}`);
    }
    const before = new Set(list.prefixes);
    const after = new Set(prefixes);
    changes.push({ key: list.key, before: before.size, after: after.size, added: [...after].filter((p) => !before.has(p)).length, removed: [...before].filter((p) => !after.has(p)).length });
    lists.push({ ...list, prefixes, retrieved: today, via: list.url });
  }
  const refreshed = agentRangesSchema.parse({ ...data, version: today, lists });
  return { data: refreshed, changes };
}

/** `express-agent-discovery ranges`: the published ranges agents are verified by, and their refresh. */
export const rangesCommand: CliCommand = {
  summary: 'the IP ranges agents are verified by; --refresh fetches them again from the operators',
  async run(args, io) {
    let values;
    try {
      ({ values } = parseArgs({ args: [...args], options: { refresh: { type: 'boolean' }, file: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
    } catch (error) {
      io.err(`express-agent-discovery ranges: ${(error as Error).message}\n\n${HELP}`);
      return EXIT_USAGE;
    }
    if (values.help) return io.out(HELP), EXIT_OK;
    const file = values.file ?? AGENT_RANGES_FILE;
    let data: AgentRangesData;
    try {
      data = parseAgentRanges(JSON.parse(readFileSync(file, 'utf8')), file);
    } catch (error) {
      io.err(`express-agent-discovery ranges: cannot read ${file}: ${(error as Error).message}\n`);
      return EXIT_FAILED;
    }
    if (!values.refresh) {
      const lists = data.lists.map((l) => ({ key: l.key, operator: l.operator, agents: l.agents, prefixes: l.prefixes.length, retrieved: l.retrieved, url: l.url }));
      io.out(values.json ? `${JSON.stringify({ version: data.version, lists }, null, 2)}\n` : lists.map((l) => `${l.key}: ${l.prefixes} prefixes of ${l.operator} (${l.agents.join(', ')}), ${l.retrieved}, ${l.url}\n`).join(''));
      return EXIT_OK;
    }
    try {
      const { data: refreshed, changes } = await refreshRanges(data);
      const temporary = `${file}.tmp.${process.pid}`;
      writeFileSync(temporary, `${JSON.stringify(refreshed, null, 2)}\n`);
      renameSync(temporary, file);
      io.out(values.json ? `${JSON.stringify({ file, changes }, null, 2)}\n` : changes.map((c) => `${c.key}: ${c.before} → ${c.after} prefixes (+${c.added} −${c.removed})\n`).join('') + `written: ${file}\n`);
      return EXIT_OK;
    } catch (error) {
      io.err(`express-agent-discovery ranges: refresh failed, nothing written (the file in place stays): ${(error as Error).message}\n`);
      return EXIT_FAILED;
    }
  },
};
