/**
 * Code in the DOM pre-pass: a code block's language from wherever editors and highlighters put it,
 * line numbers taken out (gutter tables, number spans), and a paragraph that is only code over several
 * lines made a code block.
 */
import { createElement, descendantsNamed, elementChildren, isElement, squashText, TEXT_NODE, type DomElement } from './html-dom.js';

const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang)-([\w+#.-]{1,30})(?:\s|$)/;
/** Highlighters' wrappers: GitHub's `highlight-source-go`, MediaWiki's `mw-highlight-lang-python`. */
const WRAPPER_CLASS = /(?:^|\s)(?:highlight-(?:source|text)|mw-highlight-lang)-([\w+#.-]{1,30})(?:\s|$)/;
/** SyntaxHighlighter's parameters (Confluence's code macro): `brush: sql; gutter: false`. */
const BRUSH = /(?:^|[\s;])brush:\s*([\w+#.-]{1,30})/;
const LANGUAGE_ATTRIBUTES = ['data-language', 'data-lang', 'data-code-block-lang', 'data-code-language'];
/** Names that mean "no language" (Notion's `language-Plain Text`, highlight.js's `nohighlight`). */
const NO_LANGUAGE = new Set(['plain', 'text', 'plaintext', 'txt', 'none', 'nohighlight', 'no-highlight', 'auto']);

function declaredLanguage(el: DomElement): string | undefined {
  if (!el.hasAttributes()) return undefined;
  const cls = el.getAttribute('class') ?? '';
  const found =
    LANGUAGE_CLASS.exec(cls)?.[1] ??
    LANGUAGE_ATTRIBUTES.map((name) => el.getAttribute(name)).find((v) => v && /^[\w+#.-]{1,30}$/.test(v)) ??
    BRUSH.exec(cls)?.[1] ??
    BRUSH.exec(el.getAttribute('data-syntaxhighlighter-params') ?? '')?.[1];
  return found ?? undefined;
}

/**
 * A code block's language: from its `<code>`, the `<pre>`, or the highlighter's wrapper around it
 * (classes `language-*`/`lang-*`, `data-language` and its variants, `brush:`, `highlight-source-*`,
 * `mw-highlight-lang-*`), lower-cased; `undefined` for none or a name meaning plain text.
 *
 * ```ts
 * codeLanguage(parse('<div class="mw-highlight mw-highlight-lang-python"><pre>x</pre></div>').pre) // 'python'
 * ```
 */
export function codeLanguage(pre: DomElement): string | undefined {
  const code = pre.firstElementChild?.nodeName === 'CODE' ? pre.firstElementChild : undefined;
  const wrapper = pre.parentNode;
  const found =
    (code && declaredLanguage(code)) ??
    declaredLanguage(pre) ??
    (wrapper && (WRAPPER_CLASS.exec(wrapper.getAttribute('class') ?? '')?.[1] ?? declaredLanguage(wrapper)));
  const language = found?.toLowerCase();
  return language && !NO_LANGUAGE.has(language) ? language : undefined;
}

/** Line-number elements inside a code block: Chroma (`ln`, `lnt`), Pygments (`lineno`, `linenos`), Prism and Docusaurus gutters. */
const LINE_NUMBER = /(?:^|\s)(?:ln|lnt|lineno|linenos|line-number|line-numbers-rows|codeLineNumber(?:_\w+)?)(?:\s|$)/;
/** Text a reader cannot select is not copied with the code (Chroma's inline-styled line numbers). */
const UNSELECTABLE = /(?:^|;)\s*user-select\s*:\s*none/i;

/** Asked of every element of a highlighted block (hundreds of token spans): one test of the raw attributes, no class list. */
const isLineNumber = (el: DomElement): boolean => LINE_NUMBER.test(el.getAttribute('class') ?? '') || UNSELECTABLE.test(el.getAttribute('style') ?? '');

/**
 * A `<pre>` made ready for the code rule: line numbers (and anything else not selectable) out, `<br>` line breaks as newlines, the
 * language noted in `data-agent-language`.
 */
export function preparePre(pre: DomElement): void {
  for (const el of descendantsOf(pre)) {
    if (el.nodeName === 'BR') el.replaceWith(pre.ownerDocument.createTextNode('\n'));
    else if (el.hasAttributes() && isLineNumber(el)) el.remove();
  }
  const language = codeLanguage(pre);
  if (language) pre.setAttribute('data-agent-language', language);
}

function descendantsOf(el: DomElement): DomElement[] {
  const out: DomElement[] = [];
  const visit = (parent: DomElement) => {
    for (let child = parent.firstChild; child; child = child.nextSibling) {
      if (!isElement(child)) continue;
      out.push(child);
      if (child.firstChild) visit(child);
    }
  };
  visit(el);
  return out;
}

/**
 * A line-numbered code table (Chroma's `lntable`, Pygments' `highlighttable`, Rouge's `rouge-table`):
 * one row, a gutter cell of numbers and a cell holding the code. Returns the code's `<pre>`, which
 * replaced the table, or `undefined` when `table` is not one.
 */
export function unwrapLineNumberTable(table: DomElement): DomElement | undefined {
  const rows = descendantsNamed(table, 'TR');
  if (rows.length !== 1) return undefined;
  const cells = elementChildren(rows[0]!).filter((c) => c.nodeName === 'TD');
  if (cells.length !== 2 || !/^[\d\s]+$/.test(cells[0]!.textContent ?? '')) return undefined;
  const pre = descendantsNamed(cells[1]!, 'PRE')[0];
  if (!pre) return undefined;
  table.replaceWith(pre);
  return pre;
}

/**
 * A paragraph holding nothing but one `<code>` with line breaks (Contentful's code mark over several
 * lines) is a code block: returns the `<pre>` that replaced it, else `undefined`.
 */
export function paragraphOfCode(p: DomElement): DomElement | undefined {
  let code: DomElement | undefined;
  for (let child = p.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === TEXT_NODE && !squashText(child.textContent)) continue;
    if (code || !isElement(child) || child.nodeName !== 'CODE') return undefined;
    code = child;
  }
  if (!code || !descendantsNamed(code, 'BR').length) return undefined;
  const pre = createElement(p.ownerDocument, 'pre', [code]);
  p.replaceWith(pre);
  return pre;
}
