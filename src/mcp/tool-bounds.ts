import { z } from 'zod';
import { integerParam, MAX_PAGELEN } from '../http/parameters.js';

/**
 * The most characters one tool result holds: its text and its structured result (as JSON) together.
 * MCP hosts cut or refuse larger results (LM Studio truncates at 50,000 characters, ChatGPT's custom
 * MCP refuses about 66,000, Claude Code moves them to a file), so a page is cut to fit and a long
 * Markdown is answered in parts.
 */
export const MAX_TOOL_RESULT_CHARS = 50_000;

/**
 * The most calls one JSON-RPC batch (a 2025-03-26 client's array of requests) may hold; a larger
 * batch is refused whole with one JSON-RPC error. With each result bounded, one answer stays under
 * about half a megabyte.
 */
export const MAX_BATCH_CALLS = 10;

/** The tool-only argument of the paged tools: the items of the page already returned (set by `next_arguments`). */
export const SKIP_ARGUMENT = 'skip';
/** The tool-only argument of `read_resource`: where in the Markdown to go on (set by the note ending a cut part). */
export const START_ARGUMENT = 'start';

/** `skip`, as the paged tools take it. */
export const skipArgument = integerParam(0, MAX_PAGELEN - 1)
  .optional()
  .describe('Items of this page already returned: set by next_arguments when a page was cut to keep the result under 50,000 characters.');

/** `start`, as `read_resource` takes it. */
export const startArgument = integerParam(0, 64 * 1024 * 1024)
  .optional()
  .describe('Character offset in the Markdown to continue from: given by the note that ends a part cut to keep the result under 50,000 characters.');

/** Room kept free for what is worked out after the fit (`next_arguments` with `skip`, the cut note). */
const SLACK = 1_000;

/** The characters a result takes when its text is its structured result as JSON (the paged tools). */
const jsonTwice = (value: unknown) => 2 * JSON.stringify(value).length;

/**
 * How many of `items` (at least one) fit in one tool result beside the rest of `page`, when the text
 * repeats the structured result: every item's JSON and its comma, counted twice.
 *
 * ```ts
 * itemsThatFit({ page: 1, next: true }, items) // 37 of 100 items of about 650 characters each
 * ```
 */
export function itemsThatFit(page: Record<string, unknown>, items: readonly unknown[]): number {
  let size = jsonTwice({ ...page, items: [] });
  let count = 0;
  for (const item of items) {
    size += jsonTwice(item) + 2;
    if (size > MAX_TOOL_RESULT_CHARS - SLACK && count > 0) break;
    count++;
  }
  return count;
}

/** One part of a long Markdown: its text, and where the next part starts (or undefined: the end). */
export interface MarkdownPart {
  text: string;
  next: number | undefined;
}

/**
 * The part of `markdown` from `start` that fits in a tool result beside `used` characters (the
 * structured result), cut at the last line break in its second half (else at the room's end, never
 * inside a surrogate pair).
 */
export function markdownPart(markdown: string, start: number, used: number): MarkdownPart {
  const room = Math.max(MAX_TOOL_RESULT_CHARS - SLACK - used, 1_000);
  if (markdown.length - start <= room) return { text: markdown.slice(start), next: undefined };
  let end = start + Math.max(room, 1);
  const lineBreak = markdown.lastIndexOf('\n', end - 1);
  if (lineBreak >= start + room / 2) end = lineBreak + 1;
  else if (/[\uD800-\uDBFF]/.test(markdown[end - 1] ?? '')) end--;
  return { text: markdown.slice(start, end), next: end };
}

/** The strict zod object of a tool's arguments, with the tool-only argument added. */
export function withToolArgument(input: z.ZodObject, name: string, schema: z.ZodType): z.ZodObject {
  return z.object({ ...input.shape, [name]: schema }).strict();
}
