import { boundText, MAX_ITEM_SUMMARY_CHARS, MAX_ITEM_TITLE_CHARS, plainLine } from '../content/display-text.js';
import { PATHS, absoluteUrl } from '../http/paths.js';
import type { PublicCategory } from './site-content.js';

export interface LlmsTxtSite {
  title: string;
  description?: string;
  base: string;
  sitemapUrl?: string;
  categories: readonly PublicCategory[];
  /** The MCP endpoint and its server card, when the `mcp` option is on. */
  mcp?: { endpoint: string; serverCard: string };
}

/** The size bound of the whole document, in bytes of UTF-8. */
export const MAX_LLMS_TXT_BYTES = 64 * 1024;

const oneLine = plainLine;

/** Link text: one line, bounded, without the brackets that would end it early. */
const linkName = (text: string): string => boundText(oneLine(text), MAX_ITEM_TITLE_CHARS).replace(/\[/g, '(').replace(/\]/g, ')');

/** A URL that cannot end the Markdown link early. */
const linkUrl = (url: string): string => url.replace(/[()\s<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

const item = (name: string, url: string, note: string): string =>
  `- [${linkName(name)}](${linkUrl(url)}): ${boundText(oneLine(note), MAX_ITEM_SUMMARY_CHARS)}`;

const byteLength = (lines: readonly string[]): number => lines.reduce((n, line) => n + Buffer.byteLength(line, 'utf8') + 1, 0);

/**
 * `/llms.txt` in the llmstxt.org format: one H1 (the site title), one `>` summary line, and H2
 * sections whose every line is `- [name](absolute url): note`. Only the API entry points and a
 * search link per public, indexable top-level category. Names and notes are single lines without
 * control or format characters, bounded like every list item; category lines that would take the
 * document past MAX_LLMS_TXT_BYTES are left out.
 */
export function buildLlmsTxt(site: LlmsTxtSite): string {
  const { base } = site;
  const summary = site.description && oneLine(site.description)
    ? oneLine(site.description)
    : `Public content of ${oneLine(site.title)}, readable by agents through a read-only JSON and Markdown API.`;
  const lines = [
    `# ${oneLine(site.title)}`,
    '',
    `> ${summary}`,
    '',
    '## API',
    '',
    item('API help', absoluteUrl(base, PATHS.apiHelp), 'how to use the read-only content API, with a working search example'),
    item('OpenAPI description', absoluteUrl(base, PATHS.openapi), 'OpenAPI 3.1.0 document of every route and parameter'),
    item('API catalog', absoluteUrl(base, PATHS.apiCatalog), 'RFC 9727 linkset pointing to the API and its descriptions'),
    item('Search', absoluteUrl(base, PATHS.search, { sort: 'newest' }), 'browse or full-text search public resources (add text=…); follow next_url until next is false'),
    item('Categories', absoluteUrl(base, PATHS.schema), 'the public categories, to use as cat= in a search'),
    item('Predicates', absoluteUrl(base, PATHS.schema, { kind: 'predicate' }), 'the public relationship types between resources'),
    item('ARD manifest', absoluteUrl(base, PATHS.ard), 'Agentic Resource Discovery entry for this API'),
  ];
  if (site.mcp) {
    lines.push(item('MCP server card', site.mcp.serverCard, `read-only MCP server (Streamable HTTP) at ${site.mcp.endpoint}: tools search, read_resource, related, schema`));
  }
  const tail = site.sitemapUrl ? ['', '## Optional', '', item('Sitemap', site.sitemapUrl, 'XML sitemap of the human-readable pages')] : [];
  const categoryHeading = ['', '## Browse by category', ''];
  let budget = MAX_LLMS_TXT_BYTES - byteLength(lines) - byteLength(tail) - byteLength(categoryHeading);
  const categoryLines: string[] = [];
  for (const c of site.categories) {
    const line = item(c.title, absoluteUrl(base, PATHS.search, { cat: c.ref }), c.summary || `public resources in ${c.title}`);
    budget -= byteLength([line]);
    if (budget < 0) break;
    categoryLines.push(line);
  }
  if (categoryLines.length) lines.push(...categoryHeading, ...categoryLines);
  lines.push(...tail);
  return `${lines.join('\n')}\n`;
}
