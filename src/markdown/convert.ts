import { createRequire } from 'node:module';
import TurndownService from 'turndown';
import type { MarkdownLimits } from './limits.js';
import { boundMarkup } from './bound-markup.js';
import { truncateHtml } from './truncate-html.js';
import { truncateMarkdown } from './truncate-markdown.js';
import { MARKER_ATTRIBUTE, MARKER_NONCE, markerText } from './markers.js';

/** The few DOM members the rules below read (turndown hands them domino nodes). */
interface DomNode {
  nodeName: string;
  textContent: string | null;
  firstChild: DomNode | null;
  childNodes: ArrayLike<DomNode>;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<DomNode>;
  rows?: ArrayLike<DomNode>;
}

/** `@joplin/turndown-plugin-gfm`, typed structurally (it ships no types). */
interface GfmPlugin {
  gfm: TurndownService.Plugin;
}
const { gfm } = createRequire(import.meta.url)('@joplin/turndown-plugin-gfm') as GfmPlugin;

/** Elements whose content never reaches the Markdown. */
const REMOVED_ELEMENTS = [
  'script', 'style', 'noscript', 'template', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form', 'input', 'button',
  'select', 'textarea', 'svg', 'math', 'canvas', 'audio', 'video', 'head', 'link', 'meta', 'base', 'title',
] as const;

const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:', 'tel:']);
const IMAGE_PROTOCOLS = new Set(['http:', 'https:']);

/** The document URL relative references resolve against, for the duration of one synchronous conversion. */
let currentBase: URL | undefined;
/** The nonce marker paragraphs carry, for the duration of one synchronous conversion (see `markers.ts`). */
let currentNonce = MARKER_NONCE;

/**
 * Resolves `raw` against the current document URL. `undefined` for a protocol that is not allowed
 * (`javascript:`, `data:`, …) or a reference that does not parse.
 */
function absoluteUrl(raw: string | null, protocols: ReadonlySet<string>): string | undefined {
  if (!raw) return undefined;
  try {
    // The WHATWG parser strips the whitespace and control characters browsers ignore (`java\nscript:`).
    const url = new URL(raw, currentBase);
    return protocols.has(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const escapeDestination = (href: string) => href.replace(/[()\\ <>]/g, (c) => (c === ' ' ? '%20' : c === '<' ? '%3C' : c === '>' ? '%3E' : `\\${c}`));
const escapeTitle = (title: string | null) => (title ?? '').replace(/\s+/g, ' ').trim().replace(/["\\]/g, '\\$&');
const escapeAlt = (alt: string | null) => (alt ?? '').replace(/\s+/g, ' ').trim().replace(/[[\]\\<]/g, '\\$&');

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

function fencedBlock(code: string, language: string): string {
  let size = 3;
  for (const m of code.matchAll(/^`{3,}/gm)) size = Math.max(size, m[0].length + 1);
  const fence = '`'.repeat(size);
  return `\n\n${fence}${language}\n${code.replace(/\n$/, '')}\n${fence}\n\n`;
}

function tableIsSkipped(table: DomNode): boolean {
  const rows = table.rows;
  return !rows || (rows.length === 1 && rows[0]!.childNodes.length <= 1) || table.getElementsByTagName('table').length > 0;
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
  service.addRule('agentTable', {
    filter: 'table',
    replacement(content, node) {
      const table = node as unknown as DomNode;
      if (tableIsSkipped(table)) return content;
      // Unlike the plugin, never fall back to raw HTML: block content in cells stays inline (`<br>`).
      const lines = content.replace(/\n+/g, '\n').trim();
      const columns = Math.max(0, ...Array.from(table.rows ?? [], (row) => row.childNodes.length));
      const secondLine = lines.split('\n')[1] ?? '';
      const header = columns && !/^\| :?---/.test(secondLine) ? `|${'     |'.repeat(columns)}\n|${' --- |'.repeat(columns)}\n` : '';
      const caption = table.getElementsByTagName('caption')[0]?.textContent?.trim();
      return `\n\n${caption ? `${service.escape(caption)}\n\n` : ''}${header}${lines}\n\n`;
    },
  });
  service.addRule('agentPreformatted', {
    filter: (node) => node.nodeName === 'PRE' && node.firstChild?.nodeName !== 'CODE',
    replacement: (_content, node) => fencedBlock((node as unknown as DomNode).textContent ?? '', ''),
  });
  service.addRule('agentLink', {
    filter: (node) => node.nodeName === 'A' && node.getAttribute('href') !== null,
    replacement(content, node) {
      const el = node as unknown as DomNode;
      const href = absoluteUrl(el.getAttribute('href'), LINK_PROTOCOLS);
      if (!href) return content;
      const title = escapeTitle(el.getAttribute('title'));
      return `[${content}](${escapeDestination(href)}${title ? ` "${title}"` : ''})`;
    },
  });
  service.addRule('agentImage', {
    filter: 'img',
    replacement(_content, node) {
      const el = node as unknown as DomNode;
      const src = absoluteUrl(el.getAttribute('src'), IMAGE_PROTOCOLS);
      const alt = escapeAlt(el.getAttribute('alt'));
      if (!src) return alt;
      const title = escapeTitle(el.getAttribute('title'));
      return `![${alt}](${escapeDestination(src)}${title ? ` "${title}"` : ''})`;
    },
  });
  service.addRule('agentMarker', {
    filter: (node) => node.nodeName === 'P' && node.getAttribute(MARKER_ATTRIBUTE) === currentNonce,
    replacement: (_content, node) => `\n\n${((node as unknown as DomNode).textContent ?? '').replace(/\s+/g, ' ').replace(/</g, '\\<')}\n\n`,
  });
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
 * Converts (already bounded) HTML to Markdown: GFM tables (header-less ones get an empty header row,
 * `|` in cells is escaped), fenced code (a bare `<pre>` too), ATX headings, scripts, styles, frames,
 * objects and forms removed, links and images absolute against the document URL, `javascript:` and
 * other unsafe URLs dropped (the link text stays), text that looks like a tag escaped. Synchronous:
 * bound the input first (see `limits.ts`).
 *
 * ```ts
 * htmlToMarkdown('<p><a href="/about">About</a></p>', { baseUrl: 'https://example.org' })
 * // '[About](https://example.org/about)'
 * ```
 */
export function htmlToMarkdown(html: string, options: ConvertOptions): string {
  shared ??= createService();
  currentBase = new URL(options.documentUrl ?? `${options.baseUrl}/`);
  currentNonce = options.markerNonce ?? MARKER_NONCE;
  try {
    return shared.turndown(html);
  } finally {
    currentBase = undefined;
    currentNonce = MARKER_NONCE;
  }
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
