import { isbot } from 'isbot';
import Negotiator from 'negotiator';
import type { AgentCatalogue, AgentPurpose } from './agent-catalogue.js';

/** Who sent a request, as a count keys it: never the raw user agent. */
export interface AgentClassification {
  /** A catalogue key (`gptbot`), or a class: `markdown-client`, `browser`, `other-bot`, `unknown`. */
  readonly agent: string;
  readonly operator: string | null;
  readonly purpose: AgentPurpose;
  /** True only when a catalogue entry (user-agent token or MCP client name) named the agent. */
  readonly known: boolean;
}

/** The request headers the classification reads, and the MCP `clientInfo.name` when there is one. */
export interface RequestSignals {
  userAgent: string | undefined;
  accept: string | undefined;
  mcpClient?: string | undefined;
}

/** Only this much of a user agent is read: a 100 KB header costs what a short one does. */
export const MAX_USER_AGENT_CHARS = 512;
/** Distinct user agents whose classification is remembered; the memo is emptied when it is full. */
export const CLASSIFICATION_MEMO_SIZE = 2000;
const MAX_ACCEPT_CHARS = 512;
const ACCEPT_MEMO_SIZE = 256;
const MAX_MCP_CLIENT_CHARS = 128;

const BROWSER: AgentClassification = Object.freeze({ agent: 'browser', operator: null, purpose: 'browser', known: false });
const OTHER_BOT: AgentClassification = Object.freeze({ agent: 'other-bot', operator: null, purpose: 'other-bot', known: false });
const UNKNOWN: AgentClassification = Object.freeze({ agent: 'unknown', operator: null, purpose: 'unknown', known: false });

