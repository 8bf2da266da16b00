import { boundText, MAX_ITEM_TITLE_CHARS, plainLine } from '../content/display-text.js';
import { byteLength, utf8Prefix } from '../markdown/utf8.js';
import { markdownLine } from './llms-txt.js';

/** One resource of llms-full.txt: its title, the URL of its Markdown, and that Markdown. */
export interface LlmsFullEntry {
  title: string;
  url: string;
  markdown: string;
}

/** What frames the resources: the site, the byte budget, and where to continue past it. */
export interface LlmsFullFrame {
  siteTitle: string;
  /** Plain text (the description), escaped as the llms.txt summary is. */
  summary: string;
  maxBytes: number;
  /** The search of every public resource, newest first. */
  searchUrl: string;
  /** The site's llms.txt. */
  llmsTxtUrl: string;
}

/** The heading of the closing note every llms-full.txt ends with. */
export const CLOSING_HEADING = '## End of llms-full.txt';

/** The most resources a note counts (its size is reserved with this many digits). */
const MAX_COUNT = 99_999_999;

const plural = (n: number) => (n === 1 ? '1 resource' : `${n} resources`);

/** The closing note: how many resources were included, whether the rest were cut, where to continue. */
export function closingNote(frame: LlmsFullFrame, included: number, cut: boolean, partial: boolean): string {
  const what = cut
    ? `${plural(included)} included${partial ? ' (the first cut short)' : ''}, newest first; the rest were cut at the ${frame.maxBytes}-byte budget of this file.`
    : `${plural(included)} included, newest first: every public resource there is; nothing was cut.`;
  return (
    `\n---\n\n${CLOSING_HEADING}\n\n${what} ` +
    `Continue with the search, newest first: ${frame.searchUrl} (follow next_url until next is false), or start from ${frame.llmsTxtUrl}.\n`
  );
}

const block = (e: LlmsFullEntry) => `\n---\n\n## ${markdownLine(boundText(plainLine(e.title), MAX_ITEM_TITLE_CHARS)) || e.url}\n\nURL: ${e.url}\n\n${e.markdown.trimEnd()}\n`;
const cutMarker = (e: LlmsFullEntry) => `\n\n[… cut here: the whole resource is at ${e.url}]\n`;

/**
 * The resources of llms-full.txt, newest first, read only as far as the assembler goes. `room()` is
 * how many bytes the resources not yet taken may still fill: a source reads no more of them than
 * can fit (and one more, which tells whether the rest were cut).
 */
export type LlmsFullSource = (room: () => number) => AsyncIterable<LlmsFullEntry>;

/**
 * `/llms-full.txt`: the site title and summary, then each resource's Markdown under its own heading
 * with its URL, newest first, while they fit the byte budget; always ending with the closing note.
 * The body never exceeds `maxBytes` of UTF-8: the resources are cut at a whole resource, and when
 * not even the first fits, it is cut at a character boundary with a marker. `entries` is read only
 * as far as needed: no entry past the first that does not fit.
 *
 * ```text
 * # Example Site
 *
 * > Articles about harbours.
 *
 * The Markdown of the newest public resources …
 *
 * ---
 *
 * ## Lighthouse
 *
 * URL: https://example.org/agent/resource/7/markdown?language=en
 *
 * ---
 * title: "Lighthouse"
 * …
 * ```
 */
export async function assembleLlmsFull(frame: LlmsFullFrame, entries: LlmsFullSource): Promise<string> {
  const reserve = byteLength(closingNote(frame, MAX_COUNT, true, true));
  const siteTitle = markdownLine(frame.siteTitle);
  let head =
    `# ${siteTitle}\n\n> ${markdownLine(frame.summary)}\n\n` +
    `The Markdown of the newest public resources of ${siteTitle}, newest first, each under its own heading with its URL, ` +
    `as the Markdown read serves it, up to ${frame.maxBytes} bytes.\n`;
  if (byteLength(head) + reserve > frame.maxBytes) head = `${utf8Prefix(head, Math.max(0, frame.maxBytes - reserve - 1))}\n`;
  const parts = [head];
  let room = frame.maxBytes - byteLength(head) - reserve;
  let included = 0;
  let cut = false;
  let partial = false;
  for await (const entry of entries(() => room)) {
    const text = block(entry);
    const size = byteLength(text);
    if (size <= room) {
      parts.push(text);
      room -= size;
      included++;
      continue;
    }
    cut = true;
    const marker = cutMarker(entry);
    if (included === 0 && room > byteLength(marker)) {
      parts.push(utf8Prefix(text, room - byteLength(marker)) + marker);
      included = 1;
      partial = true;
    }
    break;
  }
  parts.push(closingNote(frame, included, cut, partial));
  return parts.join('');
}
