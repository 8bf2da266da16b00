import { boundText, MAX_ITEM_SUMMARY_CHARS, MAX_ITEM_TITLE_CHARS, plainLine } from '../content/display-text.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import { boundedSections, llmsItem, markdownLine, MAX_LLMS_TXT_BYTES, newestItem } from './llms-txt.js';
import type { NewestResource, PublicCategory } from './site-content.js';

export interface CategoryLlmsTxtSite {
  /** The site's title, named in the paragraph that links back to the root llms.txt. */
  siteTitle: string;
  base: string;
  category: PublicCategory;
  /** The newest public, indexable resources of the category's subtree, listed with their Markdown URLs. */
  newest: readonly NewestResource[];
}

/**
 * The llms.txt of one top-level category, in the root's grammar and under the root's size bound:
 * the category's title as H1, its summary as the `>` line, a paragraph pointing back to the site, then
 * `Newest` (its newest resources' Markdown) and `Continue` (the search of the category, newest first,
 * and the site's llms.txt).
 *
 * ```text
 * # Articles
 *
 * > Long reads about harbours.
 *
 * Part of Example Site: the newest public resources of this category, …
 *
 * ## Newest
 *
 * - [Lighthouse](https://example.org/agent/resource/7/markdown?language=en): A tall light.
 *
 * ## Continue
 *
 * - [All of Articles, newest first](https://example.org/api/agent/search?cat=article&sort=newest): …
 * ```
 */
export function buildCategoryLlmsTxt(site: CategoryLlmsTxtSite): string {
  const { base, category } = site;
  const title = boundText(plainLine(category.title), MAX_ITEM_TITLE_CHARS) || String(category.ref);
  const siteTitle = plainLine(site.siteTitle);
  const summary = boundText(plainLine(category.summary), MAX_ITEM_SUMMARY_CHARS) || `The public resources of ${title}, on ${siteTitle}.`;
  const rootUrl = absoluteUrl(base, PATHS.llmsTxt.url());
  const searchUrl = absoluteUrl(base, PATHS.search.url(), { cat: category.ref, sort: 'newest' });
  const lines = [
    `# ${markdownLine(title)}`,
    '',
    `> ${markdownLine(summary)}`,
    '',
    `Part of ${markdownLine(siteTitle)}: the newest public resources of this category, each linking its Markdown (with YAML front matter). ` +
      'No API key, account or sign-in is needed. The search below continues past them; the site llms.txt lists the whole API.',
  ];
  const tail = [
    '',
    '## Continue',
    '',
    llmsItem(`All of ${title}, newest first`, searchUrl, 'search of this category and its subcategories; follow next_url until next is false'),
    llmsItem(siteTitle, rootUrl, 'the llms.txt of the whole site: its API entry points and every category'),
  ];
  const section = boundedSections(MAX_LLMS_TXT_BYTES, [...lines, ...tail]);
  lines.push(...section('Newest', site.newest.map((r) => newestItem(base, r))), ...tail);
  return `${lines.join('\n')}\n`;
}
