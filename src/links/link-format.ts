import LinkHeader from 'http-link-header';
import { plainLine } from '../content/display-text.js';

/** One link of the site's Link set, as sent in headers and rendered in `<head>`. */
export interface AgentLink {
  readonly href: string;
  readonly rel: string;
  readonly type?: string;
  /** The language of the target (the alternates carry the page's language). */
  readonly hreflang?: string;
  readonly title?: string;
}

type LinkRef = Record<string, unknown> & { uri: string };

const quoted = (value: string): string => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

function formatAttribute(name: string, value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => formatAttribute(name, v)).join('; ');
  // Extended values (`title*=UTF-8'en'…`) are formatted by the RFC 8288 library itself.
  if (name.endsWith('*') || typeof value !== 'string') {
    return LinkHeader.formatAttribute(name, value as string);
  }
  return `${name}=${quoted(value)}`;
}

/**
 * Formats one parsed link-value. Every plain parameter is sent as a quoted-string (RFC 8288 §3 allows
 * token or quoted-string), so values survive byte for byte.
 *
 * ```ts
 * formatLinkRef({ uri: 'https://example.com/llms.txt', rel: 'describedby', type: 'text/plain' })
 * // '<https://example.com/llms.txt>; rel="describedby"; type="text/plain"'
 * ```
 */
function formatLinkRef(ref: LinkRef): string {
  let out = `<${ref.uri}>`;
  for (const [name, value] of Object.entries(ref)) {
    if (name !== 'uri' && value !== undefined) out += `; ${formatAttribute(name, value)}`;
  }
  return out;
}

/** The Link header value of one of our own links (a title as in `<head>`: one line, no control or format characters). */
export function formatAgentLink(link: AgentLink): string {
  const title = link.title ? plainLine(link.title) : '';
  return formatLinkRef({
    uri: link.href,
    rel: link.rel,
    ...(link.type ? { type: link.type } : {}),
    ...(link.hreflang ? { hreflang: link.hreflang } : {}),
    ...(title ? { title } : {}),
  });
}

/** Every header value as a list of strings (Node allows a string, an array or a number). */
export function headerValues(value: number | string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

/** A Markdown alternate (`rel` has the `alternate` token, `type` is `text/markdown`). */
function isMarkdownAlternate(ref: LinkRef): boolean {
  const rel = typeof ref.rel === 'string' ? ref.rel.toLowerCase().split(/\s+/) : [];
  return rel.includes('alternate') && typeof ref.type === 'string' && /^\s*text\/markdown\b/i.test(ref.type);
}

/**
 * Merges Link header values into one: every value is parsed with `http-link-header` (RFC 8288) and
 * re-formatted, exact duplicates are sent once, order is kept (first occurrence wins), except that
 * Markdown alternates go last: parsers that keep one value per relation (Python `requests`/`httpx`
 * `.links`, npm `parse-link-header`) keep the last, so `links['alternate']` is the Markdown. A value
 * the parser cannot read is kept verbatim rather than lost.
 *
 * ```ts
 * mergeLinkValues(['<https://hub.example/>; rel="hub"', '<https://hub.example/>; rel=hub, </llms.txt>; rel="describedby"'])
 * // '<https://hub.example/>; rel="hub", </llms.txt>; rel="describedby"'
 * mergeLinkValues(['</a.md>; rel="alternate"; type="text/markdown", </a.json>; rel="alternate"; type="application/json"'])
 * // '</a.json>; rel="alternate"; type="application/json", </a.md>; rel="alternate"; type="text/markdown"'
 * ```
 */
export function mergeLinkValues(values: readonly string[]): string {
  const seen = new Set<string>();
  const markdown = new Set<string>();
  for (const raw of values) {
    if (raw.trim() === '') continue;
    let parsed: LinkRef[];
    try {
      parsed = LinkHeader.parse(raw).refs as LinkRef[];
    } catch {
      seen.add(raw.trim());
      continue;
    }
    for (const ref of parsed) (isMarkdownAlternate(ref) ? markdown : seen).add(formatLinkRef(ref));
  }
  return [...seen, ...markdown].join(', ');
}
