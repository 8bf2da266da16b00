/**
 * Footnotes in the DOM pre-pass: the footnote lists of the common renderers (markdown-it-footnote and
 * Wiki.js, WordPress's footnotes block, Pandoc, Hugo, Jekyll, MediaWiki's Cite), Substack's footnotes
 * (one `div.footnote` each) and the references to their items become
 * `<x-footnote>` and `<x-footnote-ref>` elements, which the rules write as GFM footnotes
 * (`[^1]` and `[^1]: text`); back links (`↩︎`) are dropped.
 */
import { classesOf, createElement, descendantsNamed, elementChildren, squashText, TEXT_NODE, type DomElement, type DomNode } from './html-dom.js';

const CONTAINER_CLASSES = new Set(['footnotes', 'wp-block-footnotes', 'footnotes-list', 'footnote-list', 'mw-references-wrap', 'references']);

/** Whether `el` is a footnote list or the section holding one. */
export const isFootnoteContainer = (el: DomElement): boolean =>
  el.getAttribute('role') === 'doc-endnotes' || classesOf(el).some((c) => CONTAINER_CLASSES.has(c));

const BACKLINK = /^[\s↩↑^\u21A9\uFE0E\uFE0F]+$/u;

/** A back link to the reference (`↩︎`, `^`, `role="doc-backlink"`), or MediaWiki's span of them (`mw-cite-backlink`). */
const isBacklink = (a: DomElement) =>
  a.getAttribute('role') === 'doc-backlink' || classesOf(a).some((c) => c.includes('backref') || c.includes('backlink')) || BACKLINK.test(a.textContent ?? '') || /jump to footnote reference/i.test(a.getAttribute('aria-label') ?? '');

/** A footnote's element, without the white space at its edges (turndown would write it around the footnote, on a line of its own). */
function footnote(doc: DomElement['ownerDocument'], nodes: DomNode[], n: number): DomElement {
  const note = createElement(doc, 'x-footnote', nodes, { 'data-n': String(n) });
  const [first, last] = [note.firstChild, note.lastChild];
  if (first?.nodeType === TEXT_NODE) first.textContent = (first.textContent ?? '').trimStart();
  if (last?.nodeType === TEXT_NODE) last.textContent = (last.textContent ?? '').trimEnd();
  return note;
}

/** Footnote numbers by the id of their item, in the order the definitions were found. */
export class Footnotes {
  readonly #numbers = new Map<string, number>();
  get any(): boolean {
    return this.#numbers.size > 0;
  }

  /** Replaces a footnote container by `<x-footnotes>` holding one `<x-footnote>` per item; false when it has none. */
  define(container: DomElement): boolean {
    const items = descendantsNamed(container, 'LI').filter((li) => li.getAttribute('id'));
    if (!items.length) return false;
    const doc = container.ownerDocument;
    const notes = createElement(doc, 'x-footnotes');
    for (const item of items) {
      for (const a of [...descendantsNamed(item, 'A'), ...descendantsNamed(item, 'SPAN')]) if (isBacklink(a)) a.remove();
      const n = this.#numbers.size + 1;
      this.#numbers.set(item.getAttribute('id')!, n);
      notes.appendChild(footnote(doc, Array.from(item.childNodes), n));
    }
    container.replaceWith(notes);
    return true;
  }

  /**
   * A footnote of its own (Substack's `div.footnote`: `a.footnote-number` with the id, then
   * `div.footnote-content`) replaced by `<x-footnotes>` holding it; false when `el` is not one.
   */
  defineSingle(el: DomElement): boolean {
    const [number, content] = elementChildren(el);
    const id = number?.nodeName === 'A' && classesOf(number).includes('footnote-number') ? number.getAttribute('id') : null;
    if (!id || !content) return false;
    const n = this.#numbers.size + 1;
    this.#numbers.set(id, n);
    const doc = el.ownerDocument;
    el.replaceWith(createElement(doc, 'x-footnotes', [footnote(doc, Array.from(content.childNodes), n)]));
    return true;
  }

  /** Replaces every link to a defined footnote (with the `<sup>` around it) by `<x-footnote-ref>`. */
  reference(root: DomElement): void {
    for (const a of descendantsNamed(root, 'A')) {
      const href = a.getAttribute('href') ?? '';
      const n = href.startsWith('#') ? this.#numbers.get(decodeURIComponent(href.slice(1))) : undefined;
      if (n === undefined || inFootnote(a)) continue;
      const sup = a.parentNode?.nodeName === 'SUP' && squashText(a.parentNode.textContent) === squashText(a.textContent) ? a.parentNode : a;
      sup.replaceWith(createElement(a.ownerDocument, 'x-footnote-ref', [String(n)], { 'data-n': String(n) }));
    }
  }
}

const inFootnote = (el: DomElement): boolean => {
  for (let p = el.parentNode; p; p = p.parentNode) if (p.nodeName === 'X-FOOTNOTE') return true;
  return false;
};

/** The leading `<hr>` of a footnote section (markdown-it's `hr.footnotes-sep`) goes with it. */
export function dropFootnoteSeparator(container: DomElement): void {
  const first = elementChildren(container)[0];
  if (first?.nodeName === 'HR') first.remove();
  const before = container.previousElementSibling;
  if (before?.nodeName === 'HR' && classesOf(before).includes('footnotes-sep')) before.remove();
}
