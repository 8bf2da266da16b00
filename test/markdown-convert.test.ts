import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import TurndownService from 'turndown';
import { boundedHtmlToMarkdown, escapeMarkdownText, htmlToMarkdown } from '../src/markdown/convert.js';
import { DEFAULT_MARKDOWN_LIMITS, resolveMarkdownLimits } from '../src/markdown/limits.js';
import { boundMarkup } from '../src/markdown/bound-markup.js';
import { truncateHtml } from '../src/markdown/truncate-html.js';
import { truncateMarkdown } from '../src/markdown/truncate-markdown.js';
import { utf8Prefix } from '../src/markdown/utf8.js';
import { markerHtml } from '../src/markdown/markers.js';

const BASE = 'https://site.example';
const convert = (html: string, documentUrl?: string) => htmlToMarkdown(html, { baseUrl: BASE, ...(documentUrl ? { documentUrl } : {}) });

describe('escapeMarkdownText', () => {
  // turndown's own escaping (thirteen replacements in order), then `<`: what the single pass must equal.
  const turndownEscape = (text: string) => new TurndownService().escape(text).replace(/</g, '\\<');

  it('escapes exactly as turndown does, and < besides, for any text', () => {
    const special = fc.constantFrom('\\', '*', '-', '+', ' ', '=', '#', '`', '~', '[', ']', '>', '_', '.', '1', '42', '<', 'a', '\n', '\t');
    const text = fc.oneof(fc.string(), fc.array(special, { maxLength: 14 }).map((parts) => parts.join('')));
    fc.assert(fc.property(text, (t) => escapeMarkdownText(t) === turndownEscape(t)), { numRuns: 5000 });
  });

  it('escapes each start-of-text marker and the characters that mean something anywhere', () => {
    for (const t of ['- a', '+ a', '+a', '== a', '### a', '####### a', '~~~ a', '> a', '12. a', '12.a', '*a*', '_a_', '`a`', '[a]', 'a\\b', '<b>', '', 'plain'])
      assert.equal(escapeMarkdownText(t), turndownEscape(t), t);
    assert.equal(escapeMarkdownText('1. *a* <b>'), '1\\. \\*a\\* \\<b>');
  });
});

