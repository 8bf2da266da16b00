/**
 * A tag scanner that follows the HTML tokenizer's rules for tags, attributes, comments and raw text
 * closely enough that what the parser would see as a tag is found here as one (see `bound-markup.ts`).
 */

/** A start or end tag: `<name …>` from `start` up to `end` (exclusive). */
export interface Tag {
  readonly kind: 'tag';
  readonly name: string;
  readonly closing: boolean;
  readonly selfClosing: boolean;
  readonly start: number;
  readonly end: number;
}

/** Markup the parser reads as no element (a comment, a declaration, a bogus end tag, a lone `<`): go on at `end`. */
export interface Skip {
  readonly kind: 'skip';
  readonly end: number;
}

const TAG_NAME = /[A-Za-z][A-Za-z0-9:-]*/y;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/**
 * The next tag or skipped markup at or after `from`; `undefined` when the parser would see no more
 * tags (no `<` left, or an unterminated comment, tag or quoted attribute value swallows the rest).
 */
export function nextTag(html: string, from: number): Tag | Skip | undefined {
  const lt = html.indexOf('<', from);
  if (lt < 0) return undefined;
  const next = html.charCodeAt(lt + 1);
  if (next === 0x21 /* ! */) {
    const comment = html.startsWith('<!--', lt);
    const end = comment ? html.indexOf('-->', lt + 4) : html.indexOf('>', lt + 2);
    return end < 0 ? undefined : { kind: 'skip', end: end + (comment ? 3 : 1) };
  }
  if (next === 0x3f /* ? */) return skipTo(html, '>', lt + 2);
  const closing = next === 0x2f; /* / */
  TAG_NAME.lastIndex = lt + (closing ? 2 : 1);
  const nameMatch = TAG_NAME.exec(html);
  // `</>` is ignored and `</ …>` is a bogus comment up to the next `>`; a lone `<` is text.
  if (!nameMatch) return closing ? skipTo(html, '>', lt + 2) : { kind: 'skip', end: lt + 1 };
  const attributes = attributesEnd(html, TAG_NAME.lastIndex);
  if (!attributes) return undefined;
  return { kind: 'tag', name: nameMatch[0].toLowerCase(), closing, selfClosing: attributes.selfClosing, start: lt, end: attributes.end };
}

function skipTo(html: string, terminator: string, from: number): Skip | undefined {
  const end = html.indexOf(terminator, from);
  return end < 0 ? undefined : { kind: 'skip', end: end + terminator.length };
}

/**
 * Reads the attributes of a tag from `j` (just after its name) as the tokenizer does: a quote only
 * opens a value after `=`. The index after the closing `>`, or `undefined` when the tag never ends.
 */
function attributesEnd(html: string, j: number): { end: number; selfClosing: boolean } | undefined {
  const len = html.length;
  let selfClosing = false;
  for (;;) {
    while (j < len && (isSpace(html.charCodeAt(j)) || html.charCodeAt(j) === 0x2f)) {
      selfClosing = html.charCodeAt(j) === 0x2f;
      j++;
    }
    if (j >= len) return undefined;
    if (html.charCodeAt(j) === 0x3e /* > */) return { end: j + 1, selfClosing };
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
      if (endQuote < 0) return undefined;
      j = endQuote + 1;
    } else {
      while (j < len && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 0x3e) j++;
    }
  }
}

/** Where the raw text of a `<script>`, `<style>`, … opened before `from` ends (its end tag), or -1. */
export function rawTextEnd(html: string, name: string, from: number): number {
  const endTag = new RegExp(`</${name}[\\s/>]`, 'ig');
  endTag.lastIndex = from;
  return endTag.exec(html)?.index ?? -1;
}
