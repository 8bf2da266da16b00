import { byteLength, utf8Prefix } from './utf8.js';

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
  return { html: prefix.slice(0, cleanCut(prefix)), truncated: true };
}

/** Where `prefix` may end: after its last block end, else before an unfinished tag, else at its last whitespace. */
function cleanCut(prefix: string): number {
  let cut = -1;
  // Look for a block end in the last quarter only: the regex stays linear and the cut stays close to the bound.
  BLOCK_END.lastIndex = Math.floor(prefix.length * 0.75);
  for (let m = BLOCK_END.exec(prefix); m; m = BLOCK_END.exec(prefix)) cut = m.index + m[0].length;
  if (cut >= 0) return cut;
  const lt = prefix.lastIndexOf('<');
  if (lt > prefix.lastIndexOf('>')) return lt;
  return Math.max(prefix.search(/\s\S*$/), 0);
}
