import { plainLine } from '../content/display-text.js';

/**
 * The description's built-in default: the summary line of llms.txt and llms-full.txt when neither the
 * Settings page nor the `description` option sets one (the other documents then carry no description).
 *
 * ```ts
 * defaultDescription('Harbour') // 'Public content of Harbour, readable by agents through a read-only JSON and Markdown API.'
 * ```
 */
export function defaultDescription(siteTitle: string): string {
  return `Public content of ${plainLine(siteTitle)}, readable by agents through a read-only JSON and Markdown API.`;
}

/**
 * The llms.txt notes' built-in default, plain text like an administrator's: what the site offers, that
 * no key is needed, and how to cite. (The llmstxt.org reference parser keeps the `>` summary only when
 * text follows it before the first section.)
 */
export function defaultLlmsNotes(siteTitle: string): string {
  return (
    `${plainLine(siteTitle)} offers its public pages to agents: every page has a Markdown version (with YAML front matter) ` +
    'and a JSON read, and the read-only API below searches and reads them. No API key, account or sign-in is needed. ' +
    'To cite a resource, link its human page: the url in the Markdown front matter, or page_url in the JSON read.'
  );
}
