/**
 * The bounds every Markdown representation is produced under: the size of the HTML handed
 * to turndown, the size of the Markdown handed back, how deeply markup may nest, and a time budget.
 * They apply to site overrides exactly as to the shipped templates.
 */

export interface MarkdownLimits {
  /** Largest composed HTML converted, in UTF-8 bytes. Default 512 KiB. */
  readonly maxHtmlBytes: number;
  /** Largest Markdown returned, in UTF-8 bytes, truncation marker included. Default 256 KiB. */
  readonly maxMarkdownBytes: number;
  /** Deepest element nesting handed to the HTML parser; deeper tags are dropped, their text kept. Default 64. */
  readonly maxDepth: number;
  /** Most elements handed to the HTML parser; markup beyond is cut. Default 10,000. */
  readonly maxElements: number;
  /** Rendering budget in milliseconds, checked between template renders. Default 2000. */
  readonly budgetMs: number;
}

export const DEFAULT_MARKDOWN_LIMITS: MarkdownLimits = Object.freeze({
  maxHtmlBytes: 512 * 1024,
  maxMarkdownBytes: 256 * 1024,
  maxDepth: 64,
  maxElements: 10_000,
  budgetMs: 2000,
});

/** Merges caller limits over the defaults once; a bad value throws an error naming the limit. */
export function resolveMarkdownLimits(limits: Partial<MarkdownLimits> = {}): MarkdownLimits {
  const merged = { ...DEFAULT_MARKDOWN_LIMITS, ...limits };
  const minimum: Record<keyof MarkdownLimits, number> = { maxHtmlBytes: 1024, maxMarkdownBytes: 1024, maxDepth: 8, maxElements: 100, budgetMs: 1 };
  for (const key of Object.keys(minimum) as (keyof MarkdownLimits)[]) {
    const value = merged[key];
    if (!Number.isSafeInteger(value) || value < minimum[key]) {
      throw new TypeError(`express-agent-discovery: markdown limit "${key}" must be an integer >= ${minimum[key]}, got ${String(value)}`);
    }
  }
  return Object.freeze(merged);
}

/** A deadline started once per representation. */
export class RenderBudget {
  readonly #deadline: number;
  constructor(readonly budgetMs: number) {
    this.#deadline = performance.now() + budgetMs;
  }
  get expired(): boolean {
    return performance.now() > this.#deadline;
  }
}

