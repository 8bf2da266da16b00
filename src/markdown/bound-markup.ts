import type { MarkdownLimits } from './limits.js';
import { nextTag, rawTextEnd, type Tag } from './html-tags.js';

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

/** The stack of open elements, approximated: end tags pop to their element, some start tags close others implicitly. */
class OpenElements {
  readonly #stack: string[] = [];
  get depth(): number {
    return this.#stack.length;
  }
  push(name: string): void {
    this.#stack.push(name);
  }
  /** An end tag: pops up to and including the innermost open element of that name, if any. */
  close(name: string): void {
    const k = this.#stack.lastIndexOf(name);
    if (k >= 0) this.#stack.length = k;
  }
  /** A start tag's implied end tags: closes what it closes within its scope. */
  closeImplied(name: string): void {
    const implied = IMPLIED_END[name];
    if (implied) this.#closeWithin(implied.closes, implied.boundary);
    if (CLOSES_P.has(name)) this.#closeWithin(['p'], SCOPE_BOUNDARY);
  }
  #closeWithin(names: readonly string[], boundary: readonly string[]): void {
    for (let k = this.#stack.length - 1; k >= 0; k--) {
      const open = this.#stack[k]!;
      if (names.includes(open)) {
        this.#stack.length = k;
        return;
      }
      if (boundary.includes(open)) return;
    }
  }
}

/** The markup with some ranges left out, copied lazily. */
class MarkupEdit {
  readonly #out: string[] = [];
  #copied = 0;
  constructor(readonly html: string) {}
  get edited(): boolean {
    return this.#out.length > 0;
  }
  drop(start: number, end: number): void {
    this.#out.push(this.html.slice(this.#copied, start));
    this.#copied = end;
  }
  result(): string {
    return this.#out.join('') + this.html.slice(this.#copied);
  }
}

/** Start tags dropped for depth, so that their end tags are dropped too. */
class DroppedTags {
  readonly #pending = new Map<string, number>();
  get any(): boolean {
    return this.#pending.size > 0;
  }
  add(name: string): void {
    this.#pending.set(name, (this.#pending.get(name) ?? 0) + 1);
  }
  /** True (and counted) when an end tag of `name` belongs to a dropped start tag. */
  takeEnd(name: string): boolean {
    const pending = this.#pending.get(name);
    if (!pending) return false;
    this.#pending.set(name, pending - 1);
    return true;
  }
}

export interface BoundedMarkup {
  html: string;
  flattened: boolean;
  truncated: boolean;
}

/**
 * Bounds the markup before the HTML parser sees it. Start tags that would open an element deeper
 * than `maxDepth` are dropped (with their end tags), their text is kept (`flattened`); the markup is
 * cut before the start tag that would exceed `maxElements` (`truncated`). One linear pass that
 * follows the HTML tokenizer's tag, attribute, comment and raw-text rules (`html-tags.ts`), so that
 * what the parser would see as a tag is counted; nesting is approximated with a stack and the common
 * implied end tags. Measured: 10,000 nested `<div>`s take the parser 2.3 s and overflow turndown's
 * stack, bounded they convert in milliseconds; 50,000 tiny sibling elements (350 KiB) take turndown
 * 0.7 to 2.7 s.
 *
 * ```ts
 * boundMarkup('<div>'.repeat(3) + 'x', { maxDepth: 2, maxElements: 100 }) // { html: '<div><div>x', flattened: true, truncated: false }
 * ```
 */
export function boundMarkup(html: string, limits: Pick<MarkdownLimits, 'maxDepth' | 'maxElements'>): BoundedMarkup {
  const open = new OpenElements();
  const edit = new MarkupEdit(html);
  const dropped = new DroppedTags();
  let elements = 0;
  let at = 0;
  while (at >= 0) {
    const token = nextTag(html, at);
    if (!token) break;
    at = token.end;
    if (token.kind === 'skip') continue;
    if (token.closing) {
      if (dropped.takeEnd(token.name)) edit.drop(token.start, token.end);
      else open.close(token.name);
      continue;
    }
    if (++elements > limits.maxElements) {
      edit.drop(token.start, html.length);
      return { html: edit.result(), flattened: dropped.any, truncated: true };
    }
    const resume = startTag(html, token, open, limits.maxDepth);
    if (resume === 'drop') {
      dropped.add(token.name);
      edit.drop(token.start, token.end);
    } else at = resume;
  }
  return edit.edited ? { html: edit.result(), flattened: true, truncated: false } : { html, flattened: false, truncated: false };
}

/**
 * Opens the element of a start tag: `'drop'` when it would be deeper than `maxDepth`, else where
 * scanning resumes (after its raw text, if any), -1 when the parser would see no more tags.
 */
function startTag(html: string, tag: Tag, open: OpenElements, maxDepth: number): number | 'drop' {
  const { name } = tag;
  if (VOID_ELEMENTS.has(name)) return tag.end;
  open.closeImplied(name);
  const rawText = RAW_TEXT_ELEMENTS.has(name);
  if (open.depth >= maxDepth && !rawText) return 'drop';
  if (name === 'plaintext') return -1;
  if (rawText) return tag.selfClosing && name !== 'script' ? tag.end : rawTextEnd(html, name, tag.end);
  if (!tag.selfClosing) open.push(name);
  return tag.end;
}
