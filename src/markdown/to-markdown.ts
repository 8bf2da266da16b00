import { boundedHtmlToMarkdown } from './convert.js';
import { resolveMarkdownLimits, type MarkdownLimits } from './limits.js';

export interface ToMarkdownOptions {
  /**
   * The absolute `http:` or `https:` URL of the page the HTML belongs to: relative links and images
   * resolve against it, as they do on the page.
   */
  url: string;
  /** Overrides of the bounds (`DEFAULT_MARKDOWN_LIMITS`); `budgetMs` does not apply to this synchronous call. */
  limits?: Partial<MarkdownLimits>;
}

export interface ToMarkdownResult {
  markdown: string;
  /** False when the HTML or the Markdown was cut, or markup nested too deeply was flattened (a marker says so). */
  complete: boolean;
}

/**
 * Converts HTML to Markdown with the rules and bounds the plugin's Markdown representations use: the
 * same DOM pre-pass (media and embeds as links, lazy images' real sources, captions, callouts, tabsets,
 * footnotes, nothing hidden, scripted or decorative) and turndown rules (GFM tables, fenced code with
 * its language, one-line link texts, absolute and safe URLs), within `maxHtmlBytes`, `maxElements`,
 * `maxDepth` and `maxMarkdownBytes`. Synchronous, on the calling thread; never throws on any HTML.
 *
 * ```ts
 * toMarkdown('<figure class="media"><oembed url="https://youtu.be/x"></oembed></figure>', { url: 'https://example.org/post' })
 * // { markdown: '[Embedded content: youtu.be](https://youtu.be/x)', complete: true }
 * ```
 */
export function toMarkdown(html: string, options: ToMarkdownOptions): ToMarkdownResult {
  const page = pageUrl(options?.url);
  const limits = resolveMarkdownLimits(options.limits);
  return boundedHtmlToMarkdown(typeof html === 'string' ? html : String(html ?? ''), { baseUrl: page.origin, documentUrl: page.href }, limits);
}

function pageUrl(url: unknown): URL {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new TypeError(`express-agent-discovery: toMarkdown option "url" must be an absolute http(s) URL, got ${JSON.stringify(url)}`);
  }
  return parsed;
}
