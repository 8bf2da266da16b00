import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PGlite } from '@electric-sql/pglite';
import { renderSql } from '../src/recipes/strapi/render-sql.js';
import { htmlToMarkdown } from '../src/markdown/convert.js';

/**
 * The Strapi recipe's renderer (SQL functions, in PGlite): every blocks node type to HTML, and that
 * HTML to the Markdown an agent reads (the plugin's own converter); nested lists, marks, links, images
 * on the upload base, code with its language; unknown nodes and malformed values left out and named,
 * never an error; HTML in the text escaped; the Markdown rich-text field.
 */

const BASE = 'https://news.example';
let db: PGlite;
const html = async (blocks: unknown) => (await db.query<{ h: string }>(`SELECT r.strapi_blocks_html($1::jsonb, $2) AS h`, [JSON.stringify(blocks), BASE])).rows[0]!.h;
const problems = async (blocks: unknown) => (await db.query<{ p: string | null }>(`SELECT r.strapi_blocks_problems($1::jsonb) AS p`, [JSON.stringify(blocks)])).rows[0]!.p;
const markdownHtml = async (md: string) => (await db.query<{ h: string }>(`SELECT r.strapi_markdown_html($1, $2) AS h`, [md, BASE])).rows[0]!.h;
const text = (t: string, marks: Record<string, boolean> = {}) => ({ type: 'text', text: t, ...marks });

describe('the Strapi blocks and Markdown renderer', () => {
  before(async () => {
    db = new PGlite();
    await db.exec(`CREATE SCHEMA r;\n${renderSql('r')}`);
  });
  after(async () => {
    await db?.close();
  });

  it('renders every node type of the blocks editor', async () => {
    assert.equal(await html([{ type: 'paragraph', children: [text('Plain '), text('bold', { bold: true }), text(' '), text('it', { italic: true }), text(' '), text('gone', { strikethrough: true }), text(' '), text('x = 1', { code: true }), text(' '), text('under', { underline: true })] }]),
      '<p>Plain <strong>bold</strong> <em>it</em> <del>gone</del> <code>x = 1</code> under</p>');
    assert.equal(await html([{ type: 'heading', level: 3, children: [text('Three')] }, { type: 'heading', level: 9, children: [text('Bad level')] }]), '<h3>Three</h3><h2>Bad level</h2>');
    assert.equal(await html([{ type: 'paragraph', children: [{ type: 'link', url: 'https://example.org/a?b=1&c=2', children: [text('a link')] }, text(' '), { type: 'link', url: '/articles/x', children: [text('a path')] }, text(' '), { type: 'link', url: 'javascript:alert(1)', children: [text('no')] }] }]),
      '<p><a href="https://example.org/a?b=1&amp;c=2">a link</a> <a href="https://news.example/articles/x">a path</a> no</p>');
    assert.equal(await html([{ type: 'list', format: 'unordered', children: [
      { type: 'list-item', children: [text('one')] },
      { type: 'list', format: 'ordered', indentLevel: 1, children: [{ type: 'list-item', children: [text('one.a')] }, { type: 'list-item', children: [text('one.b')] }] },
      { type: 'list-item', children: [text('two')] },
    ] }]), '<ul><li>one<ol><li>one.a</li><li>one.b</li></ol></li><li>two</li></ul>');
    assert.equal(await html([{ type: 'quote', children: [text('Said so.')] }]), '<blockquote><p>Said so.</p></blockquote>');
    assert.equal(await html([{ type: 'code', language: 'typescript', children: [text('const a = 1 < 2;\nreturn a;')] }]),
      '<pre><code class="language-typescript">const a = 1 &lt; 2;\nreturn a;</code></pre>');
    assert.equal(await html([{ type: 'image', image: { url: '/uploads/quay.jpg', alternativeText: 'The quay', caption: 'At dawn' }, children: [text('')] }]),
      '<figure><img src="https://news.example/uploads/quay.jpg" alt="The quay"><figcaption>At dawn</figcaption></figure>');
    assert.equal(await html([{ type: 'paragraph', children: [text('<script>alert(1)</script> & "q"\nnext line')] }]),
      '<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;<br>next line</p>');
  });

  it('composes to the Markdown an agent reads', async () => {
    const body = await html([
      { type: 'heading', level: 2, children: [text('Ferries')] },
      { type: 'paragraph', children: [text('Run '), text('daily', { bold: true }), text('.')] },
      { type: 'list', format: 'ordered', children: [{ type: 'list-item', children: [text('Pier')] }, { type: 'list-item', children: [text('Quay')] }] },
      { type: 'quote', children: [text('On time.')] },
      { type: 'code', language: 'sh', children: [text('ferry --now')] },
      { type: 'image', image: { url: '/uploads/f.jpg', alternativeText: 'Ferry' } },
    ]);
    const md = htmlToMarkdown(body, { baseUrl: BASE });
    assert.match(md, /^## Ferries$/m);
    assert.match(md, /^Run \*\*daily\*\*\.$/m);
    assert.match(md, /^1\. +Pier$/m);
    assert.match(md, /^> On time\.$/m);
    assert.match(md, /```sh\nferry --now\n```/);
    assert.match(md, /!\[Ferry\]\(https:\/\/news\.example\/uploads\/f\.jpg\)/);
  });

  it('leaves out what it does not know, names it, and never fails on a malformed value', async () => {
    const blocks = [{ type: 'paragraph', children: [text('kept')] }, { type: 'carousel', children: [text('dropped')] }, { type: 'paragraph', children: [{ type: 'mention', children: [text('who')] }, text(' too')] }, 'a string', 7];
    assert.equal(await html(blocks), '<p>kept</p><p> too</p>');
    assert.equal(await problems(blocks), 'blocks node types not rendered (left out): carousel, mention');
    assert.equal(await problems([{ type: 'paragraph', children: [text('fine')] }]), null);
    assert.equal(await problems({ type: 'paragraph' }), 'the blocks value is not a JSON array (nothing of it is served)');
    assert.equal(await html({ type: 'paragraph' }), '');
    assert.equal(await html('"text"'), '');
    assert.equal(await html([{ type: 'list', children: 'no' }, { type: 'heading' }, { type: 'image' }, { type: 'link', children: [text('bare')] }]), '<ul></ul><h2></h2>bare');
  });

  it('renders the Markdown of a rich-text field', async () => {
    assert.equal(await markdownHtml('### Reactions\n\nA *quiet* day, **busy** night.\nSame paragraph.\n\n- one\n- two\n\n1. first\n2. second\n\n> Quoted\n\n```js\nlet a = "<b>";\n```\n\nSee [the port](https://port.example/x) and ![map](/uploads/map.png) <b>raw</b> `code`.'),
      '<h3>Reactions</h3><p>A <em>quiet</em> day, <strong>busy</strong> night. Same paragraph.</p><ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol>' +
      '<blockquote><p>Quoted</p></blockquote><pre><code class="language-js">let a = &quot;&lt;b&gt;&quot;;</code></pre>' +
      '<p>See <a href="https://port.example/x">the port</a> and <img src="https://news.example/uploads/map.png" alt="map"> &lt;b&gt;raw&lt;/b&gt; <code>code</code>.</p>');
    assert.equal(await markdownHtml('[bad](javascript:void) text'), '<p>bad text</p>');
    assert.equal(await markdownHtml(''), '');
  });
});
