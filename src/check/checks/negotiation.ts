import { checkName } from '../check-catalog.js';
import { ACCEPT, type CheckContext } from '../context.js';
import { variesOnAccept } from '../page-view.js';
import { describeResponse, mediaType } from '../site-client.js';
import { fail, pass, skip, type CheckOutcome } from '../report.js';

const NAME = checkName('markdown-negotiation');
const FIX =
  'On resource pages, answer a request that prefers text/markdown (Accept: text/markdown, text/html, */*) with the Markdown ' +
  '(200 text/markdown, Vary: Accept) and every HTML-first Accept with the HTML: agent.resourceLinks({ id, language }) on the page route does both.';

/**
 * The page asked for as a coding agent asks (`text/markdown, text/html, *\/*`) gets Markdown with
 * `Vary: Accept`; as a browser and as an HTML-first fetcher, HTML.
 */
export async function checkNegotiation(ctx: CheckContext): Promise<CheckOutcome> {
  const page = ctx.page?.view;
  if (!page) return skip('markdown-negotiation', NAME, 'no page to check');
  const problems: string[] = [];
  const md = await ctx.client.fetch(page.url, { accept: ACCEPT.markdownAgent });
  if (md.error !== undefined || md.status !== 200) problems.push(`Markdown-first Accept ${describeResponse(md)}`);
  else {
    if (mediaType(md) !== 'text/markdown') problems.push(`Markdown-first Accept got ${mediaType(md) || 'no Content-Type'}`);
    if (!variesOnAccept(md.headers.get('vary') ?? '')) problems.push('the Markdown answer lacks Vary: Accept');
  }
  const browser = await ctx.client.fetch(page.url, { accept: ACCEPT.browser });
  if (browser.error !== undefined || browser.status !== 200 || mediaType(browser) !== 'text/html') {
    problems.push(`a browser's Accept got ${browser.error ?? `${browser.status} ${mediaType(browser)}`}`);
  } else if (!variesOnAccept(browser.headers.get('vary') ?? '')) problems.push('the HTML answer lacks Vary: Accept (a cache could serve it to agents, or Markdown to browsers)');
  return problems.length ? fail('markdown-negotiation', NAME, problems.join('; '), FIX) : pass('markdown-negotiation', NAME, 'Markdown-first Accept → text/markdown, browser Accept → text/html, both Vary: Accept');
}
