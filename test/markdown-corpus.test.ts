/**
 * The Markdown corpus (test/fixtures/markdown-corpus): every fragment of real CMS output converted with
 * the exported `toMarkdown`, parsed back with a CommonMark + GFM parser, and checked against the
 * expectations written for it; then any generated HTML, and hostile HTML, against what every Markdown
 * must be.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Nodes, Parents } from 'mdast';
import { toMarkdown, DEFAULT_MARKDOWN_LIMITS } from '../src/index.js';
import { CORPUS, CORPUS_DOCUMENT_URL, STUDIED_FAMILIES, checkFragment, parseMarkdown, type Family } from './fixtures/markdown-corpus/index.js';

const convert = (html: string) => toMarkdown(html, { url: CORPUS_DOCUMENT_URL });

describe('the Markdown corpus', () => {
  const all = Object.values(CORPUS).flat();

  it('holds at least 8 fragments of every studied family and 3 of every editor, each with expectations and a source, ids unique', () => {
    assert.ok(all.length >= 120, `${all.length} fragments`);
    for (const [family, fragments] of Object.entries(CORPUS)) assert.ok(fragments.length >= (STUDIED_FAMILIES.includes(family as Family) ? 8 : 3), family);
    assert.equal(new Set(all.map((f) => f.id)).size, all.length);
    for (const f of all) assert.ok(f.expect.length && f.source, f.id);
  });

  for (const [family, fragments] of Object.entries(CORPUS)) {
    it(`${family}: every fragment meets its expectations`, () => {
      const failed = fragments
        .map((f) => ({ f, r: checkFragment(f, convert(f.html).markdown) }))
        .filter(({ r }) => r.failures.length)
        .map(({ f, r }) => `${f.id}:\n  ${r.failures.join('\n  ')}\n--- markdown ---\n${convert(f.html).markdown}`);
      assert.deepEqual(failed, []);
    });
  }

  it('the checker catches what it is for: a link broken over lines, raw HTML, a missing expectation', () => {
    const bookmark = all.find((f) => f.id === 'ghost/bookmark-card')!;
    const broken = '[\n\nGhost Themes Documentation\n\n](https://ghost.org/docs/themes/)\n\n<div>x</div>';
    const result = checkFragment(bookmark, broken);
    assert.match(result.failures[0]!, /well-formed/);
    assert.ok(result.failures.some((f) => /"link"/.test(f)));
    assert.equal(checkFragment(bookmark, convert(bookmark.html).markdown).failures.length, 0);
  });
});

/** What any converted Markdown must be: it parses, every link's text is on one line, no raw HTML but `<br>` in a cell, safe URLs. */
function assertWellFormed(markdown: string): void {
  const visit = (node: Nodes, ancestors: Parents[]) => {
    if (node.type === 'link' && node.position) assert.equal(node.position.start.line, node.position.end.line, `link text on one line: ${markdown}`);
    if (node.type === 'link' || node.type === 'image') assert.match(node.url, /^(?:https?:|mailto:|tel:)/, node.url);
    if (node.type === 'html') assert.ok(/^<br\s*\/?>$/i.test(node.value) && ancestors.some((a) => a.type === 'tableCell'), `raw HTML ${node.value}`);
    if ('children' in node) for (const child of node.children as Nodes[]) visit(child, [...ancestors, node as Parents]);
  };
  visit(parseMarkdown(markdown), []);
}

