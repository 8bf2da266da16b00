/**
 * Footnotes in the DOM pre-pass: the footnote lists of the common renderers (markdown-it-footnote and
 * Wiki.js, WordPress's footnotes block, Pandoc, Hugo, Jekyll) and the references to their items become
 * `<x-footnote>` and `<x-footnote-ref>` elements, which the rules write as GFM footnotes
 * (`[^1]` and `[^1]: text`); back links (`↩︎`) are dropped.
 */
import { classesOf, createElement, descendantsNamed, elementChildren, squashText, type DomElement } from './html-dom.js';

const CONTAINER_CLASSES = new Set(['footnotes', 'wp-block-footnotes', 'footnotes-list', 'footnote-list']);

/** Whether `el` is a footnote list or the section holding one. */
export const isFootnoteContainer = (el: DomElement): boolean =>
  el.getAttribute('role') === 'doc-endnotes' || classesOf(el).some((c) => CONTAINER_CLASSES.has(c));

const BACKLINK = /^[\s↩↑^\u21A9\uFE0E\uFE0F]+$/u;

const isBacklink = (a: DomElement) =>
  a.getAttribute('role') === 'doc-backlink' || classesOf(a).some((c) => c.includes('backref') || c.includes('backlink')) || BACKLINK.test(a.textContent ?? '') || /jump to footnote reference/i.test(a.getAttribute('aria-label') ?? '');

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
      for (const a of descendantsNamed(item, 'A')) if (isBacklink(a)) a.remove();
      const n = this.#numbers.size + 1;
      this.#numbers.set(item.getAttribute('id')!, n);
      notes.appendChild(createElement(doc, 'x-footnote', Array.from(item.childNodes), { 'data-n': String(n) }));
    }
    container.replaceWith(notes);
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
