import { byteLength, utf8Prefix } from './utf8.js';

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Follows fenced code blocks line by line: `open` is the fence of the block the lines so far leave open. */
class Fences {
  open: string | undefined;
  read(line: string): void {
    const m = FENCE.exec(line);
    if (!m) return;
    const fence = m[1]!;
    if (this.open === undefined) this.open = fence;
    else if (fence[0] === this.open[0] && fence.length >= this.open.length && line.trim() === fence) this.open = undefined;
  }
}

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
  let body = prefix.slice(0, cleanEnd(prefix)).trimEnd();
  // A code fence cut open is closed again, so that the marker is not read as code.
  const open = openFenceAtEnd(body);
  if (open !== undefined) body = closeFence(body, open, maxBytes - markerBytes);
  return { markdown: body ? `${body}\n\n${marker}` : marker, truncated: true };
}

/** Where `prefix` may end: a paragraph end outside code in its second half, else a line end there, else its last whitespace. */
function cleanEnd(prefix: string): number {
  const fences = new Fences();
  let paragraphEnd = -1;
  let lineEnd = -1;
  let previousBlank = false;
  for (let start = 0, nl = prefix.indexOf('\n'); nl >= 0; start = nl + 1, nl = prefix.indexOf('\n', start)) {
    const line = prefix.slice(start, nl);
    const blank = line.trim() === '';
    if (fences.open === undefined && blank && !previousBlank && start > 0) paragraphEnd = start - 1;
    fences.read(line);
    lineEnd = nl;
    previousBlank = blank;
  }
  if (paragraphEnd >= prefix.length / 2) return paragraphEnd;
  if (lineEnd >= prefix.length / 2) return lineEnd;
  const ws = prefix.search(/\s\S*$/);
  return ws > 0 ? ws : prefix.length;
}

/** The fence still open at the end of `markdown`, if any. */
function openFenceAtEnd(markdown: string): string | undefined {
  const fences = new Fences();
  for (const line of markdown.split('\n')) fences.read(line);
  return fences.open;
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
