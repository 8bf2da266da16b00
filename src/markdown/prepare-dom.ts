/**
 * The DOM pre-pass that runs before turndown: one walk over the parsed HTML that takes out what a
 * reader never sees (hidden, decorative, scripted, icon-font ligatures, player chrome), puts back what
 * a CMS shows that the markup hides (lazy images' real sources, Wiki.js tab panels held in
 * `<template>`), and reshapes what the Markdown rules cannot write well as it is (media as links,
 * callouts, footnotes, spanned tables, captions, `<abbr>` expansions, `<pre>` line breaks).
 */
import { classesOf, descendantsNamed, elementChildren, isElement, NO_CLASSES, squashText, type DomElement } from './html-dom.js';
import { Footnotes, dropFootnoteSeparator, isFootnoteContainer } from './prepare-footnotes.js';
import { PLAYER_CHROME, prepareEmbedUrl, prepareIframe, prepareImage, prepareMediaElement, prepareNoscript, storedEmbedUrl } from './prepare-media.js';
import { prepareBlockJson, prepareDataHtml, prepareResourceUrl, prepareScript } from './prepare-embeds.js';
import { paragraphOfCode, preparePre, unwrapLineNumberTable } from './prepare-code.js';
import { prepareCallout, prepareToggle } from './prepare-callouts.js';
import { markInlineTasks, markTask, replaceTaskCheckbox } from './prepare-tasks.js';
import { captionLast, dropHeadingPermalinks, expandAriaTabs, expandTabset, normalizeTable } from './prepare-structure.js';

/** Elements whose content never reaches the Markdown (a `<template>` only through a tabset). */
const REMOVED = new Set([
  'SCRIPT', 'STYLE', 'TEMPLATE', 'FRAME', 'FRAMESET', 'OBJECT', 'EMBED', 'APPLET', 'FORM', 'BUTTON', 'SELECT', 'TEXTAREA',
  'CANVAS', 'HEAD', 'LINK', 'META', 'BASE', 'TITLE', 'DIALOG', 'MAP',
]);

/** Editors' chrome: section edit links, skip links, code macros' expand buttons, conditionally hidden CMS items. */
const EDITOR_CHROME = new Set(['mw-editsection', 'mw-jump-link', 'collapse-source', 'w-condition-invisible']);

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b/i;
const ICON_CLASS = /^(?:fa[srlbd]?|fa-[\w-]+|dashicons[\w-]*|glyphicon[\w-]*|mdi[\w-]*|bi-[\w-]+|icon[\w-]*|material-[\w-]+)$/;
const LIGATURE_FONT = /^material-(?:icons|symbols)/;

/**
 * What the reader never sees: hidden (but a tab panel, shown when its tab is chosen), `aria-hidden`
 * decorations, `display: none`, icon-font glyphs, player and editor chrome.
 */
function invisible(el: DomElement, classes: readonly string[]): boolean {
  if ((el.hasAttribute('hidden') && el.getAttribute('role') !== 'tabpanel') || el.getAttribute('aria-hidden') === 'true') return true;
  const style = el.getAttribute('style');
  // MediaWiki's MathML for screen readers is hidden from sight, not from readers: it is the formula's text.
  if (style && HIDDEN_STYLE.test(style)) return !classes.includes('mwe-math-mathml-a11y');
  if (!classes.length) return false;
  if (classes.some((c) => PLAYER_CHROME.has(c) || EDITOR_CHROME.has(c) || LIGATURE_FONT.test(c))) return true;
  // An icon font's element holds nothing or one ligature word (`arrow_forward`).
  return (el.nodeName === 'I' || el.nodeName === 'SPAN') && classes.some((c) => ICON_CLASS.test(c)) && /^[a-z0-9_]{0,40}$/.test(squashText(el.textContent));
}

/** What one walk remembers: the abbreviations already expanded, the footnotes defined. */
interface PrepareState {
  readonly abbreviations: Set<string>;
  readonly footnotes: Footnotes;
}

/**
 * Markup the pre-pass acts on: an element it removes or reshapes, an attribute it reads (hidden,
 * styles, classes, roles, oEmbed URLs), a heading with an element inside (a permalink). Plain prose
 * (paragraphs, links, emphasis, lists, headings) has none, and skips the walk: a tenth of the
 * conversion of an ordinary article. A false alarm only costs the walk.
 */