/** A browser's user agent: `Mozilla/5.0 (…)` with a rendering engine, or Opera's Presto. */
const BROWSER_LIKE = /^Mozilla\/5\.0 \(.*?\b(?:AppleWebKit|Gecko|Trident)\/|^Opera\/.*?\bPresto\//;

const known = (agent: string, operator: string | null, purpose: AgentPurpose): AgentClassification =>
  Object.freeze({ agent, operator, purpose, known: true });

/**
 * One RegExp for every token: a token counts only as a whole word (`GPTBot` is not in `NotGPTBotX` nor
 * in `openai.com/gptbot.html`), case-insensitively; longer tokens are tried first at each position.
 */
function tokenPattern(tokens: readonly string[]): RegExp {
  const escaped = [...tokens].sort((a, b) => b.length - a.length).map((t) => t.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'));
  return new RegExp(`(?<![\\w.@-])(?:${escaped.join('|')})(?![\\w.@])`, 'gi');
}

/**
 * Whether `Accept` prefers `text/markdown` or `text/x-markdown` to `text/html` by RFC 9110 q-values
 * (`negotiator`, parameters other than q ignored): Claude Code's `text/markdown, text/html, *\/*` and
 * Cursor's `text/markdown;q=1.0, text/html;q=0.8` do; a browser's, `*\/*` and `text/html, text/markdown` do not.
 */
function prefersMarkdownAccept(accept: string): boolean {
  const ranges = accept
    .split(',')
    .map((range) => range.split(';').filter((part, i) => i === 0 || /^\s*q\s*=/i.test(part)).join(';'))
    .join(',');
  const best = new Negotiator({ headers: { accept: ranges } }).mediaType(['text/html', 'text/markdown', 'text/x-markdown']);
  return best === 'text/markdown' || best === 'text/x-markdown';
}

/**
 * A classifier over a catalogue (see `loadAgentCatalogue`), compiled once: every user-agent token into
 * one RegExp, MCP client names into a map. In order, a request is:
 * 1. the catalogue agent whose token its user agent carries (the longest token found wins:
 *    `Claude-User (claude-code` over `Claude-User`), except that an HTTP library's token (`axios`) with an
 *    Accept that prefers Markdown is `markdown-client`;
 * 2. else the agent of its MCP client name (`claude-code`, `cursor-vscode`);
 * 3. else `markdown-client` (a coding agent) when its Accept prefers Markdown to HTML;
 * 4. else `other-bot` when `isbot` calls its user agent a bot, `browser` when it reads as a browser,
 *    and `unknown` otherwise (no user agent included).
 * Only the first 512 characters of a user agent are read. What a user agent alone says is remembered for
 * the last 2,000 distinct ones (the Accept class applies after, so a pair costs no more memory), and
 * Accept's class for the last 256 distinct headers naming Markdown. An unknown agent is counted under
 * its class, never its text.
 *
 * ```ts
 * const classifyRequest = createRequestClassifier(loadAgentCatalogue());
 * classifyRequest({ userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.3; +https://openai.com/gptbot)', accept: '*\/*' })
 * // { agent: 'gptbot', operator: 'OpenAI', purpose: 'training', known: true }
 * ```
 */
export function createRequestClassifier(catalogue: AgentCatalogue): (signals: RequestSignals) => AgentClassification {
  const byToken = new Map<string, AgentClassification>();
  const libraries = new Set<AgentClassification>();
  for (const entry of catalogue.agents) {
    if (entry.robotsOnly) continue;
    const result = known(entry.key, entry.operator, entry.purpose);
    if (entry.library) libraries.add(result);
    for (const token of entry.tokens) byToken.set(token.toLowerCase(), result);
  }
  const tokens = byToken.size ? tokenPattern([...byToken.keys()]) : /(?!)/g;
  const byMcpClient = new Map(catalogue.mcpClients.map((c) => [c.match.toLowerCase(), known(c.key, c.operator, c.purpose)]));
  const markdown = catalogue.accept.find((a) => a.signal === 'markdown-first');
  const markdownClient: AgentClassification | undefined = markdown && Object.freeze({ agent: markdown.key, operator: null, purpose: markdown.purpose, known: false });
  const memo = new Map<string, AgentClassification>();
  const acceptMemo = new Map<string, boolean>();

  function agentOfToken(userAgent: string): AgentClassification | undefined {
    let longest = '';
    tokens.lastIndex = 0;
    for (let m = tokens.exec(userAgent); m; m = tokens.exec(userAgent)) if (m[0].length > longest.length) longest = m[0];
    return longest ? byToken.get(longest.toLowerCase()) : undefined;
  }

  function markdownFirst(accept: string | undefined): boolean {
    if (!accept) return false;
    const bounded = accept.length > MAX_ACCEPT_CHARS ? accept.slice(0, MAX_ACCEPT_CHARS) : accept;
    if (!/markdown/i.test(bounded)) return false;
    let first = acceptMemo.get(bounded);
    if (first === undefined) {
      first = prefersMarkdownAccept(bounded);
      if (acceptMemo.size >= ACCEPT_MEMO_SIZE) acceptMemo.clear();
      acceptMemo.set(bounded, first);
    }
    return first;
  }

  /** What the user agent alone says: a catalogue agent, or the class of an unknown one. */
  function classifyUserAgent(userAgent: string): AgentClassification {
    const agent = agentOfToken(userAgent);
    if (agent) return agent;
    if (!userAgent.trim()) return UNKNOWN;
    if (isbot(userAgent)) return OTHER_BOT;
    return BROWSER_LIKE.test(userAgent) ? BROWSER : UNKNOWN;
  }

  return function classifyRequest({ userAgent, accept, mcpClient }: RequestSignals): AgentClassification {
    const ua = userAgent ?? '';
    let byUserAgent: AgentClassification | undefined;
    if (ua.length > MAX_USER_AGENT_CHARS) {
      // Not remembered: the slice would keep the whole header alive in the memo.
      byUserAgent = classifyUserAgent(ua.slice(0, MAX_USER_AGENT_CHARS));
    } else if ((byUserAgent = memo.get(ua)) === undefined) {
      byUserAgent = classifyUserAgent(ua);
      if (memo.size >= CLASSIFICATION_MEMO_SIZE) memo.clear();
      memo.set(ua, byUserAgent);
    }
    // An HTTP library names no agent: Markdown first in Accept says a coding agent sent it (Claude Code's `axios/…`).
    if (libraries.has(byUserAgent)) return markdownClient && markdownFirst(accept) ? markdownClient : byUserAgent;
    if (byUserAgent.known) return byUserAgent;
    const client = mcpClient && byMcpClient.get(mcpClient.slice(0, MAX_MCP_CLIENT_CHARS).trim().toLowerCase());
    if (client) return client;
    return markdownClient && markdownFirst(accept) ? markdownClient : byUserAgent;
  };
}