/** Editors' markup the pre-pass reads (callouts, tasks, toggles, line-number tables, footnotes, chrome, tab panels), as wrappers and leaves. */
const EDITOR_WRAPPERS = [
  'div class="theme-admonition theme-admonition-tip"', 'div class="admonitionHeading_x"', 'div class="confluence-information-macro" data-macro-name="info"', 'figure class="callout"',
  'ul class="inline-task-list"', 'li class="checked"', 'div class="expand-container"', 'div class="expand-control"', 'div class="expand-content"', 'table class="lntable"',
  'div class="footnote"', 'span class="mw-editsection"', 'div role="tabpanel" hidden', 'div class="embedded-post-title"',
];
const EDITOR_LEAVES = [
  '<script src="https://gist.github.com/a/b.js"></script>', '<script src="javascript:alert(1)"></script>', '<div class="checkbox checkbox-on"></div>',
  '<div class="sqs-block" data-block-json="{&quot;url&quot;:&quot;https://v.example/1&quot;,&quot;html&quot;:&quot;&quot;}"></div>', '<div class="sqs-video-wrapper" data-html="&lt;iframe src=&quot;javascript:x&quot;&gt;"></div>',
  '<ri:url ri:value="https://r.example/x"></ri:url>', '<p><code>a<br>b</code></p>', '<a class="footnote-number" id="footnote-1" href="#a">1</a>', '<a class="footnote-anchor" href="#footnote-1">1</a>',
  '<span class="lnt">1\n</span>', '<iframe src="about:blank" data-src="https://l.example/v"></iframe>',
];

describe('any HTML', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '[', ']', '(', ')', '*', '_', '`', '|', '<', '&amp;', '#', '-', '!', '1.', '>', '~', 'é', '💡'), maxLength: 12 });
  const href = fc.constantFrom('https://x.example/a', '/rel', '#frag', 'javascript:alert(1)', 'mailto:a@x.example', 'page.html?a=(1)');
  const html: fc.Arbitrary<string> = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, text, tie('element')),
    element: fc.oneof(
      fc.tuple(fc.constantFrom('p', 'div', 'h2', 'li', 'ul', 'ol', 'blockquote', 'figure', 'figcaption', 'details', 'summary', 'dl', 'dt', 'dd', 'strong', 'em', 'span', 'pre', 'code', 'td', 'tr', 'table', 'abbr', 'sup', ...EDITOR_WRAPPERS), fc.array(tie('node'), { maxLength: 4 })).map(
        ([tag, children]) => `<${tag}>${(children as string[]).join('')}</${tag.split(' ')[0]}>`,
      ),
      fc.tuple(href, fc.array(tie('node'), { maxLength: 4 })).map(([h, children]) => `<a href="${h}">${(children as string[]).join('')}</a>`),
      fc.constantFrom('<br>', '<img src="/i.png" alt="i [x]">', '<video src="/v.mp4"></video>', '<iframe src="https://e.example/x" title="t"></iframe>', '<hr>', '<span hidden>h</span>', '<input type="checkbox" checked>', ...EDITOR_LEAVES),
    ),
  })).node as fc.Arbitrary<string>;

  it('converts to Markdown that parses, with every link text on one line and no raw HTML', () => {
    fc.assert(
      fc.property(fc.array(html, { maxLength: 6 }), (parts) => {
        const { markdown } = convert(parts.join(''));
        assertWellFormed(markdown);
      }),
      { numRuns: 400 },
    );
  });

  it('plain prose converts the same whether or not the DOM pre-pass runs (it is skipped when nothing calls for it)', () => {
    // Prose: its text has no `<` (which would open elements of made-up names such as `a<`).
    const proseText = text.map((t) => t.replaceAll('<', ''));
    const prose = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, proseText, tie('element')),
      element: fc.tuple(fc.constantFrom('p', 'h2', 'ul', 'ol', 'li', 'em', 'strong', 'blockquote', 'a href="https://x.example/p"'), fc.array(tie('node'), { maxLength: 3 })).map(
        ([tag, children]) => `<${tag}>${(children as string[]).join('')}</${tag.split(' ')[0]}>`,
      ),
    })).node as fc.Arbitrary<string>;
    fc.assert(
      fc.property(fc.array(prose, { maxLength: 5 }), (parts) => {
        const html = parts.join('');
        // An empty span with a class changes nothing in the Markdown but makes the pre-pass run.
        assert.equal(convert(html).markdown, convert(`${html}<span class="x"></span>`).markdown);
      }),
      { numRuns: 300 },
    );
  });
});

