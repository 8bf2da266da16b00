/**
 * The turndown rules of the conversion, on the DOM the pre-pass prepared (`prepare-dom.ts`): links
 * whose text stays on one line (a link around block content becomes its title as the link and the
 * rest as text after it), absolute and safe links and images, captions marked and kept with what they
 * caption, GFM tables that never fall back to HTML, fenced code with its language, definition lists,
 * `<details>`, GFM footnotes and task lists, and the plugin's marker paragraphs.
 */
import type TurndownService from 'turndown';
import { absoluteUrl, escapeAlt, escapeDestination, escapeTitle, LINK_PROTOCOLS, markdownLink, MEDIA_PROTOCOLS } from './markdown-urls.js';
import { classesOf, descendantsNamed, elementChildren, findElement, squashText, type DomElement, type DomNode } from './html-dom.js';
import { MARKER_ATTRIBUTE } from './markers.js';

const el = (node: unknown) => node as DomElement;

/** One rule: the element names it is for, an optional further test, and the Markdown it writes. */
interface AgentRule {
  readonly names: readonly string[];
  test?(node: DomElement): boolean;
  replacement(content: string, node: DomElement): string;
}

/** Text of one line: Markdown line breaks and blank lines become spaces. */
const oneLine = (markdown: string) => markdown.replace(/\s*\n\s*/g, ' ').trim();

const BLOCK_NAMES = new Set([
  'P', 'DIV', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'UL', 'OL', 'LI', 'DL', 'DT', 'DD', 'FIGURE', 'FIGCAPTION', 'TABLE', 'TR', 'TD', 'TH', 'PRE',
  'BLOCKQUOTE', 'SECTION', 'ARTICLE', 'HEADER', 'FOOTER', 'ASIDE', 'NAV', 'MAIN', 'ADDRESS', 'DETAILS', 'SUMMARY', 'HR',
]);

function hasBlockContent(node: DomNode): boolean {
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 1 && (BLOCK_NAMES.has(child.nodeName) || hasBlockContent(child))) return true;
  }
  return false;
}

/** The texts of a link's blocks, in order (images left out: a card's thumbnail and icon are decoration). */
function blockTexts(node: DomElement): string[] {
  const parts: string[] = [];
  let buffer = '';
  const flush = () => {
    const text = squashText(buffer);
    if (text) parts.push(text);
    buffer = '';
  };
  const visit = (parent: DomNode) => {
    for (const child of Array.from(parent.childNodes)) {
      if (child.nodeType === 3) buffer += child.textContent ?? '';
      else if (child.nodeType !== 1 || child.nodeName === 'IMG') continue;
      else if (child.nodeName === 'BR') buffer += ' ';
      else if (BLOCK_NAMES.has(child.nodeName)) {
        flush();
        visit(child);
        flush();
      } else visit(child);
    }
  };
  visit(node);
  flush();
  return parts;
}

/** A card's title element (`kg-bookmark-title`, `bookmark-title`, `embedded-post-title`, …) inside a link. */
const TITLE_CLASS = /(?:^|[-_])title(?:$|[-_])/;

/**
 * The texts of a link around blocks, its card's title first (wherever the card puts it: a Substack
 * post card opens with the publication's name).
 */
function cardTexts(a: DomElement): string[] {
  const parts = blockTexts(a);
  const titled = parts.length > 1 ? findElement(a, (e) => e !== a && e.hasAttributes() && classesOf(e).some((c) => TITLE_CLASS.test(c)) && squashText(e.textContent) !== '') : undefined;
  const at = titled ? parts.indexOf(squashText(titled.textContent)) : -1;
  if (at > 0) parts.unshift(...parts.splice(at, 1));
  return parts;
}

/** An image in Markdown, its source absolute and safe (only its alt text when it has none). */
function imageMarkdown(img: DomElement): string {
  const src = absoluteUrl(img.getAttribute('src'), MEDIA_PROTOCOLS);
  const alt = escapeAlt(img.getAttribute('alt'));
  if (!src) return alt;
  const title = escapeTitle(img.getAttribute('title'));
  return `![${alt}](${escapeDestination(src)}${title ? ` "${title}"` : ''})`;
}

