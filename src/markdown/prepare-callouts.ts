/**
 * Callouts and toggles in the DOM pre-pass: every editor's callout, admonition or panel becomes one
 * block quote that opens with its kind and title in bold (`**Warning: Low tide**`) or its emoji;
 * a collapsible section that is not a `<details>` (Confluence's expand macro) becomes one, which the
 * rules write as its summary in bold before its content.
 */
import { classesOf, createElement, elementChildren, hasClass, squashText, type DomElement, type DomNode } from './html-dom.js';

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

/** A block quote replacing `el`: a first paragraph of `lead` (bold) or `emoji`, then `body`. */
function quoteOf(el: DomElement, lead: string, emoji: string, body: DomNode[]): DomElement {
  const doc = el.ownerDocument;
  const first = lead ? [createElement(doc, 'p', [createElement(doc, 'strong', [lead])])] : [];
  const content = emoji ? [createElement(doc, 'p', [`${emoji} `, ...body])] : body;
  const quote = createElement(doc, 'blockquote', [...first, ...content]);
  el.replaceWith(quote);
  return quote;
}

/** `Kind: Title`, or the one of them there is (the title alone when it only repeats the kind). */
function label(kind: string, title: string): string {
  if (!kind) return title;
  return title && title.toLowerCase() !== kind.toLowerCase() ? `${capitalized(kind)}: ${title}` : capitalized(kind);
}

const childWithClass = (el: DomElement, test: RegExp) => elementChildren(el).find((c) => classesOf(c).some((k) => test.test(k)));

/** A Ghost callout card: its emoji, then its text. */
function ghostCallout(card: DomElement): DomElement {
  const emoji = squashText(childWithClass(card, /^kg-callout-emoji$/)?.textContent);
  return quoteOf(card, '', emoji, Array.from(childWithClass(card, /^kg-callout-text$/)?.childNodes ?? []));
}

/** A Notion callout (`figure.callout`): the icon's emoji, then the text beside it. */
function notionCallout(figure: DomElement): DomElement {
  const [icon, ...rest] = elementChildren(figure);
  const emoji = squashText(icon?.textContent);
  return quoteOf(figure, '', emoji, rest.flatMap((r) => Array.from(r.childNodes)));
}

const ADMONITION_KIND = /^(?:theme-)?admonition-(note|tip|info|warning|danger|caution|important|success|secondary)$/;

/** A Docusaurus admonition (`theme-admonition-<kind>`, a heading with its icon, the content). */
function admonition(el: DomElement, classes: readonly string[]): DomElement {
  const kind = classes.map((c) => ADMONITION_KIND.exec(c)?.[1]).find(Boolean) ?? '';
  const heading = childWithClass(el, /^admonition-?heading/i);
  const content = childWithClass(el, /^admonition-?content/i);
  const body = content ? Array.from(content.childNodes) : elementChildren(el).filter((c) => c !== heading);
  return quoteOf(el, label(kind, squashText(heading?.textContent)), '', body);
}

const CONFLUENCE_KINDS: Record<string, string> = { information: 'info' };

/** A Confluence information, note, tip or warning panel (its kind from the macro's name, its optional title). */
function confluencePanel(el: DomElement, classes: readonly string[]): DomElement {
  const fromClass = classes.map((c) => /^confluence-information-macro-(\w+)$/.exec(c)?.[1]).find((k) => k && k !== 'body' && k !== 'icon');
  const kind = el.getAttribute('data-macro-name') ?? (fromClass && (CONFLUENCE_KINDS[fromClass] ?? fromClass)) ?? '';
  const title = elementChildren(el).find((c) => c.nodeName === 'P' && hasClass(c, 'title'));
  const body = childWithClass(el, /^confluence-information-macro-body$/);
  return quoteOf(el, label(kind, squashText(title?.textContent)), '', Array.from(body?.childNodes ?? []));
}

/** Classes of other editors' and themes' callouts, written as block quotes of their content. */
const CALLOUT_CLASSES = new Set(['admonition', 'callout', 'alert', 'notice']);

/**
 * Replaces a callout by its block quote and returns it (its children still to be prepared), or
 * `undefined` when `el` is no callout.
 */
export function prepareCallout(el: DomElement, classes: readonly string[]): DomElement | undefined {
  if (classes.includes('kg-callout-card')) return ghostCallout(el);
  if (classes.includes('theme-admonition') || classes.some((c) => ADMONITION_KIND.test(c))) return admonition(el, classes);
  if (classes.includes('confluence-information-macro')) return confluencePanel(el, classes);
  if (el.nodeName === 'FIGURE' && classes.includes('callout')) return notionCallout(el);
  if (el.nodeName === 'DIV' && classes.some((c) => CALLOUT_CLASSES.has(c))) return quoteOf(el, '', '', Array.from(el.childNodes));
  return undefined;
}

/** Confluence's expand macro (`expand-container`: `expand-control-text`, `expand-content`) as a `<details>`; `undefined` when it is not one. */
export function prepareToggle(el: DomElement): DomElement | undefined {
  const control = childWithClass(el, /^expand-control$/);
  const content = childWithClass(el, /^expand-content$/);
  if (!control || !content) return undefined;
  const doc = el.ownerDocument;
  const summaryText = squashText(control.textContent);
  const details = createElement(doc, 'details', [createElement(doc, 'summary', [summaryText]), ...Array.from(content.childNodes)]);
  el.replaceWith(details);
  return details;
}