export const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The longest prefix of `s` that is at most `maxBytes` of UTF-8, never splitting a character. */
export function utf8Prefix(s: string, maxBytes: number): string {
  // Each UTF-16 unit is at most 3 UTF-8 bytes: a prefix this short always fits.
  if (s.length * 3 <= maxBytes) return s;
  const head = s.slice(0, maxBytes);
  const bytes = Buffer.from(head, 'utf8');
  if (bytes.length <= maxBytes) return head;
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

const BLOCK_END = /<\/(?:p|div|li|ul|ol|dl|dd|h[1-6]|table|tr|pre|blockquote|section|article|figure|aside|header|footer|details)\s*>|<(?:br|hr)\b[^<>]*>/gi;

/**
 * Cuts HTML to at most `maxBytes` at a clean boundary: after the last closing block tag (or `<br>`),
 * else before an unfinished tag or at the last whitespace, so that no tag, entity or character is
 * split. The parser closes whatever elements remain open.
 *
 * ```ts
 * truncateHtml('<p>one</p><p>two</p>', 12) // { html: '<p>one</p>', truncated: true }
 * ```
 */
export function truncateHtml(html: string, maxBytes: number): { html: string; truncated: boolean } {
  if (html.length <= maxBytes / 3 || byteLength(html) <= maxBytes) return { html, truncated: false };
  const prefix = utf8Prefix(html, maxBytes);
  let cut = -1;
  // Look for a block end in the last quarter only: the regex stays linear and the cut stays close to the bound.
  const from = Math.floor(prefix.length * 0.75);
  BLOCK_END.lastIndex = from;
  for (let m = BLOCK_END.exec(prefix); m; m = BLOCK_END.exec(prefix)) cut = m.index + m[0].length;
  if (cut < 0) {
    const lt = prefix.lastIndexOf('<');
    if (lt > prefix.lastIndexOf('>')) cut = lt;
    else cut = Math.max(prefix.search(/\s\S*$/), 0);
  }
  return { html: prefix.slice(0, cut), truncated: true };
}

const VOID_ELEMENTS = new Set([
  'area', 'base', 'basefont', 'bgsound', 'br', 'col', 'embed', 'frame', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param',
  'source', 'track', 'wbr',
]);
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript']);
const SCOPE_BOUNDARY = ['table', 'td', 'th', 'caption', 'button', 'object', 'template', 'html', 'marquee', 'applet'];
/** Start tags that close an open element of the listed names within the given scope (HTML's implied end tags, simplified). */
const IMPLIED_END: Record<string, { closes: string[]; boundary: string[] }> = {
  li: { closes: ['li'], boundary: ['ul', 'ol', ...SCOPE_BOUNDARY] },
  dt: { closes: ['dt', 'dd'], boundary: ['dl', ...SCOPE_BOUNDARY] },
  dd: { closes: ['dt', 'dd'], boundary: ['dl', ...SCOPE_BOUNDARY] },
  tr: { closes: ['tr', 'td', 'th'], boundary: ['table'] },
  td: { closes: ['td', 'th'], boundary: ['table', 'tr'] },
  th: { closes: ['td', 'th'], boundary: ['table', 'tr'] },
  option: { closes: ['option'], boundary: ['select', ...SCOPE_BOUNDARY] },
};
const CLOSES_P = new Set([
  'p', 'div', 'ul', 'ol', 'dl', 'li', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'section', 'article', 'aside',
  'header', 'footer', 'nav', 'figure', 'figcaption', 'details', 'summary', 'address', 'fieldset', 'form', 'hr', 'main', 'menu',
]);

const TAG_NAME = /[A-Za-z][A-Za-z0-9:-]*/y;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/**
 * Bounds the markup before the HTML parser sees it. Start tags that would open an element deeper
 * than `maxDepth` are dropped (with their end tags), their text is kept (`flattened`); the markup is
 * cut before the start tag that would exceed `maxElements` (`truncated`). One linear pass that
 * follows the HTML tokenizer's tag, attribute, comment and raw-text rules, so that what the parser
 * would see as a tag is counted; nesting is approximated with a stack and the common implied end tags.
 * Measured: 10,000 nested `<div>`s take the parser 2.3 s and overflow turndown's stack, bounded they
 * convert in milliseconds; 50,000 tiny sibling elements (350 KiB) take turndown 0.7 to 2.7 s.
 *
 * ```ts
 * boundMarkup('<div>'.repeat(3) + 'x', { maxDepth: 2, maxElements: 100 }) // { html: '<div><div>x', flattened: true, truncated: false }
 * ```
 */
export function boundMarkup(
  html: string,
  limits: Pick<MarkdownLimits, 'maxDepth' | 'maxElements'>,
): { html: string; flattened: boolean; truncated: boolean } {
  const { maxDepth, maxElements } = limits;
  let elements = 0;
  const stack: string[] = [];
  const dropped = new Map<string, number>();
  const out: string[] = [];
  let copied = 0;
  let i = 0;
  const len = html.length;
  const drop = (start: number, end: number) => {
    out.push(html.slice(copied, start));
    copied = end;
  };
  const closeWithin = (names: readonly string[], boundary: readonly string[]) => {
    for (let k = stack.length - 1; k >= 0; k--) {
      const open = stack[k]!;
      if (names.includes(open)) {
        stack.length = k;
        return;
      }
      if (boundary.includes(open)) return;
    }
  };

  scan: while (i < len) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    const next = html.charCodeAt(lt + 1);
    if (next === 0x21 /* ! */) {
      const end = html.startsWith('<!--', lt) ? html.indexOf('-->', lt + 4) : html.indexOf('>', lt + 2);
      if (end < 0) break;
      i = end + (html.startsWith('<!--', lt) ? 3 : 1);
      continue;
    }
    if (next === 0x3f /* ? */) {
      const end = html.indexOf('>', lt + 2);
      if (end < 0) break;
      i = end + 1;
      continue;
    }
    const closing = next === 0x2f; /* / */
    TAG_NAME.lastIndex = lt + (closing ? 2 : 1);
    const nameMatch = TAG_NAME.exec(html);
    if (!nameMatch) {
      if (closing) {
        // `</>` is ignored and `</ …>` is a bogus comment up to the next `>`.
        const end = html.indexOf('>', lt + 2);
        if (end < 0) break;
        i = end + 1;
      } else i = lt + 1;
      continue;
    }
    const name = nameMatch[0].toLowerCase();
    // Attributes, as the tokenizer reads them: a quote only opens a value after `=`.
    let j = TAG_NAME.lastIndex;
    let selfClosing = false;
    for (;;) {
      while (j < len && (isSpace(html.charCodeAt(j)) || html.charCodeAt(j) === 0x2f)) {
        selfClosing = html.charCodeAt(j) === 0x2f;
        j++;
      }
      if (j >= len) break scan;
      if (html.charCodeAt(j) === 0x3e /* > */) break;
      selfClosing = false;
      j++;
      while (j < len) {
        const c = html.charCodeAt(j);
        if (isSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) break;
        j++;
      }
      while (j < len && isSpace(html.charCodeAt(j))) j++;
      if (html.charCodeAt(j) !== 0x3d /* = */) continue;
      j++;
      while (j < len && isSpace(html.charCodeAt(j))) j++;
      const q = html.charCodeAt(j);
      if (q === 0x22 || q === 0x27) {
        const endQuote = html.indexOf(q === 0x22 ? '"' : "'", j + 1);
        // An unterminated value swallows the rest of the document: the parser sees no more tags either.
        if (endQuote < 0) break scan;
        j = endQuote + 1;
      } else {
        while (j < len && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 0x3e) j++;
      }
    }
    const tagEnd = j + 1;
    i = tagEnd;

    if (closing) {
      const pending = dropped.get(name);
      if (pending) {
        dropped.set(name, pending - 1);
        drop(lt, tagEnd);
        continue;
      }
      const k = stack.lastIndexOf(name);
      if (k >= 0) stack.length = k;
      continue;
    }
    if (++elements > maxElements) {
      drop(lt, len);
      return { html: out.join(''), flattened: dropped.size > 0, truncated: true };
    }
    if (VOID_ELEMENTS.has(name)) continue;
    const implied = IMPLIED_END[name];
    if (implied) closeWithin(implied.closes, implied.boundary);
    if (CLOSES_P.has(name)) closeWithin(['p'], SCOPE_BOUNDARY);
    if (stack.length >= maxDepth && !RAW_TEXT_ELEMENTS.has(name)) {
      dropped.set(name, (dropped.get(name) ?? 0) + 1);
      drop(lt, tagEnd);
      continue;
    }
    if (name === 'plaintext') break;
    if (RAW_TEXT_ELEMENTS.has(name)) {
      if (selfClosing && name !== 'script') continue;
      const endTag = new RegExp(`</${name}[\\s/>]`, 'ig');
      endTag.lastIndex = tagEnd;
      const m = endTag.exec(html);
      if (!m) break;
      i = m.index;
      continue;
    }
    if (!selfClosing) stack.push(name);
  }
  if (!out.length) return { html, flattened: false, truncated: false };
  out.push(html.slice(copied));
  return { html: out.join(''), flattened: true, truncated: false };
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Cuts Markdown to at most `maxBytes` including `marker`, at a clean boundary: the end of a paragraph
 * outside any code fence when one lies in the second half of the allowance, else the end of a line (a
 * code fence cut open is closed again), else the last whitespace. Never inside a character.
 *
 * ```ts
 * truncateMarkdown('one\n\ntwo', 12, '[cut]') // { markdown: 'one\n\n[cut]', truncated: true }
 * ```
 */
export function truncateMarkdown(markdown: string, maxBytes: number, marker: string): { markdown: string; truncated: boolean } {
  if (markdown.length <= maxBytes / 3 || byteLength(markdown) <= maxBytes) return { markdown, truncated: false };
  // Room for the marker and for closing a fence (a fence is at most this long, see below).
  const reserve = byteLength(marker) + 2 + 1 + 32;
  const markerBytes = byteLength(marker) + 2;
  const prefix = utf8Prefix(markdown, Math.max(maxBytes - reserve, 0));
  let fence: string | undefined;
  let paragraphEnd = -1;
  let lineEnd = -1;
  let previousBlank = false;
  let start = 0;
  while (start < prefix.length) {
    const nl = prefix.indexOf('\n', start);
    if (nl < 0) break;
    const line = prefix.slice(start, nl);
    const blank = line.trim() === '';
    const m = FENCE.exec(line);
    if (fence === undefined) {
      if (m) fence = m[1]!;
      else if (blank && !previousBlank && start > 0) paragraphEnd = start - 1;
    } else if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) {
      fence = undefined;
    }
    lineEnd = nl;
    previousBlank = blank;
    start = nl + 1;
  }
  let body: string;
  if (paragraphEnd >= prefix.length / 2) body = prefix.slice(0, paragraphEnd);
  else if (lineEnd >= prefix.length / 2) body = prefix.slice(0, lineEnd);
  else {
    const ws = prefix.search(/\s\S*$/);
    body = prefix.slice(0, ws > 0 ? ws : prefix.length);
  }
  body = body.trimEnd();
  // A code fence cut open is closed again, so that the marker is not read as code.
  const open = openFenceAtEnd(body);
  if (open !== undefined) body = closeFence(body, open, maxBytes - markerBytes);
  return { markdown: body ? `${body}\n\n${marker}` : marker, truncated: true };
}

/** The fence still open at the end of `markdown`, if any. */
function openFenceAtEnd(markdown: string): string | undefined {
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const m = FENCE.exec(line);
    if (!m) continue;
    if (fence === undefined) fence = m[1]!;
    else if (m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = undefined;
  }
  return fence;
}

/** Appends the closing fence, shortening the code first when a very long fence would not fit. */
function closeFence(body: string, fence: string, maxBytes: number): string {
  const room = maxBytes - fence.length - 1;
  if (byteLength(body) > room) {
    const cut = utf8Prefix(body, Math.max(room, 0));
    body = cut.slice(0, Math.max(cut.lastIndexOf('\n'), 0)).trimEnd();
    const stillOpen = openFenceAtEnd(body);
    if (stillOpen === undefined) return body;
    fence = stillOpen;
  }
  return `${body}\n${fence}`;
}
