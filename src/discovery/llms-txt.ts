import { boundText, MAX_ITEM_SUMMARY_CHARS, MAX_ITEM_TITLE_CHARS, plainLine } from '../content/display-text.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import type { NewestResource, PublicCategory } from './site-content.js';
import { escapeMarkdownText } from '../markdown/convert.js';
import { defaultDescription, defaultLlmsNotes } from '../settings/default-texts.js';
import type { SiteLicense } from '../settings/site-license.js';

export interface LlmsTxtSite {
  title: string;
  description?: string;
  base: string;
  sitemapUrl?: string;
  categories: readonly PublicCategory[];
  /** The plain text between the summary and the first section, one paragraph a line; `defaultLlmsNotes` when absent. */
  notes?: string;
  /** The newest public, indexable resources, listed with their Markdown URLs. */
  newest?: readonly NewestResource[];
  /** The MCP endpoint and its server card, when the `mcp` option is on. */
  mcp?: { endpoint: string; serverCard: string };
  /** The site's licence (`siteLicense`), stated after the notes. */
  license?: SiteLicense;
  /** The site's copyright line (`siteCopyright`), stated after the notes. */
  copyright?: string;
}

/** The size bound of the whole document, in bytes of UTF-8. */
export const MAX_LLMS_TXT_BYTES = 64 * 1024;

const oneLine = plainLine;

/**
 * Plain text (an administrator's description or notes) as one line of Markdown that reads as the same
 * text: on one line (`plainLine`) and escaped as a title is in the Markdown reads (`escapeMarkdownText`),
 * so no HTML tag, link, emphasis or block marker in it means anything; a `1)` list marker is escaped too.
 *
 * ```ts
 * markdownLine('<b>Bold</b> [x](javascript:y)') // '\\<b>Bold\\</b> \\[x\\](javascript:y)'
 * ```
 */
export function markdownLine(text: string): string {
  return escapeMarkdownText(oneLine(text)).replace(/^(\d+)\)/, '$1\\)');
}

/**
 * Link text: one line, bounded, without the brackets that would end it early, and escaped like a title in
 * the Markdown reads, so a title's `<tag>`, emphasis or code span reaches an agent as the text it is.
 */
const linkName = (text: string): string => escapeMarkdownText(boundText(oneLine(text), MAX_ITEM_TITLE_CHARS).replace(/\[/g, '(').replace(/\]/g, ')'));

