/**
 * Dense editorial HTML of a given size (paragraphs with links and emphasis, headings, lists, a table,
 * a code block, an image): what turndown converts slowest per KiB. Shared by the Markdown benches and
 * the conversion-pool test.
 */
const SECTION = [
  '<h2>Section heading</h2>',
  '<p>Lorem ipsum <a href="/page/12">dolor sit amet</a>, consectetur <em>adipiscing</em> elit, sed do <strong>eiusmod</strong> tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation.</p>',
  '<ul><li>First item with <a href="https://other.example/x">a link</a></li><li>Second item</li><li>Third item</li></ul>',
  '<p>Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur. <img src="/media/pic.jpg" alt="picture"></p>',
  '<table><tr><th>Name</th><th>Value</th></tr><tr><td>alpha</td><td>1</td></tr><tr><td>beta | gamma</td><td>2</td></tr></table>',
  '<pre><code class="language-js">const answer = 42;\nconsole.log(answer);</code></pre>',
].join('');

/** `bytes` characters (ASCII: bytes) of dense markup, cut anywhere (the parser closes what is open). */
export const denseHtml = (bytes: number): string => SECTION.repeat(Math.ceil(bytes / SECTION.length)).slice(0, bytes);
