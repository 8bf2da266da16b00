/**
 * Markdown from every editor (SPEC §25): one test per rule of the DOM pre-pass and the Markdown rules
 * that read an editor's markup (each fails without its rule), and bad input against those rules. One
 * conversion path for the same HTML: the worker pool against in process in `markdown-converter.test.ts`
 * (the whole corpus), the resource Markdown route against `toMarkdown` in `markdown-route.test.ts`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { toMarkdown, DEFAULT_MARKDOWN_LIMITS } from '../src/index.js';

const md = (html: string) => toMarkdown(html, { url: 'https://site.example/post' }).markdown;

describe('the editors’ rules, one per concern', () => {
  it('an image in a link around block elements is the link’s text (class 1)', () => {
    assert.equal(md('<a href="/big.png"><div><picture><img src="/small.png" alt="Gauge"></picture><div><button>Expand</button></div></div></a>'), '[![Gauge](https://site.example/small.png)](https://site.example/big.png)');
    // With text as well, the text is the link (a card's thumbnail is decoration).
    assert.equal(md('<a href="/p"><div><img src="/t.png"></div><div>Title</div></a>'), '[Title](https://site.example/p)');
  });

  it('a task’s state from Notion’s checkbox element and Confluence’s li.checked / data-inline-task-status (class 2)', () => {
    assert.equal(md('<ul class="to-do-list"><li><div class="checkbox checkbox-on"></div> <span>Done</span></li><li><div class="checkbox checkbox-off"></div> <span>Open</span></li></ul>'), '-   [x]  Done\n-   [ ]  Open');
    assert.equal(md('<ul class="inline-task-list"><li class="checked">A</li><li data-inline-task-status="complete">B</li><li data-inline-task-status="incomplete">C</li></ul>'), '-   [x] A\n-   [x] B\n-   [ ] C');
    // A checkbox element outside a list item stays out of the Markdown.
    assert.equal(md('<p><span class="checkbox checkbox-on"></span>Plain</p>'), 'Plain');
  });

  it('a code block’s language wherever the editor puts it, plain text as none, lower-cased (class 3)', () => {
    const lang = (html: string) => /^```(.*)$/m.exec(md(html))?.[1];
    assert.equal(lang('<pre data-code-block-lang="typescript"><span>x</span></pre>'), 'typescript');
    assert.equal(lang('<pre class="syntaxhighlighter-pre" data-syntaxhighlighter-params="brush: sql; gutter: false">x</pre>'), 'sql');
    assert.equal(lang('<pre class="brush: java; gutter: true">x</pre>'), 'java');
    assert.equal(lang('<div class="mw-highlight mw-highlight-lang-python mw-content-ltr"><pre>x</pre></div>'), 'python');
    assert.equal(lang('<div class="language-rust codeBlockContainer"><pre class="prism-code"><code>x</code></pre></div>'), 'rust');
    assert.equal(lang('<pre><code class="language-JavaScript">x</code></pre>'), 'javascript');
    assert.equal(lang('<pre><code class="language-Plain Text">x</code></pre>'), '');
    // A paragraph that is only code over several lines (Contentful's code mark) is a code block.
    assert.equal(md('<p><code>a<br/>b</code></p>'), '```\na\nb\n```');
    assert.equal(md('<p>Run <code>a</code> now</p>'), 'Run `a` now');
  });

  it('an embed whose URL lives only in attributes becomes a link with its provider’s name (class 4)', () => {
    assert.equal(md('<script src="https://gist.github.com/ann/abc123.js"></script>'), '[Embedded content: GitHub Gist](https://gist.github.com/ann/abc123)');
    assert.equal(md('<script src="https://cdn.example/widget.js"></script><p>x</p>'), 'x');
    const json = JSON.stringify({ url: 'https://vimeo.com/1', providerName: 'Vimeo', title: 'Pier', html: '<iframe></iframe>' }).replace(/"/g, '&quot;');
    assert.equal(md(`<div class="sqs-block video-block" data-block-json="${json}"><div class="sqs-block-content">x</div></div>`), '[Pier (Vimeo)](https://vimeo.com/1)');
    assert.equal(md('<div class="sqs-video-wrapper" data-provider-name="YouTube" data-html="&lt;iframe src=&quot;https://www.youtube.com/embed/a?x=1&amp;amp;y=2&quot;&gt;&lt;/iframe&gt;"></div>'), '[Embedded content: YouTube](https://www.youtube.com/embed/a?x=1&y=2)');
    assert.equal(md('<ac:image ac:alt="Map"><ri:url ri:value="https://m.example/a.png"></ri:url></ac:image>'), '![Map](https://m.example/a.png)');
    assert.equal(md('<p><ri:url ri:value="https://v.example/w"></ri:url></p>'), '[Embedded content: v.example](https://v.example/w)');
    assert.equal(md('<iframe src="about:blank" data-src="https://e.example/x" title="Map"></iframe>'), '[Map](https://e.example/x)');
  });

  it('editor chrome never reaches the Markdown: edit and jump links, expand buttons, conditionally hidden items (class 5)', () => {
    assert.equal(md('<h2>History<span class="mw-editsection"><span>[</span><a href="/w?action=edit">edit</a><span>]</span></span></h2>'), '## History');
    assert.equal(md('<a class="mw-jump-link" href="#c">Jump to content</a><p>x</p>'), 'x');
    assert.equal(md('<div><b>t.sql</b><span class="collapse-source expand-control"><span class="expand-control-text">Expand source</span></span></div>'), '**t.sql**');
    assert.equal(md('<div class="w-condition-invisible"><p>Sponsor</p></div><p>x</p>'), 'x');
    // MediaWiki's MathML for screen readers is hidden from sight only: it is the formula (its TeX).
    assert.equal(md('<p>E: <span class="mwe-math-mathml-a11y" style="display: none;"><math><semantics><mi>E</mi><annotation encoding="application/x-tex">E=mc^2</annotation></semantics></math></span><img aria-hidden="true" src="/m.svg" alt="E"></p>'), 'E: `E=mc^2`');
  });

  it('line-numbered code is one code block with its language (class 6)', () => {
    const table = '<div class="highlight"><div class="chroma"><table class="lntable"><tr><td class="lntd"><pre><code><span class="lnt">1\n</span><span class="lnt">2\n</span></code></pre></td><td class="lntd"><pre><code class="language-go" data-lang="go"><span class="line"><span class="cl">a\n</span></span><span class="line"><span class="cl">b\n</span></span></code></pre></td></tr></table></div></div>';
    assert.equal(md(table), '```go\na\nb\n```');
    assert.equal(md('<pre><code class="language-py"><span class="line"><span class="ln">1</span><span class="cl">a\n</span></span><span class="line"><span class="ln">2</span><span class="cl">b</span></span></code></pre>'), '```py\na\nb\n```');
    assert.equal(md('<pre><span class="lineno">1 </span>a\n<span class="lineno">2 </span>b</pre>'), '```\na\nb\n```');
    // Chroma's default inline styles: a line number is text the reader cannot select.
    assert.equal(md('<pre><code><span style="display:flex"><span style="white-space:pre;user-select:none;color:#7f7f7f">1</span><span>a</span></span></code></pre>'), '```\na\n```');
    // A two-column table of numbers and prose is left a table.
    assert.match(md('<table class="x"><tr><td>1</td><td>One</td></tr></table>'), /^\| +\| +\|/);
  });

  it('a link card’s title element is its link text, wherever the card puts it (class 7)', () => {
    const card = '<a href="https://t.example/p"><div><span>Tides Weekly</span></div><div class="embedded-post-title">Spring tides</div><div>Why the moon…</div></a>';
    assert.equal(md(card), '[Spring tides](https://t.example/p) — Tides Weekly — Why the moon…');
  });

  it('callouts keep their kind and title, toggles their summary, footnotes their notes (class 8)', () => {
    assert.equal(md('<div class="theme-admonition theme-admonition-danger alert"><div class="admonitionHeading_x">danger</div><div class="admonitionContent_y"><p>Deep water.</p></div></div>'), '> **Danger**\n> \n> Deep water.');
    assert.equal(md('<div class="confluence-information-macro confluence-information-macro-note" data-macro-name="note"><p class="title">Tide</p><div class="confluence-information-macro-body"><p>High at 6.</p></div></div>'), '> **Note: Tide**\n> \n> High at 6.');
    assert.equal(md('<figure class="callout"><div><span class="icon">💡</span></div><div>Bring a coat.</div></figure>'), '> 💡 Bring a coat.');
    assert.equal(md('<div class="expand-container"><div class="expand-control"><span class="expand-control-text">More</span></div><div class="expand-content"><p>Body.</p></div></div>'), '**More**\n\nBody.');
    assert.equal(md('<p>A<sup class="reference"><a href="#cite_note-1">[1]</a></sup></p><ol class="references"><li id="cite_note-1"><span class="mw-cite-backlink"><b><a href="#cite_ref-1">^</a></b></span> <span class="reference-text">Note.</span></li></ol>'), 'A[^1]\n\n[^1]: Note.');
    assert.equal(md('<p>B<a class="footnote-anchor" href="#footnote-1">1</a></p><div class="footnote"><a id="footnote-1" class="footnote-number" href="#footnote-anchor-1">1</a><div class="footnote-content"><p>Sub.</p></div></div>'), 'B[^1]\n\n[^1]: Sub.');
    // A tab panel hidden until its tab is chosen is content; any other hidden element is not.
    assert.equal(md('<div role="tabpanel" hidden><p>Yarn</p></div><div hidden><p>No</p></div>'), 'Yarn');
    // Docusaurus's tabs, as Wiki.js tabsets: a heading per tab, a level below the one before, then its panel.
    assert.equal(md('<h2>Install</h2><div class="tabs-container"><ul role="tablist"><li role="tab">npm</li><li role="tab">Yarn</li></ul><div><div role="tabpanel"><p>a</p></div><div role="tabpanel" hidden><p>b</p></div></div></div>'), '## Install\n\n### npm\n\na\n\n### Yarn\n\nb');
    // A figure caption's heading (Hugo's figure title) is bold text of the caption.
    assert.equal(md('<figure><img src="/q.jpg" alt="Q"><figcaption><h4>Quay</h4></figcaption></figure>'), '![Q](https://site.example/q.jpg)\n\n***Quay***');
  });
});

describe('bad input against the editors’ rules stays bounded and safe', () => {
  const safe = (html: string, label: string) => {
    const { markdown, complete } = toMarkdown(html, { url: 'https://site.example/post' });
    assert.ok(Buffer.byteLength(markdown) <= DEFAULT_MARKDOWN_LIMITS.maxMarkdownBytes, label);
    assert.doesNotMatch(markdown, /javascript:|<script/i, label);
    return { markdown, complete };
  };

  it('1,000 levels of editor wrappers: linked image wrappers, admonitions, expand macros, task lists', () => {
    for (const open of ['<a href="/x"><div>', '<div class="theme-admonition theme-admonition-tip">', '<div class="expand-container"><div class="expand-content">', '<ul class="inline-task-list"><li>', '<figure class="callout"><div>']) {
      const { complete } = safe(`${open.repeat(1000)}<img src="/i.png" alt="i">deep`, open);
      assert.equal(complete, false, open);
    }
  });

  it('10,000 cells: a line-number table and a spanned infobox', () => {
    safe(`<table class="lntable"><tr>${'<td>1</td>'.repeat(10_000)}</tr></table>`, 'lntable');
    safe(`<table class="infobox">${'<tr><th colspan="64">a</th><td rowspan="64">b</td></tr>'.repeat(5000)}</table>`, 'infobox');
  });

  it('attributes of 1 MB, a data-block-json that is not JSON, javascript: URLs in every place an embed URL is read', () => {
    const mb = 'x'.repeat(1024 * 1024);
    safe(`<div class="sqs-block" data-block-json="${mb}"><p>a</p></div>`, '1 MB json');
    safe(`<div class="sqs-video-wrapper" data-html="&lt;iframe src=&quot;https://e.example/${mb}&quot;&gt;"></div>`, '1 MB data-html');
    safe(`<pre class="${mb}" data-code-block-lang="${mb}">x</pre>`, '1 MB class');
    assert.equal(safe('<div class="sqs-block" data-block-json="{not json"><p>a</p></div>', 'bad json').markdown, 'a');
    const evil = JSON.stringify({ url: 'javascript:alert(1)', providerName: 'X', html: '' }).replace(/"/g, '&quot;');
    assert.equal(safe(`<div class="sqs-block" data-block-json="${evil}"><p>a</p></div>`, 'json url').markdown, 'a');
    assert.equal(safe('<script src="javascript:alert(1)"></script><p>a</p>', 'script').markdown, 'a');
    assert.equal(safe('<script src="https://gist.github.com/a/b.js?x=javascript:1"></script>', 'gist').markdown, '[Embedded content: GitHub Gist](https://gist.github.com/a/b)');
    safe('<div class="sqs-video-wrapper" data-html="&lt;iframe src=&quot;javascript:alert(1)&quot;&gt;"></div><ac:image><ri:url ri:value="javascript:alert(1)"></ri:url></ac:image><ri:url ri:value="javascript:x"></ri:url><iframe src="about:blank" data-src="javascript:alert(1)"></iframe>', 'embeds');
    assert.equal(safe('<a href="/x"><div><img src="javascript:alert(1)" alt="a"></div></a>', 'linked image').markdown, '[a](https://site.example/x)');
  });
});