/** A URL that cannot end the Markdown link early. */
const linkUrl = (url: string): string => url.replace(/[()\s<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

/** One llms.txt list item, `- [name](url): note`: name and note on one line and bounded, the URL neutralised. */
export const llmsItem = (name: string, url: string, note: string): string =>
  `- [${linkName(name)}](${linkUrl(url)}): ${boundText(oneLine(note), MAX_ITEM_SUMMARY_CHARS)}`;
const item = llmsItem;

const byteLength = (lines: readonly string[]): number => lines.reduce((n, line) => n + Buffer.byteLength(line, 'utf8') + 1, 0);

/**
 * Sections of list items within a byte budget (`budget` minus the lines already written, `fixed`, or
 * their size in bytes): each section holds as many of its items as still fit, and a section with none
 * is left out.
 */
export function boundedSections(budget: number, fixed: readonly string[] | number): (heading: string, items: readonly string[]) => string[] {
  let room = budget - (typeof fixed === 'number' ? fixed : byteLength(fixed));
  return function section(heading, items) {
    const head = ['', `## ${heading}`, ''];
    let left = room - byteLength(head);
    const fitting: string[] = [];
    for (const line of items) {
      left -= byteLength([line]);
      if (left < 0) break;
      fitting.push(line);
    }
    if (!fitting.length) return [];
    room -= byteLength(head) + byteLength(fitting);
    return [...head, ...fitting];
  };
}

/** A resource of a newest section: its title, linking its Markdown in its language, the summary cut short as the note. */
export const newestItem = (base: string, r: NewestResource): string =>
  item(r.title, absoluteUrl(base, PATHS.markdown.url({ id: r.id }), { language: r.language }), r.summary ? boundText(oneLine(r.summary), NEWEST_NOTE_CHARS) : 'Markdown, with YAML front matter');

/** What of llms.txt depends on the site alone (not on its content): the lines before the sections, the lines after, and their size. */
export interface LlmsTxtFrame {
  readonly head: readonly string[];
  readonly tail: readonly string[];
  /** Bytes of UTF-8 the head and tail take, newlines included. */
  readonly fixedBytes: number;
}

/**
 * The head of llms.txt (title, summary, notes, the site's licence and copyright, the API section) and
 * its tail (the sitemap), from the site alone: the route builds it once per settings value and public
 * base, and `buildLlmsTxt` adds the content's sections.
 */
export function llmsTxtFrame(site: Omit<LlmsTxtSite, 'categories' | 'newest'>): LlmsTxtFrame {
  const { base } = site;
  const summary = markdownLine(site.description && oneLine(site.description) ? site.description : defaultDescription(site.title));
  const head = [
    `# ${markdownLine(site.title)}`,
    '',
    `> ${summary}`,
    '',
    ...notesParagraphs(site).flatMap((p) => [p, '']),
    ...termsParagraphs(site).flatMap((p) => [p, '']),
    '## API',
    '',
    item('API help', absoluteUrl(base, PATHS.apiHelp.url()), 'how to use the read-only content API, with a working search example'),
    item('OpenAPI description', absoluteUrl(base, PATHS.openapi.url()), 'OpenAPI 3.1.0 document of every route and parameter'),
    item('API catalog', absoluteUrl(base, PATHS.apiCatalog.url()), 'RFC 9727 linkset pointing to the API and its descriptions'),
    item('Search', absoluteUrl(base, PATHS.search.url(), { sort: 'newest' }), 'browse or full-text search public resources (add text=…); follow next_url until next is false'),
    item('Categories', absoluteUrl(base, PATHS.schema.url()), 'the public categories, to use as cat= in a search'),
    item('Predicates', absoluteUrl(base, PATHS.schema.url(), { kind: 'predicate' }), 'the public relationship types between resources'),
    item('ARD manifest', absoluteUrl(base, PATHS.ard.url()), 'Agentic Resource Discovery entry for this API'),
  ];
  if (site.mcp) {
    head.push(item('MCP server card', site.mcp.serverCard, `read-only MCP server (Streamable HTTP) at ${site.mcp.endpoint}: tools search, read_resource, related, schema`));
  }
  const tail = site.sitemapUrl ? ['', '## Optional', '', item('Sitemap', site.sitemapUrl, 'XML sitemap of the human-readable pages')] : [];
  return Object.freeze({ head: Object.freeze(head), tail: Object.freeze(tail), fixedBytes: byteLength([...head, ...tail]) });
}

/**
 * `/llms.txt` in the llmstxt.org format: one H1 (the site title), one `>` summary line, the notes
 * paragraphs, and H2 sections whose every line is `- [name](absolute url): note`: the API entry
 * points, a search link and the category-scoped llms.txt per public, indexable top-level category,
 * and the Markdown of the newest public, indexable resources. Names and notes are single lines
 * without control or format characters, bounded like every list item; category and newest lines that would take the document
 * past MAX_LLMS_TXT_BYTES are left out. `frame` is `llmsTxtFrame(site)`, when the caller keeps it.
 */
export function buildLlmsTxt(site: LlmsTxtSite, frame: LlmsTxtFrame = llmsTxtFrame(site)): string {
  const { base } = site;
  const section = boundedSections(MAX_LLMS_TXT_BYTES, frame.fixedBytes);
  // Filled in order of importance (the category searches, the newest, then the category indexes);
  // the indexes sit beside the category searches in the document.
  const browse = section(
    'Browse by category',
    site.categories.map((c) => item(c.title, absoluteUrl(base, PATHS.search.url(), { cat: c.ref }), c.summary || `public resources in ${c.title}`)),
  );
  const newest = section('Newest', (site.newest ?? []).map((r) => newestItem(base, r)));
  const indexes = section(
    'Category indexes',
    site.categories.map((c) => item(c.title, absoluteUrl(base, PATHS.llmsCategory.url({ category: c.ref })), 'llms.txt of this category: its newest resources, and the search that continues them')),
  );
  return `${[...frame.head, ...browse, ...indexes, ...newest, ...frame.tail].join('\n')}\n`;
}

/**
 * Plain text as llms.txt paragraphs: each line of it one paragraph (a line break is kept as a paragraph
 * break; blank lines are dropped), escaped by `markdownLine`, so it can open no heading, summary, list
 * item or section, and carries no HTML or link (the reference parser's title, summary and sections stay intact).
 */
const paragraphs = (text: string): string[] => text.split(/\r\n?|\n/).map(markdownLine).filter(Boolean);

/** The operator's notes as paragraphs, or the default notes when they leave nothing to say. */
function notesParagraphs(site: Pick<LlmsTxtSite, 'title' | 'notes'>): string[] {
  const own = paragraphs(site.notes ?? '');
  return own.length ? own : paragraphs(defaultLlmsNotes(site.title));
}

/**
 * The site's licence and copyright, one paragraph each, after the notes (a section may hold only link
 * items): `Content licence: [CC BY 4.0](https://…), unless a resource's front matter gives its own.`
 * (the name alone is text; a link alone is its own name) and `Copyright: © 2026 Example Press`.
 */
function termsParagraphs(site: Pick<LlmsTxtSite, 'license' | 'copyright'>): string[] {
  const { license, copyright } = site;
  const named = license && (license.url ? `[${linkName(license.name ?? license.url)}](${linkUrl(license.url)})` : markdownLine(license.name ?? ''));
  return [
    ...(named ? [`Content licence: ${named}, unless a resource's front matter gives its own.`] : []),
    ...(copyright && oneLine(copyright) ? [`Copyright: ${markdownLine(copyright)}`] : []),
  ];
}

/** How much of a summary the newest section quotes (the resource itself has the rest). */
export const NEWEST_NOTE_CHARS = 300;