const PREPARED_MARKUP =
  /<(?:noscript|img|video|audio|iframe|oembed|tabset|math|svg|abbr|input|pre|table|figure|script|style|template|frame|object|embed|applet|form|button|select|textarea|canvas|head|link|meta|base|title|dialog|map|ri:url)\b|\s(?:hidden|aria-hidden|style|class|role|data-oembed-url)\b|<h[1-6]\b[^>]*>[^<]*<[a-z!]|<p>\s*<code\b/i;

/** Whether `html` holds anything {@link prepareDom} would change. */
export const needsPreparation = (html: string): boolean => PREPARED_MARKUP.test(html);

/**
 * Prepares the parsed HTML under `root` for the Markdown rules, in place.
 *
 * ```ts
 * const root = parseHtmlFragment('<p hidden>x</p><video src="/v.mp4"></video>')
 * prepareDom(root) // root.innerHTML === '<p><a href="https://example.org/v.mp4">Video: v.mp4</a></p>'
 * ```
 */
export function prepareDom(root: DomElement): void {
  const state: PrepareState = { abbreviations: new Set(), footnotes: new Footnotes() };
  visitChildren(root, state);
  if (state.footnotes.any) state.footnotes.reference(root);
}

function visitChildren(el: DomElement, state: PrepareState): void {
  // Sibling pointers, not `childNodes` (domino turns a parent's children into an array once it is read,
  // which makes every later insertion and removal under it slower). A child's preparation may replace
  // or remove that child, never its later siblings.
  for (let child = el.firstChild; child; ) {
    const next = child.nextSibling;
    if (isElement(child)) visitElement(child, state);
    child = next;
  }
}

/** Prepares one element, then (unless it was replaced by something already prepared) its children. */
function visitElement(el: DomElement, state: PrepareState): void {
  const name = el.nodeName;
  if (name === 'SCRIPT' && el.hasAttribute('src')) return prepareScript(el);
  if (REMOVED.has(name)) return el.remove();
  // Most elements of editorial HTML have no attribute at all: one cheap test spares every attribute read.
  const attributed = el.hasAttributes();
  const classes = attributed ? classesOf(el) : NO_CLASSES;
  if (attributed && invisible(el, classes)) return el.remove();
  const replaced = reshape(el, name, attributed, classes, state);
  if (replaced === undefined) return;
  visitChildren(replaced, state);
  finish(replaced, replaced.nodeName);
}

/**
 * Reshapes an element before its children are visited. `undefined` when it is gone or done with,
 * else the element whose children are to be visited (itself or what replaced it).
 */
function reshape(el: DomElement, name: string, attributed: boolean, classes: readonly string[], state: PrepareState): DomElement | undefined {
  switch (name) {
    case 'NOSCRIPT':
      prepareNoscript(el);
      return undefined;
    case 'IMG':
      prepareImage(el);
      return undefined;
    case 'VIDEO':
    case 'AUDIO':
      prepareMediaElement(el);
      return undefined;
    case 'IFRAME':
      prepareIframe(el);
      return undefined;
    case 'OEMBED':
      if (!prepareEmbedUrl(el, el.getAttribute('url'))) el.remove();
      return undefined;
    case 'TABSET':
      return expandTabset(el);
    case 'math':
      replaceMath(el);
      return undefined;
    case 'svg':
      replaceSvg(el);
      return undefined;
    case 'ABBR':
      expandAbbreviation(el, state.abbreviations);
      return el;
    case 'INPUT':
      if (el.getAttribute('type') === 'checkbox' && insideListItem(el)) markTask(el, el.hasAttribute('checked'));
      else el.remove();
      return undefined;
    case 'RI:URL':
      prepareResourceUrl(el);
      return undefined;
    case 'TABLE': {
      const code = attributed ? unwrapLineNumberTable(el) : undefined;
      if (code) return code;
      break;
    }
    case 'P': {
      const code = paragraphOfCode(el);
      if (code) return code;
      break;
    }
  }
  if (!attributed) return el;
  if (el.hasAttribute('data-oembed-url') && prepareEmbedUrl(el, el.getAttribute('data-oembed-url'))) return undefined;
  if (!classes.length) return el;
  if (classes.includes('wp-block-embed__wrapper')) {
    const url = storedEmbedUrl(el);
    if (url && prepareEmbedUrl(el, url)) return undefined;
  }
  // Squarespace's blocks keep their embed's URL in attributes (read only there: a read costs).
  if (classes.includes('sqs-block') && prepareBlockJson(el, el.getAttribute('data-block-json') ?? '')) return undefined;
  if (classes.includes('sqs-video-wrapper') && prepareDataHtml(el, el.getAttribute('data-html') ?? '')) return undefined;
  if (isFootnoteContainer(el)) {
    dropFootnoteSeparator(el);
    return state.footnotes.define(el) ? undefined : el;
  }
  if (classes.includes('footnote') && state.footnotes.defineSingle(el)) return undefined;
  if (classes.includes('checkbox') && insideListItem(el) && replaceTaskCheckbox(el, classes)) return undefined;
  if (classes.includes('inline-task-list')) markInlineTasks(el);
  if (classes.includes('expand-container')) return prepareToggle(el) ?? el;
  if (classes.includes('tabs-container')) return expandAriaTabs(el) ?? el;
  const callout = prepareCallout(el, classes);
  if (callout) return callout;
  if (classes.includes('kg-bookmark-metadata')) separateInlineItems(el);
  return el;
}

