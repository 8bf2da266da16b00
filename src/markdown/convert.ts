import { createRequire } from 'node:module';
import TurndownService from 'turndown';
import type { MarkdownLimits } from './limits.js';
import { boundMarkup } from './bound-markup.js';
import { parseHtmlFragment } from './html-dom.js';
import { markdownRule } from './markdown-rules.js';
import { withDocumentUrl } from './markdown-urls.js';
import { needsPreparation, prepareDom } from './prepare-dom.js';
import { truncateHtml } from './truncate-html.js';
import { truncateMarkdown } from './truncate-markdown.js';
import { MARKER_NONCE, markerText } from './markers.js';

/** `@joplin/turndown-plugin-gfm`, typed structurally (it ships no types). */
interface GfmPlugin {
  gfm: TurndownService.Plugin;
}
const { gfm } = createRequire(import.meta.url)('@joplin/turndown-plugin-gfm') as GfmPlugin;

/** Elements whose content never reaches the Markdown (the pre-pass removes them first; kept here as a second line). */
const REMOVED_ELEMENTS = [
  'script', 'style', 'noscript', 'template', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form', 'input', 'button',
  'select', 'textarea', 'svg', 'math', 'canvas', 'audio', 'video', 'head', 'link', 'meta', 'base', 'title',
] as const;

/** The nonce marker paragraphs carry, for the duration of one synchronous conversion (see `markers.ts`). */
let currentNonce = MARKER_NONCE;

/** Characters that mean something anywhere in Markdown text, and `<` (text that looks like a tag stays text). */
const INLINE_SPECIALS = /[\\*`[\]_<]/g;
/** What means something only at the start of a text: a list, heading, setext, fence, quote or ordered-list marker. */
const LEADING_SPECIAL = /^(?:-|\+ |=|#{1,6} |~~~|>|\d+\. )/;

/**
 * Escapes a text node's Markdown syntax exactly as turndown's `escape` does, and `<` besides, in one
 * pass instead of turndown's thirteen regular-expression replacements (a tenth of a conversion's
 * time on prose): turndown's start-of-text rules can only fire when the text does not start with one
 * of the characters escaped everywhere, so the two steps are independent.
 *
 * ```ts
 * escapeMarkdownText('1. *a* <b>') // '1\\. \\*a\\* \\<b>'
 * ```
 */
export function escapeMarkdownText(text: string): string {
  const escaped = text.replace(INLINE_SPECIALS, '\\$&');
  const leading = LEADING_SPECIAL.exec(escaped);
  if (!leading) return escaped;
  // An ordered-list marker keeps its number: `1\. `; every other marker gets a leading backslash.
  const marker = leading[0];
  return marker.endsWith('. ') ? `${marker.slice(0, -2)}\\. ${escaped.slice(marker.length)}` : `\\${escaped}`;
}

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    fence: '```',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    hr: '---',
    linkStyle: 'inlined',
  });
  service.use(gfm);
  service.remove([...REMOVED_ELEMENTS]);
  service.escape = escapeMarkdownText;
  // Rules added later take precedence over the plugin's and turndown's own.
  service.addRule('agent', markdownRule(escapeMarkdownText, () => currentNonce));
  return service;
}

/** Created once per process (about 1 ms); conversions reuse it. */
let shared: TurndownService | undefined;

export interface ConvertOptions {
  /** The absolute public base URL, without a trailing slash. */
  baseUrl: string;
  /** The URL relative references resolve against; default `<baseUrl>/`. */
  documentUrl?: string;
  /**
   * The nonce of the marker paragraphs in the HTML; default this thread's `MARKER_NONCE`. A worker
   * thread converts with the nonce of the thread that composed the HTML.
   */
  markerNonce?: string;
}

/**
 * Converts (already bounded) HTML to Markdown: parsed once, prepared by the DOM pre-pass
 * (`prepare-dom.ts`: nothing hidden or scripted, media and embeds as links, real image sources,
 * captions, callouts, tabsets, footnotes, spanned tables), then written by turndown with the rules of
 * `markdown-rules.ts` (GFM tables, fenced code with its language, ATX headings, one-line link texts,
 * links and images absolute against the document URL, `javascript:` and other unsafe URLs dropped,
 * text that looks like a tag escaped). Synchronous: bound the input first (see `limits.ts`).
 *
 * ```ts
 * htmlToMarkdown('<p><a href="/about">About</a></p>', { baseUrl: 'https://example.org' })
 * // '[About](https://example.org/about)'
 * ```
 */
export function htmlToMarkdown(html: string, options: ConvertOptions): string {
  shared ??= createService();
  const service = shared;
  if (!html) return '';
  return withDocumentUrl(new URL(options.documentUrl ?? `${options.baseUrl}/`), () => {
    currentNonce = options.markerNonce ?? MARKER_NONCE;
    try {
      const root = parseHtmlFragment(html);
      if (needsPreparation(html)) prepareDom(root);
      // turndown clones a node it is given; this tree is ours alone, so it may work on it directly.
      Object.defineProperty(root, 'cloneNode', { value: () => root });
      return service.turndown(root as unknown as TurndownService.Node);
    } finally {
      currentNonce = MARKER_NONCE;
    }
  });
}

/**
 * Converts composed HTML within the limits: the HTML is cut to `maxHtmlBytes` and `maxElements` and
 * its nesting bounded to `maxDepth` before turndown sees it, the Markdown cut to `maxMarkdownBytes`,
 * each with a visible marker; `complete` is false when anything was cut or flattened.
 */
export function boundedHtmlToMarkdown(
  html: string,
  options: ConvertOptions,
  limits: MarkdownLimits,
): { markdown: string; complete: boolean } {
  const notes: string[] = [];
  const sized = truncateHtml(html, limits.maxHtmlBytes);
  const bounded = boundMarkup(sized.html, limits);
  if (sized.truncated || bounded.truncated) notes.push(`[${markerText.htmlTruncated(limits.maxHtmlBytes)}]`);
  if (bounded.flattened) notes.push(`[${markerText.flattened(limits.maxDepth)}]`);
  const converted = htmlToMarkdown(bounded.html, options);
  const markdown = notes.length ? [converted, ...notes].filter(Boolean).join('\n\n') : converted;
  const cut = truncateMarkdown(markdown, limits.maxMarkdownBytes, `[${markerText.markdownTruncated(limits.maxMarkdownBytes)}]`);
  return { markdown: cut.markdown, complete: notes.length === 0 && !cut.truncated };
}
