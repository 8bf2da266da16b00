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