describe('htmlToMarkdown', () => {
  it('converts a table without a header row to a GFM table with an empty header', () => {
    assert.equal(convert('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>'), '|     |     |\n| --- | --- |\n| a   | b   |\n| c   | d   |');
  });

  it('keeps a header row and escapes every | in cells', () => {
    assert.equal(
      convert('<table><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody><tr><td>pipe</td><td>a|b || c</td></tr></tbody></table>'),
      '| Key | Value |\n| --- | --- |\n| pipe | a\\|b \\|\\| c |',
    );
  });

  it('never falls back to raw HTML for a table with block content', () => {
    const md = convert('<table><tr><th>H</th></tr><tr><td><ul><li>x</li><li>y</li></ul><h2>t</h2></td></tr></table>');
    assert.doesNotMatch(md, /<(?!br>)/);
    assert.match(md, /^\| H {3}\|\n\| --- \|\n\| -   x<br>-   y<br><br>## t \|$/);
  });

  it('fences code blocks, a bare <pre> too, with a longer fence when the code holds one', () => {
    assert.equal(convert('<pre><code class="language-ts">const a = 1 < 2;</code></pre>'), '```ts\nconst a = 1 < 2;\n```');
    assert.equal(convert('<pre>x  *not emphasis*\n  y</pre>'), '```\nx  *not emphasis*\n  y\n```');
    assert.equal(convert('<pre>```\ninner\n```</pre>'), '````\n```\ninner\n```\n````');
  });

  it('uses ATX headings and keeps inline formatting', () => {
    assert.equal(convert('<h1>One</h1><h3>Three <em>it</em></h3><p><strong>b</strong> <del>s</del></p>'), '# One\n\n### Three _it_\n\n**b** ~~s~~');
  });

  it('removes scripts, styles, objects and forms with their content; a frame becomes a link', () => {
    const md = convert('<p>keep</p><script>evil()</script><style>p{}</style><iframe src="x">f</iframe><object>o</object><embed src="e"><form><input value="i"><button>b</button><textarea>t</textarea></form><noscript>n</noscript><template>tp</template><svg><text>s</text></svg>');
    assert.equal(md, `keep\n\n[Embedded content: site.example](${BASE}/x)`);
    assert.equal(convert('<iframe src="javascript:alert(1)" title="t"></iframe><iframe srcdoc="<p>x</p>"></iframe>'), '');
  });

  it('makes links and images absolute against the document URL and drops unsafe URLs', () => {
    const md = convert(
      '<p><a href="page.html">rel</a> <a href="/root">root</a> <a href="//cdn.example/x">proto</a> <a href="https://other.example/a b">abs</a> <a href="mailto:x@y.example">mail</a>'
        + ' <a href="javascript:alert(1)">js</a> <a href="  JaVaScRiPt:alert(1)">js2</a> <a href="java&#10;script:alert(1)">js3</a> <a href="vbscript:x">vb</a> <a href="data:text/html,x">data</a>'
        + ' <img src="img/a.png" alt="An [image]" title="T &quot;q&quot;"> <img src="data:image/png;base64,AAAA" alt="inline data"> <img src="javascript:x"></p>',
      `${BASE}/en/page/7`,
    );
    assert.equal(
      md,
      `[rel](${BASE}/en/page/page.html) [root](${BASE}/root) [proto](https://cdn.example/x) [abs](https://other.example/a%20b) [mail](mailto:x@y.example)`
        + ` js js2 js3 vb data ![An \\[image\\]](${BASE}/en/page/img/a.png "T \\"q\\"") inline data`,
    );
    assert.equal(convert('<a href="x(1).html">p</a>'), `[p](${BASE}/x\\(1\\).html)`);
  });

  it('keeps text that looks like a tag as text', () => {
    assert.equal(convert('<p>&lt;script&gt;alert(1)&lt;/script&gt; a &lt; b</p>'), '\\<script>alert(1)\\</script> a \\< b');
  });

  it('prints plugin markers verbatim, editorial look-alikes escaped', () => {
    assert.equal(convert(`${markerHtml('Omitted: unsupported block type "x"')}<p data-agent-marker="guess">[Omitted: x]</p>`), '[Omitted: unsupported block type "x"]\n\n\\[Omitted: x\\]');
  });

  it('converts 100,000 nested elements once bounded, without overflowing the stack', () => {
    const html = `${'<div>'.repeat(100_000)}x${'</div>'.repeat(100_000)}`;
    const { markdown, complete } = boundedHtmlToMarkdown(html, { baseUrl: BASE }, DEFAULT_MARKDOWN_LIMITS);
    assert.equal(complete, false);
    assert.match(markdown, /\[Content simplified: markup nested deeper than 64 levels was flattened\]/);
  });

  it('bounded conversion of ordinary HTML is complete and unchanged', () => {
    const html = '<h2>T</h2><p>text</p>';
    assert.deepEqual(boundedHtmlToMarkdown(html, { baseUrl: BASE }, DEFAULT_MARKDOWN_LIMITS), { markdown: convert(html), complete: true });
  });
});

describe('limits', () => {
  it('resolveMarkdownLimits merges defaults and names a bad limit', () => {
    assert.deepEqual(resolveMarkdownLimits({ maxDepth: 32 }), { ...DEFAULT_MARKDOWN_LIMITS, maxDepth: 32 });
    assert.ok(Object.isFrozen(resolveMarkdownLimits()));
    assert.throws(() => resolveMarkdownLimits({ maxHtmlBytes: 10 }), /markdown limit "maxHtmlBytes" must be an integer >= 1024, got 10/);
    assert.throws(() => resolveMarkdownLimits({ budgetMs: 1.5 }), /"budgetMs"/);
  });

  it('utf8Prefix never splits a character', () => {
    assert.equal(utf8Prefix('aé😀b', 1), 'a');
    assert.equal(utf8Prefix('aé😀b', 2), 'a');
    assert.equal(utf8Prefix('aé😀b', 3), 'aé');
    assert.equal(utf8Prefix('aé😀b', 6), 'aé');
    assert.equal(utf8Prefix('aé😀b', 7), 'aé😀');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.nat(800), (s, n) => {
        const p = utf8Prefix(s, n);
        return s.startsWith(p) && Buffer.byteLength(p) <= n && !p.includes('\uFFFD') && (Buffer.byteLength(s) <= n ? p === s : true);
      }),
    );
  });

  it('truncateHtml cuts after a block end, never inside a tag or a character', () => {
    assert.deepEqual(truncateHtml('<p>one</p><p>two</p>', 12), { html: '<p>one</p>', truncated: true });
    assert.deepEqual(truncateHtml('<p>short</p>', 1024), { html: '<p>short</p>', truncated: false });
    const cut = truncateHtml(`<p>${'ü'.repeat(100)} <a href="https://x.example/${'y'.repeat(50)}">l</a></p>`, 150);
    assert.ok(cut.truncated && Buffer.byteLength(cut.html) <= 150);
    assert.doesNotMatch(cut.html, /<a/);
    assert.ok(!cut.html.includes('\uFFFD'));
  });

  it('boundMarkup drops start tags beyond the depth bound and keeps the text', () => {
    assert.deepEqual(boundMarkup('<div><div><div>x</div></div></div>', { maxDepth: 2, maxElements: 100 }), { html: '<div><div>x</div></div>', flattened: true, truncated: false });
    const unchanged = '<ul><li>a<li>b<li><p>c<p>d</ul><p>e<p>f<table><tr><td>1<td>2<tr><td>3</table>';
    assert.deepEqual(boundMarkup(unchanged.repeat(50), { maxDepth: 8, maxElements: 10_000 }), { html: unchanged.repeat(50), flattened: false, truncated: false });
  });

  it('boundMarkup reads tags as the HTML tokenizer does', () => {
    const deep = '<div>'.repeat(20);
    const bound = { maxDepth: 4, maxElements: 1000 };
    // A quote only opens an attribute value after `=`: the divs behind `a"` are real tags.
    assert.equal(boundMarkup(`<div a">${deep}"`, bound).html, `<div a"><div><div><div>"`);
    // Inside a comment, a script or an attribute value, nothing is a tag.
    assert.deepEqual(boundMarkup(`<!--${deep}--><script>${deep}</script><p title="${deep}">`, bound).flattened, false);
    // An unterminated attribute value swallows the rest, as it does for the parser.
    assert.deepEqual(boundMarkup(`<p title="${deep}`, bound).flattened, false);
  });

  it('boundMarkup cuts before the element that exceeds the element bound', () => {
    assert.deepEqual(boundMarkup('<p>1</p>'.repeat(150), { maxDepth: 64, maxElements: 100 }), { html: '<p>1</p>'.repeat(100), flattened: false, truncated: true });
  });

  it('truncateMarkdown cuts at a paragraph end outside code fences and never exceeds the bound', () => {
    const text = `intro\n\n${'para graph text\n\n'.repeat(100)}`;
    const cut = truncateMarkdown(text, 1024, '[cut]');
    assert.ok(cut.truncated && Buffer.byteLength(cut.markdown) <= 1024);
    assert.match(cut.markdown, /para graph text\n\n\[cut\]$/);
    const code = `intro\n\n\`\`\`js\n${'let x = 1;\n'.repeat(500)}\`\`\`\n`;
    const inFence = truncateMarkdown(code, 2048, '[cut]');
    assert.match(inFence.markdown, /let x = 1;\n```\n\n\[cut\]$/);
    assert.ok(Buffer.byteLength(inFence.markdown) <= 2048);
  });

  it('truncateMarkdown: any input stays within the bound, valid UTF-8, with no code fence left open', () => {
    // An independent reading of CommonMark fences: a closing fence is the same character, at least as long, alone on its line.
    const openFence = (text: string) => {
      let open: string | undefined;
      for (const line of text.split('\n')) {
        const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
        if (!m) continue;
        if (!open) open = m[1];
        else if (m[1]![0] === open[0] && m[1]!.length >= open.length && line.trim() === m[1]) open = undefined;
      }
      return open;
    };
    const piece = fc.oneof(fc.constantFrom('\n', '\n\n', '```\n', '```js\n', '~~~~\n', ' ', 'é', '😀', '| a | b |\n', '# h\n'), fc.string({ maxLength: 40 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 400 }), fc.integer({ min: 64, max: 2048 }), (pieces, max) => {
        const input = pieces.join('');
        const { markdown, truncated } = truncateMarkdown(input, max, '[cut]');
        if (!truncated) return markdown === input && Buffer.byteLength(input) <= max;
        const body = markdown.slice(0, -'[cut]'.length);
        return Buffer.byteLength(markdown) <= max && !markdown.includes('\uFFFD') && markdown.endsWith('[cut]') && openFence(body) === undefined;
      }),
      { numRuns: 500 },
    );
  });
});
