/** List items (search, related, llms.txt) show at most this many characters of a title… */
export const MAX_ITEM_TITLE_CHARS = 512;
/** …and of a summary. The resource read keeps the full text. */
export const MAX_ITEM_SUMMARY_CHARS = 2048;

const ELLIPSIS = '…';
/** Code points that extend the character before them: combining marks, joiners, variation selectors, skin tones. */
const EXTENDS_PREVIOUS = /^[\p{M}\u200D\uFE00-\uFE0F\u{E0020}-\u{E007F}\u{1F3FB}-\u{1F3FF}]$/u;
const REGIONAL_INDICATOR = /^[\u{1F1E6}-\u{1F1FF}]$/u;

/**
 * `text` cut to at most `max` characters (Unicode code points), the ellipsis included. The cut never
 * splits a surrogate pair, and it moves back rather than separate a base character from its combining
 * marks, a joined emoji sequence (ZWJ, skin tone, variation selector) or a flag's pair. A single
 * character sequence longer than the bound is cut inside. Text within the bound is returned unchanged.
 * Costs O(max), whatever the length of `text`.
 *
 * ```ts
 * boundText('Harbour cranes of the 1920s', 12) // 'Harbour cra…'
 * ```
 */
export function boundText(text: string, max: number): string {
  // A code point is one or two UTF-16 units: a text this short is within the bound, and a head this
  // long holds more than `max` code points whenever the text does.
  if (text.length <= max) return text;
  const cps = Array.from(text.slice(0, 2 * max + 2));
  if (cps.length <= max) return text;
  let cut = max - 1; // cps[cut] is the first code point dropped
  while (cut > 0 && (EXTENDS_PREVIOUS.test(cps[cut]!) || cps[cut - 1] === '\u200D')) cut--;
  if (cut > 0 && REGIONAL_INDICATOR.test(cps[cut]!)) {
    let run = 0;
    while (run < cut && REGIONAL_INDICATOR.test(cps[cut - 1 - run]!)) run++;
    if (run % 2 === 1) cut--;
  }
  if (cut === 0) cut = max - 1;
  return `${cps.slice(0, cut).join('').trimEnd()}${ELLIPSIS}`;
}

/**
 * Text for one line of a link name or list item: control characters and runs of white space become
 * one space, and Unicode format characters (bidi overrides and isolates, zero-width characters, the
 * byte order mark, soft hyphens) are dropped, so a title can neither break the line nor reorder or
 * hide what a reader sees.
 *
 * ```ts
 * plainLine('Evil\u202Etxt.exe\r\n title') // 'Eviltxt.exe title'
 * ```
 */
export function plainLine(text: string): string {
  if (PLAIN_LINE.test(text)) return text;
  return text.replace(/\p{Cf}+/gu, '').replace(/[\s\p{Cc}]+/gu, ' ').trim();
}

/** Text `plainLine` leaves as it is (most titles): words of visible characters, one space between them. */
const PLAIN_LINE = /^(?:[^\s\p{Cc}\p{Cf}]+(?: [^\s\p{Cc}\p{Cf}]+)*)?$/u;

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for an HTML attribute value or text node: `&`, `<`, `>`, `"` and `'`.
 *
 * ```ts
 * escapeHtml(`<a href="x">Tom's</a>`) // '&lt;a href=&quot;x&quot;&gt;Tom&#39;s&lt;/a&gt;'
 * ```
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]!);
}