describe('bad input stays bounded', () => {
  const bounded = (html: string, label: string) => {
    const started = performance.now();
    const result = convert(html);
    const ms = performance.now() - started;
    assert.ok(Buffer.byteLength(result.markdown) <= DEFAULT_MARKDOWN_LIMITS.maxMarkdownBytes, `${label}: ${Buffer.byteLength(result.markdown)} bytes`);
    assert.ok(ms < 15_000, `${label}: ${ms} ms`);
    assertWellFormed(result.markdown);
    return result;
  };

  it('10,000 levels of nesting, of links and figures too', () => {
    for (const tag of ['div', 'figure', 'blockquote', 'table><tr><td']) {
      const result = bounded(`${`<${tag}>`.repeat(10_000)}deep`, tag);
      assert.equal(result.complete, false, tag);
    }
    // An `<a>` or `<li>` closes the one before it: these are 10,000 siblings, within the element bound.
    for (const tag of ['a href="/x"', 'li']) bounded(`${`<${tag}>`.repeat(10_000)}deep`, tag);
  });

  it('a 5 MB body is cut with a marker', () => {
    const result = bounded(`<figure><video src="/v.mp4"></video><figcaption>c</figcaption></figure>${'<p>Lorem <a href="/l">ipsum</a> dolor.</p>'.repeat(130_000)}`, '5 MB');
    assert.equal(result.complete, false);
    assert.match(result.markdown, /\[Content truncated: [^\]]+\]$/);
    assert.match(result.markdown, /^\[Video: v\.mp4\]\(https:\/\/site\.example\/v\.mp4\)/);
  });

  it('unclosed tags, entity bombs, svg and math, invalid UTF-16, control characters', () => {
    bounded('<p><a href="/a"><div><table><tr><td><pre><code>x<figure><figcaption>y<details><summary>z', 'unclosed');
    const bomb = bounded(`<p>${'&amp;&#x1F600;&lt;&#0;&#xD800;&#1114112;&nbsp;'.repeat(40_000)}</p>`, 'entities');
    assert.doesNotMatch(bomb.markdown, /(^|[^\\])</m);
    bounded(`<svg><foreignObject><p>${'<svg><g>'.repeat(3000)}x</p></foreignObject></svg><math>${'<mrow>'.repeat(3000)}<mi>x</mi></math>`, 'svg/math');
    const surrogates = bounded('<p>\uD800 lone \uDC00 surrogates <a href="/\uD83D">l\uDE00</a> <img alt="\uD800" src="/i.png"></p>\u0000\u0007\u001b', 'utf-16');
    assert.match(surrogates.markdown, /lone/);
    bounded(`<table>${'<tr>'.repeat(200)}${'<td colspan="1000" rowspan="1000">x</td>'.repeat(200)}</table>`, 'spans');
    bounded(`${'<abbr title="t">a</abbr>'.repeat(5000)}${'<sup><a href="#fn1">1</a></sup>'.repeat(3000)}<ol class="footnotes"><li id="fn1">n</li></ol>`, 'abbr/footnotes');
  });

  it('needs an absolute http(s) page URL, and says so', () => {
    assert.throws(() => toMarkdown('<p>x</p>', { url: '/relative' }), /toMarkdown option "url" must be an absolute http\(s\) URL/);
    assert.throws(() => toMarkdown('<p>x</p>', { url: 'javascript:alert(1)' }), /"url"/);
    assert.throws(() => toMarkdown('<p>x</p>', { url: 'https://x.example', limits: { maxDepth: 1 } }), /markdown limit "maxDepth"/);
    assert.deepEqual(toMarkdown('', { url: 'https://x.example/' }), { markdown: '', complete: true });
  });
});
