/**
 * The crawler rules an administrator sets for the plugin's robots.txt: `Allow:` and `Disallow:` lines
 * of its one `User-agent: *` group, in the syntax of RFC 9309 (a path pattern starts with `/`, may use
 * `*` and a final `$`, and is empty only to allow everything).
 */

/** The most rules the crawler rules may hold. */
const MAX_CRAWLER_RULES = 100;

/** The group's rules when none are set: everything may be crawled. */
export const DEFAULT_CRAWLER_RULES = 'Allow: /';

/** One rule of the group. */
export interface CrawlerRule {
  readonly kind: 'Allow' | 'Disallow';
  readonly path: string;
}

/** `allow` or `disallow` (any case), a colon, and the rest of the line, with optional blanks around each. */
const RULE_LINE = /^(allow|disallow)[ \t]*:[ \t]*(.*)$/i;
/** What a path pattern may not hold: blanks, control characters, and `#` (which starts a robots.txt comment). */
const NOT_IN_PATH = /[\s\u0000-\u001F\u007F#]/;

/** A line as a message quotes it: at most 60 characters. */
const quoted = (line: string) => JSON.stringify(line.length > 60 ? `${line.slice(0, 57)}...` : line);

/**
 * Reads crawler rules line by line (blank lines are skipped; a line break may be CRLF): the rules, or
 * the first malformed line with its number and what is wrong.
 *
 * ```ts
 * parseCrawlerRules('allow: /\nDisallow:  /drafts/')
 * // { ok: true, rules: [{ kind: 'Allow', path: '/' }, { kind: 'Disallow', path: '/drafts/' }] }
 * parseCrawlerRules('Allow: /\nNoindex: /x')
 * // { ok: false, message: 'crawler rules, line 2 ("Noindex: /x"): expected "Allow: /path" or "Disallow: /path"' }
 * ```
 */
export function parseCrawlerRules(text: string): { ok: true; rules: CrawlerRule[] } | { ok: false; message: string } {
  const rules: CrawlerRule[] = [];
  const lines = text.split(/\r\n?|\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    const refuse = (why: string) => ({ ok: false as const, message: `crawler rules, line ${index + 1} (${quoted(line)}): ${why}` });
    const match = RULE_LINE.exec(line);
    if (!match) {
      return refuse(/^user-agent\s*:/i.test(line) ? 'the rules apply to "User-agent: *"; write only Allow: and Disallow: lines' : 'expected "Allow: /path" or "Disallow: /path"');
    }
    const path = match[2]!.trim();
    if (path && !path.startsWith('/')) return refuse('a path must start with "/"');
    if (NOT_IN_PATH.test(path)) return refuse('a path may not contain spaces, control characters or "#" (percent-encode them)');
    if (rules.length === MAX_CRAWLER_RULES) return refuse(`at most ${MAX_CRAWLER_RULES} rules`);
    rules.push({ kind: match[1]!.toLowerCase() === 'allow' ? 'Allow' : 'Disallow', path });
  }
  return { ok: true, rules };
}

/** Rules as robots.txt lines: `Allow: /`, `Disallow: /drafts/`. */
export function formatCrawlerRules(rules: readonly CrawlerRule[]): string {
  return rules.map((r) => (r.path ? `${r.kind}: ${r.path}` : `${r.kind}:`)).join('\n');
}