function fencedBlock(code: string, language: string): string {
  let size = 3;
  for (const m of code.matchAll(/^`{3,}/gm)) size = Math.max(size, m[0].length + 1);
  const fence = '`'.repeat(size);
  return `\n\n${fence}${language}\n${code.replace(/\n$/, '')}\n${fence}\n\n`;
}

const skippedTables = new WeakMap<DomElement, boolean>();

/** A table of one cell, or one holding a table, is written as its content (asked once per table, not per cell). */
function tableIsSkipped(table: DomElement & { rows?: ArrayLike<DomElement> }): boolean {
  let skipped = skippedTables.get(table);
  if (skipped === undefined) {
    const rows = table.rows;
    skipped = !rows || (rows.length === 1 && rows[0]!.childNodes.length <= 1) || descendantsNamed(table, 'TABLE').length > 0;
    skippedTables.set(table, skipped);
  }
  return skipped;
}

const lastElementChild = (parent: DomElement): DomElement | undefined => elementChildren(parent).pop();

/** The rules, given the service's escaping and the marker nonce of the conversion under way. */
function agentRules(escape: (text: string) => string, markerNonce: () => string): Record<string, AgentRule> {
  return {
    agentTable: {
      names: ['TABLE'],
      replacement(content, node) {
        const table = el(node) as DomElement & { rows?: ArrayLike<DomElement> };
        if (tableIsSkipped(table)) return content;
        // Unlike the plugin, never fall back to raw HTML: block content in cells stays inline (`<br>`).
        const lines = content.replace(/\n+/g, '\n').trim();
        const columns = Math.max(0, ...Array.from(table.rows ?? [], (row) => row.childNodes.length));
        const secondLine = lines.split('\n')[1] ?? '';
        const header = columns && !/^\| :?---/.test(secondLine) ? `|${'     |'.repeat(columns)}\n|${' --- |'.repeat(columns)}\n` : '';
        const caption = squashText(elementChildren(table).find((c) => c.nodeName === 'CAPTION')?.textContent);
        return `\n\n${header}${lines}\n\n${caption ? `*${escape(caption)}*\n\n` : ''}`;
      },
    },
    agentTableCell: {
      names: ['TH', 'TD'],
      replacement(content, node) {
        const cell = el(node);
        let table = cell.parentNode;
        while (table && table.nodeName !== 'TABLE') table = table.parentNode;
        if (!table || tableIsSkipped(table)) return content;
        // Every `|` escaped on its own (the plugin folds a run of them into one: `a || b` lost a pipe).
        const text = content.trim().replace(/\n/g, '<br>').replace(/\|/g, '\\|').padEnd(3, ' ');
        return `${cell.previousElementSibling ? ' ' : '| '}${text} |`;
      },
    },
    agentList: {
      names: ['UL', 'OL'],
      replacement(content, node) {
        const parent = node.parentNode as DomElement | null;
        // An ordered list not starting at 1 cannot interrupt a paragraph: a blank line before it, or it reads as text.
        const start = node.nodeName === 'OL' ? Number.parseInt(el(node).getAttribute('start') ?? '1', 10) : 1;
        if (parent?.nodeName === 'LI' && lastElementChild(parent) === node && start === 1) return `\n${content}`;
        return `\n\n${content}\n\n`;
      },
    },
    agentCode: {
      names: ['PRE'],
      replacement: (_content, node) => fencedBlock(el(node).textContent ?? '', el(node).getAttribute('data-agent-language') ?? ''),
    },
    agentLink: {
      names: ['A'],
      test: (node) => node.getAttribute('href') !== null,
      replacement(content, node) {
        const a = el(node);
        const href = absoluteUrl(a.getAttribute('href'), LINK_PROTOCOLS);
        if (!href) return content;
        if (hasBlockContent(a)) {
          const [title, ...rest] = cardTexts(a).map(escape);
          // A linked image in wrappers (Substack, Webflow, Squarespace): the image as the link's text.
          const image = title ? undefined : descendantsNamed(a, 'IMG').map(imageMarkdown).find(Boolean);
          if (image) return markdownLink(image, href, a.getAttribute('title'));
          if (!title) return '';
          return `${markdownLink(title, href, a.getAttribute('title'))}${rest.length ? ` — ${rest.join(' — ')}` : ''}`;
        }
        const text = oneLine(content);
        return text ? markdownLink(text, href, a.getAttribute('title')) : '';
      },
    },
    agentImage: {
      names: ['IMG'],
      replacement: (_content, node) => imageMarkdown(el(node)),
    },
    agentHeading: {
      names: ['H1', 'H2', 'H3', 'H4', 'H5', 'H6'],
      replacement(content, node) {
        const text = oneLine(content);
        return text ? `\n\n${'#'.repeat(Number(node.nodeName.charAt(1)))} ${text}\n\n` : '';
      },
    },
    agentCaption: {
      names: ['FIGCAPTION'],
      replacement(content) {
        const text = oneLine(content);
        return text ? `\n\n*${text}*\n\n` : '';
      },
    },
    agentDefinitionTerm: {
      names: ['DT'],
      replacement: (content) => (oneLine(content) ? `\n\n**${oneLine(content)}**\n` : ''),
    },
    agentDefinition: {
      names: ['DD'],
      replacement: (content) => (content.trim() ? `\n: ${content.trim()}\n\n` : ''),
    },
    agentDetails: {
      names: ['DETAILS'],
      replacement: (content) => `\n\n${content}\n\n`,
    },
    agentSummary: {
      names: ['SUMMARY'],
      replacement: (_content, node) => {
        const text = squashText(node.textContent);
        return text ? `\n\n**${escape(text)}**\n\n` : '';
      },
    },
    agentFootnotes: {
      names: ['X-FOOTNOTES'],
      replacement: (content) => `\n\n${content}\n\n`,
    },
    agentFootnote: {
      names: ['X-FOOTNOTE'],
      replacement: (content, node) => `\n\n[^${el(node).getAttribute('data-n')}]: ${content.trim().replace(/\n/g, '\n    ')}\n\n`,
    },
    agentFootnoteReference: {
      names: ['X-FOOTNOTE-REF'],
      replacement: (_content, node) => `[^${el(node).getAttribute('data-n')}]`,
    },
    agentTask: {
      names: ['INPUT'],
      test: (node) => node.hasAttribute('data-agent-task'),
      replacement: (_content, node) => `[${el(node).getAttribute('data-agent-task') === 'x' ? 'x' : ' '}] `,
    },
    agentMarker: {
      names: ['P'],
      test: (node) => node.getAttribute(MARKER_ATTRIBUTE) === markerNonce(),
      replacement: (_content, node) => `\n\n${(node.textContent ?? '').replace(/\s+/g, ' ').replace(/</g, '\\<')}\n\n`,
    },
  };
}

/**
 * The rules as one turndown rule: turndown tries every rule's filter on every node, in order, so one
 * lookup by element name replaces eighteen filters (a fifth of the rule matching's time on prose).
 */
export function markdownRule(escape: (text: string) => string, markerNonce: () => string): TurndownService.Rule {
  const byName = new Map<string, AgentRule[]>();
  for (const rule of Object.values(agentRules(escape, markerNonce))) for (const name of rule.names) byName.set(name, [...(byName.get(name) ?? []), rule]);
  const ruleFor = (node: DomElement) => byName.get(node.nodeName)?.find((r) => !r.test || r.test(node));
  return {
    filter: (node) => ruleFor(el(node)) !== undefined,
    replacement: (content, node) => ruleFor(el(node))!.replacement(content, el(node)),
  };
}
