/**
 * The structural part of the DOM pre-pass: tables made rectangular (spans expanded), Wiki.js tabsets
 * expanded (labels become headings, panels follow), captions moved after what they caption, heading permalinks dropped.
 */
import { classesOf, createElement, descendantsNamed, elementChildren, hasClass, isElement, squashText, TEXT_NODE, type DomElement, type DomNode } from './html-dom.js';

/** Beyond this many cells, a table's spans are left as they are (the conversion stays linear). */
const MAX_GRID_CELLS = 5000;
const MAX_SPAN = 64;

const span = (cell: DomElement, name: string) => Math.min(MAX_SPAN, Math.max(1, Number.parseInt(cell.getAttribute(name) ?? '1', 10) || 1));

const rowsOf = (table: DomElement): DomElement[] => {
  const rows: DomElement[] = [];
  for (const child of elementChildren(table)) {
    if (child.nodeName === 'TR') rows.push(child);
    else if (child.nodeName === 'THEAD' || child.nodeName === 'TBODY' || child.nodeName === 'TFOOT') rows.push(...elementChildren(child).filter((r) => r.nodeName === 'TR'));
  }
  return rows;
};

/**
 * Expands `colspan` and `rowspan` into empty cells and pads short rows, so that every row of the GFM
 * table has as many cells as its header (a cell spanning `n` columns reads as its text and `n - 1`
 * empty cells).
 */
export function normalizeTable(table: DomElement): void {
  const rows = rowsOf(table);
  let spanned = false;
  let width = 0;
  const pending: number[] = [];
  const grid: DomElement[][] = [];
  for (const row of rows) {
    const cells: DomElement[] = [];
    const fillSpannedFromAbove = () => {
      while ((pending[cells.length] ?? 0) > 0) {
        pending[cells.length]! -= 1;
        cells.push(emptyCell(row, 'td'));
      }
    };
    for (const cell of elementChildren(row).filter((c) => c.nodeName === 'TD' || c.nodeName === 'TH')) {
      fillSpannedFromAbove();
      const cols = span(cell, 'colspan');
      const down = span(cell, 'rowspan');
      if (cols > 1 || down > 1) spanned = true;
      const start = cells.length;
      cells.push(cell);
      for (let k = 1; k < cols; k++) cells.push(emptyCell(row, cell.nodeName));
      if (down > 1) for (let k = 0; k < cols; k++) pending[start + k] = down - 1;
      if (Math.max(width, cells.length) * (grid.length + 1) > MAX_GRID_CELLS) return;
    }
    for (let c = cells.length; c < pending.length; c++) {
      if ((pending[c] ?? 0) === 0) continue;
      while (cells.length < c) cells.push(emptyCell(row, 'td'));
      pending[c]! -= 1;
      cells.push(emptyCell(row, 'td'));
    }
    grid.push(cells);
    width = Math.max(width, cells.length);
    if (width * grid.length > MAX_GRID_CELLS) return;
  }
  if (!spanned && grid.every((cells) => cells.length === width)) return;
  grid.forEach((cells, r) => {
    const row = rows[r]!;
    const tag = cells.every((c) => c.nodeName === 'TH') ? 'TH' : 'TD';
    while (cells.length < width) cells.push(emptyCell(row, tag));
    for (const child of Array.from(row.childNodes)) child.remove();
    for (const cell of cells) {
      cell.removeAttribute('colspan');
      cell.removeAttribute('rowspan');
      row.appendChild(cell);
    }
  });
}

const emptyCell = (row: DomElement, tag: string): DomElement => createElement(row.ownerDocument, tag === 'TH' ? 'th' : 'td');

const HEADING = /^H([1-6])$/;

/** The level of the heading closest before `el` in document order (at its level or above), else 2. */
function headingLevelBefore(el: DomElement): number {
  for (let node: DomElement | null = el; node && node.nodeName !== 'X-TURNDOWN'; node = node.parentNode) {
    for (let prev = node.previousElementSibling; prev; prev = prev.previousElementSibling) {
      const m = HEADING.exec(prev.nodeName);
      if (m) return Number(m[1]);
    }
  }
  return 2;
}

const templateNodes = (template: DomElement | undefined): DomNode[] => Array.from(template?.content?.childNodes ?? template?.childNodes ?? []);

