/** The response header agents read a Markdown answer's token count from (Cloudflare's Markdown for Agents and its npm peers send it). */
export const MARKDOWN_TOKENS_HEADER = 'x-markdown-tokens';

/** UTF-8 bytes per token of the estimate. */
const BYTES_PER_TOKEN = 4;

/**
 * The token count a Markdown answer of `byteLength` UTF-8 bytes is estimated at: the bytes divided by
 * four, rounded up. About four characters of English text make a token for today's tokenizers (the
 * heuristic `markdown-for-agents` sends by default); counting bytes rather than characters keeps the
 * estimate from falling far short for scripts of several bytes a character (Chinese, Greek), where a
 * character is often a token of its own. An estimate for planning a context window, not a tokenizer's
 * count: it needs no model and costs nothing (the body's bytes are known once it is built).
 *
 * ```ts
 * estimateMarkdownTokens(Buffer.byteLength('# Harbour\n\nThe old harbour.\n')) // 7 (28 bytes)
 * ```
 */
export function estimateMarkdownTokens(byteLength: number): number {
  return Math.ceil(byteLength / BYTES_PER_TOKEN);
}
