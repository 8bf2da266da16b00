/**
 * The llmstxt.org reference parser, `parse_llms_file` of the `llms_txt` Python package
 * (github.com/AnswerDotAI/llms-txt, `llms_txt/core.py`: `parse_link`, `_parse_links`, `_parse_llms`,
 * `parse_llms_file`), ported to TypeScript pattern for pattern so that a test reads llms.txt exactly
 * as that parser does, including where it fails:
 *
 * - the text is split at every line matching `^##\s*(.*?$)` (MULTILINE); before it: the start;
 * - the start (stripped) must match `^#\s*(?P<title>.+?$)\n+(?:^>\s*(?P<summary>.+?$)$)?\n+(?P<info>.*)`
 *   (MULTILINE | DOTALL), else Python fails on `None['sections']`; when nothing follows the `>`
 *   line, the optional summary group is skipped and `summary` is None (the line lands in `info`);
 * - each non-blank line of a section must contain `-\s*\[(?P<title>[^\]]+)\]\((?P<url>[^\)]+)\)(?::\s*(?P<desc>.*))?`
 *   (`re.search`, so anywhere in the line), else Python fails on `None.groupdict()`;
 * - sections go into a dict: a repeated H2 keeps its last body.
 *
 * Python's regex semantics are kept where JavaScript's differ: `.` excludes only `\n` (JavaScript's
 * also excludes `\r`, U+2028 and U+2029), and `^`/`$` in MULTILINE mode break only at `\n`.
 */

export interface ReferenceLink {
  title: string;
  url: string;
  /** `None` in Python when the item has no `: note`. */
  desc: string | null;
}

export interface ReferenceLlmsFile {
  title: string;
  /** `None` in Python when the reference grammar does not find the summary. */
  summary: string | null;
  info: string;
  sections: Record<string, ReferenceLink[]>;
}

/** Thrown where the Python parser raises (an AttributeError or TypeError on a failed match). */
export class ReferenceParseError extends Error {}

// Python-equivalent building blocks: `.` without DOTALL, `^` and `$` under MULTILINE.
const DOT = '[^\\n]';
const BOL = '(?<![^\\n])';
const EOL = '(?![^\\n])';

/** `parse_link`: the first `- [title](url): desc` inside the line. */
export function parseLink(text: string): ReferenceLink {
  const pattern = new RegExp(`-\\s*\\[(?<title>[^\\]]+)\\]\\((?<url>[^\\)]+)\\)(?::\\s*(?<desc>${DOT}*))?`);
  const m = pattern.exec(text);
  if (!m?.groups) throw new ReferenceParseError(`not a link item: ${JSON.stringify(text)}`);
  return { title: m.groups.title!, url: m.groups.url!, desc: m.groups.desc ?? null };
}

/** Python's `str.strip()` (no arguments): Unicode white space at both ends. */
const strip = (text: string): string => text.replace(/^\s+|\s+$/gu, '');

/** `_parse_links`: one link per non-blank line. */
function parseLinks(links: string): ReferenceLink[] {
  return strip(links)
    .split(/\n+/)
    .filter((line) => strip(line))
    .map(parseLink);
}

/** `_parse_llms`: the stripped start, and the sections by H2 title. */
function parseLlms(text: string): { start: string; sections: Record<string, ReferenceLink[]> } {
  // `re.split` with one capture group: [start, title1, body1, title2, body2, …].
  const [start = '', ...rest] = text.split(new RegExp(`${BOL}##\\s*(${DOT}*?${EOL})`));
  const bodies = new Map<string, string>();
  for (let i = 0; i + 1 < rest.length; i += 2) bodies.set(rest[i]!, rest[i + 1]!);
  const sections: Record<string, ReferenceLink[]> = {};
  for (const [title, body] of bodies) sections[title] = parseLinks(body);
  return { start: strip(start), sections };
}

/** `parse_llms_file`: title, summary (or null), info and sections, as the reference parser gives them. */
export function parseLlmsFile(text: string): ReferenceLlmsFile {
  const { start, sections } = parseLlms(text);
  // DOTALL: `.` is any character here; `$` and `^` are still MULTILINE.
  const any = '[\\s\\S]';
  const pattern = new RegExp(`${BOL}#\\s*(?<title>${any}+?${EOL})\\n+(?:${BOL}>\\s*(?<summary>${any}+?${EOL})${EOL})?\\n+(?<info>${any}*)`);
  const m = pattern.exec(start);
  if (!m?.groups) throw new ReferenceParseError('no "# title" followed by a blank line and more text');
  return { title: m.groups.title!, summary: m.groups.summary ?? null, info: m.groups.info!, sections };
}
