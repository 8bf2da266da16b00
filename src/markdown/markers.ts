import { randomBytes } from 'node:crypto';
import { escapeHtml } from '../content/display-text.js';

/**
 * Visible markers for content left out of a representation (`[Omitted: …]`, `[Content truncated: …]`).
 * They travel through the templates as HTML paragraphs tagged with a per-process nonce, so that the
 * converter prints them verbatim while editorial HTML cannot forge one.
 */
export const MARKER_NONCE = randomBytes(9).toString('base64url');

export const MARKER_ATTRIBUTE = 'data-agent-marker';

/** The HTML of a marker paragraph whose Markdown is exactly `[text]`. */
export function markerHtml(text: string): string {
  return `<p ${MARKER_ATTRIBUTE}="${MARKER_NONCE}">[${escapeHtml(text)}]</p>`;
}

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

export const markerText = {
  unsupportedBlock: (type: string) =>
    /^[a-z][a-z0-9_]*$/.test(type) && type.length <= 64
      ? `Omitted: unsupported block type "${type}"`
      : 'Omitted: block with an invalid type name',
  nestedPage: (rscId: number | undefined) =>
    `Omitted: page reference${rscId === undefined ? '' : ` to resource ${rscId}`} inside a referenced page is not expanded`,
  referencedBlock: (type: string) =>
    /^[a-z][a-z0-9_]*$/.test(type) && type.length <= 64
      ? `Omitted: "${type}" block of a referenced page`
      : 'Omitted: block with an invalid type name in a referenced page',
  htmlTruncated: (maxBytes: number) => `Content truncated: the content exceeds the ${kib(maxBytes)} bound`,
  markdownTruncated: (maxBytes: number) => `Content truncated: the Markdown exceeds the ${kib(maxBytes)} bound`,
  budgetExceeded: (budgetMs: number) => `Content truncated: rendering exceeded the ${budgetMs} ms budget`,
  flattened: (maxDepth: number) => `Content simplified: markup nested deeper than ${maxDepth} levels was flattened`,
};