/** Work on an element once its children are prepared. */
function finish(el: DomElement, name: string): void {
  switch (name) {
    case 'PRE':
      return preparePre(el);
    case 'TABLE':
      return normalizeTable(el);
    case 'FIGURE':
      return captionLast(el);
    case 'H1':
    case 'H2':
    case 'H3':
    case 'H4':
    case 'H5':
    case 'H6':
      return dropHeadingPermalinks(el);
    case 'DIV':
      // The code rule writes the language a highlighter's wrapper names (`preparePre`), not the GFM plugin's rule for the wrapper.
      if (el.hasAttributes() && /(?:^|\s)highlight-(?:source|text)-/.test(el.getAttribute('class') ?? '')) el.removeAttribute('class');
  }
}

const insideListItem = (el: DomElement): boolean => {
  for (let p = el.parentNode; p && p.nodeName !== 'X-TURNDOWN'; p = p.parentNode) if (p.nodeName === 'LI') return true;
  return false;
};

/** `<abbr title>`: the first use of each abbreviation reads `SQL (Structured Query Language)`. */
function expandAbbreviation(abbr: DomElement, seen: Set<string>): void {
  const title = squashText(abbr.getAttribute('title'));
  const text = squashText(abbr.textContent);
  const key = `${text}\u0000${title}`;
  if (!title || title === text || seen.has(key)) return;
  seen.add(key);
  abbr.appendChild(abbr.ownerDocument.createTextNode(` (${title})`));
}

/** MathML: its TeX source (a KaTeX or MathJax annotation) as code, else its text. */
function replaceMath(math: DomElement): void {
  const tex = descendantsNamed(math, 'annotation').find((a) => /tex/i.test(a.getAttribute('encoding') ?? ''));
  const doc = math.ownerDocument;
  if (tex) {
    const code = doc.createElement('code');
    code.appendChild(doc.createTextNode(squashText(tex.textContent)));
    math.replaceWith(code);
  } else math.replaceWith(doc.createTextNode(squashText(math.textContent)));
}

/** An SVG drawing: its accessible name when it is an image (`role="img"` with a label or title), else nothing. */
function replaceSvg(svg: DomElement): void {
  const titleElement = elementChildren(svg).find((c) => c.nodeName.toLowerCase() === 'title');
  const label = svg.getAttribute('role') === 'img' ? squashText(svg.getAttribute('aria-label') ?? titleElement?.textContent) : '';
  if (label) svg.replaceWith(svg.ownerDocument.createTextNode(label));
  else svg.remove();
}

/** Items of a metadata line written without separators (a Ghost bookmark's publisher and author) get one. */
function separateInlineItems(el: DomElement): void {
  const items = elementChildren(el).filter((c) => c.nodeName !== 'IMG' && squashText(c.textContent));
  for (const item of items.slice(1)) el.insertBefore(el.ownerDocument.createTextNode(' · '), item);
}