/**
 * A Wiki.js tabset (`<tabset>` with its tab labels and panels in `<template v-slot:tabs>` and
 * `<template v-slot:content>`, which its page component shows): each label becomes a heading one level
 * below the heading before the tabset, followed by its panel. Returns what replaced it.
 */
export function expandTabset(tabset: DomElement): DomElement {
  const templates = elementChildren(tabset).filter((e) => e.nodeName === 'TEMPLATE');
  const tabs = templates.find((t) => t.hasAttribute('v-slot:tabs') || t.hasAttribute('#tabs')) ?? templates[0];
  const content = templates.find((t) => t !== tabs);
  return tabsAsHeadings(tabset, templateNodes(tabs).filter(isElement), templateNodes(content).filter(isElement));
}

/** Replaces `tabs` by each label as a heading one level below the heading before it, followed by its panel. */
function tabsAsHeadings(tabs: DomElement, labels: DomElement[], panels: DomElement[]): DomElement {
  const level = Math.min(6, headingLevelBefore(tabs) + 1);
  const doc = tabs.ownerDocument;
  const out = createElement(doc, 'div');
  const count = Math.max(labels.length, panels.length);
  for (let k = 0; k < count; k++) {
    const label = labels[k];
    if (label) out.appendChild(createElement(doc, `h${level}`, Array.from(label.childNodes)));
    const panel = panels[k];
    if (panel) out.appendChild(panel);
  }
  tabs.replaceWith(out);
  return out;
}

/** The elements of `role` under `el`, not looking inside one found (a panel's own nested tabs stay in it). */
function withRole(el: DomElement, role: string): DomElement[] {
  const out: DomElement[] = [];
  for (const child of elementChildren(el)) {
    if (child.getAttribute('role') === role) out.push(child);
    else out.push(...withRole(child, role));
  }
  return out;
}

/**
 * ARIA tabs (Docusaurus's `tabs-container`: a `role="tablist"` of `role="tab"` labels, then the
 * `role="tabpanel"` panels, the inactive ones `hidden`) as Wiki.js tabsets: a heading per tab followed
 * by its panel. `undefined` when the labels and panels do not pair up.
 */
export function expandAriaTabs(container: DomElement): DomElement | undefined {
  const [tablist] = withRole(container, 'tablist');
  const labels = tablist ? withRole(tablist, 'tab') : [];
  const panels = withRole(container, 'tabpanel');
  if (!labels.length || labels.length !== panels.length) return undefined;
  for (const panel of panels) panel.removeAttribute('hidden');
  tablist!.remove();
  return tabsAsHeadings(container, labels, panels);
}

/** A figure's caption goes after what it captions, whatever its place in the markup; its headings (Hugo's figure title) are bold text. */
export function captionLast(figure: DomElement): void {
  const caption = elementChildren(figure).find((e) => e.nodeName === 'FIGCAPTION');
  if (!caption) return;
  if (caption.nextSibling) figure.appendChild(caption);
  for (const heading of elementChildren(caption)) {
    if (HEADING.test(heading.nodeName)) heading.replaceWith(createElement(figure.ownerDocument, 'strong', Array.from(heading.childNodes)));
  }
}

const PERMALINK_CLASSES = new Set(['toc-anchor', 'hash-link', 'header-anchor', 'anchor', 'anchorjs-link', 'heading-anchor', 'permalink', 'headerlink', 'anchor-link']);
const PERMALINK_TEXT = /^[\s\u200B-\u200D\uFEFF¶#§🔗]*$/u;

/** Drops a heading's permalink decorations (`¶`, `#`, an icon link to the heading itself). */
export function dropHeadingPermalinks(heading: DomElement): void {
  if (!heading.firstElementChild) return;
  for (const link of descendantsNamed(heading, 'A')) {
    const href = link.getAttribute('href') ?? '';
    if (!href.startsWith('#')) continue;
    if (classesOf(link).some((c) => PERMALINK_CLASSES.has(c)) || PERMALINK_TEXT.test(link.textContent ?? '')) link.remove();
  }
  const first = heading.firstChild;
  if (first?.nodeType === TEXT_NODE) first.textContent = (first.textContent ?? '').replace(/^\s+/, '');
}
