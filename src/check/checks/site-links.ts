import { SITE_LINK_RELS } from '../../link-relations.js';
import { checkName } from '../check-catalog.js';
import { ACCEPT, short, type CheckContext } from '../context.js';
import { linksWith, readPage, type PageView, type SeenLink } from '../page-view.js';
import { describeResponse, mediaType, type SiteResponse } from '../site-client.js';
import { blocked, fail, pass, type CheckOutcome } from '../report.js';

/** The site-level relations every resource response and the home page carry. */
export const SITE_RELS: readonly string[] = SITE_LINK_RELS;

const FIX_SITE_HEADER =
  'Send the site-level links in one Link header (rel="api-catalog", "service-desc", "service-doc", "describedby", "ard"): ' +
  'with express-agent-discovery, app.use(agent.linkHeaders) before your routes.';
const FIX_SITE_HEAD =
  'Render the same links as <link> elements in <head>: with express-agent-discovery, output `await agent.headLinks(req)` in your layout.';
const FIX_PAGE_HEADER =
  'Give resource pages their links: agent.resourceLinks({ id, language }) on the page route (or agent.setResourceHeaders in a custom controller) ' +
  'adds the site-level links and the Markdown and JSON alternates, Markdown last.';
const FIX_PAGE_HEAD = "Output `await agent.headLinks(req, id, { language })` in the page's <head>.";

const missingRels = (links: readonly SeenLink[], rels: readonly string[]): string[] => rels.filter((rel) => !links.some((l) => l.rels.includes(rel)));

/** An HTML page fetched like an agent-side fetcher; one same-origin redirect is followed when `follow`. */
async function fetchHtml(ctx: CheckContext, url: string, follow: boolean): Promise<{ res: SiteResponse; note: string }> {
  let res = await ctx.client.fetch(url, { accept: ACCEPT.fetcher });
  let note = '';
  const location = res.error === undefined && res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
  if (follow && location) {
    note = ` (after a ${res.status} redirect to ${short(new URL(location, url).toString(), ctx.origin)})`;
    res = await ctx.client.fetch(new URL(location, url).toString(), { accept: ACCEPT.fetcher });
  }
  return { res, note };
}

/** Why a fetched page cannot be read as HTML, or undefined. */
function notHtml(res: SiteResponse): string | undefined {
  if (res.error !== undefined || res.status !== 200) return describeResponse(res);
  if (mediaType(res) !== 'text/html') return `answered ${mediaType(res) || 'no Content-Type'} instead of text/html to an HTML-first Accept`;
  return undefined;
}

/** The home page's Link header (GET and HEAD) and `<head>`. */
export async function checkHome(ctx: CheckContext): Promise<CheckOutcome[]> {
  const headerName = checkName('home-link-header');
  const headName = checkName('home-head');
  const { res, note } = await fetchHtml(ctx, ctx.homeUrl, true);
  const problem = notHtml(res);
  if (problem || res.error !== undefined) {
    const detail = `GET /${note} ${problem}`;
    const root = fail('home-link-header', headerName, detail, 'Serve the home page as HTML (200) to anonymous visitors.');
    return [root, blocked('home-head', headName, root)];
  }
  ctx.home = readPage(res);
  const head = await ctx.client.fetch(res.url, { method: 'HEAD', accept: ACCEPT.fetcher });
  const onGet = missingRels(ctx.home.headerLinks, SITE_RELS);
  const headOk = head.error === undefined && head.status >= 200 && head.status < 300;
  const onHead = headOk ? missingRels(readPage({ ...head, body: '' }).headerLinks, SITE_RELS) : SITE_RELS;
  const rels = relList(ctx.home.headerLinks);
  const header =
    onGet.length || onHead.length
      ? fail(
          'home-link-header',
          headerName,
          [onGet.length ? `GET${note} lacks ${onGet.join(', ')}` : '', onHead.length ? (headOk ? `HEAD lacks ${onHead.join(', ')}` : `HEAD ${describeResponse(head)}`) : '']
            .filter(Boolean)
            .join('; '),
          FIX_SITE_HEADER,
        )
      : pass('home-link-header', headerName, `${rels} on GET and HEAD${note}`);
  const inHead = missingRels(ctx.home.headLinks, SITE_RELS);
  const headResult = inHead.length
    ? fail('home-head', headName, `<head> lacks ${inHead.join(', ')}`, FIX_SITE_HEAD)
    : pass('home-head', headName, relList(ctx.home.headLinks));
  return [header, headResult];
}

const relList = (links: readonly SeenLink[]): string => [...new Set(links.flatMap((l) => l.rels))].join(', ');

/** What a resource page must advertise beyond the site-level links. */
function alternateProblems(links: readonly SeenLink[], header: boolean): string[] {
  const problems: string[] = [];
  const alternates = linksWith(links, 'alternate');
  const markdown = linksWith(links, 'alternate', 'text/markdown');
  if (!markdown.length) problems.push('no Markdown alternate (rel="alternate"; type="text/markdown")');
  if (!linksWith(links, 'alternate', 'application/json').length) problems.push('no JSON alternate (rel="alternate"; type="application/json")');
  if (header && markdown.length && !(alternates.at(-1)?.type ?? '').toLowerCase().startsWith('text/markdown')) {
    problems.push('the Markdown alternate is not the last alternate (parsers that keep one value per relation miss it)');
  }
  return problems;
}

/** The chosen page: reachable as HTML, with the site-level links and its alternates in header and `<head>`. */
export async function checkPage(ctx: CheckContext, found: { url: string; via: string } | { problem: string }): Promise<CheckOutcome[]> {
  const names = { page: checkName('page'), header: checkName('page-link-header'), head: checkName('page-head') } as const;
  if ('problem' in found) {
    const fix = 'Give the page to check with --page <url>, or list pages in llms.txt, a sitemap or a search API.';
    const root = fail('page', names.page, found.problem, fix);
    return [root, blocked('page-link-header', names.header, root), blocked('page-head', names.head, root)];
  }
  const { res } = await fetchHtml(ctx, found.url, false);
  const problem = notHtml(res);
  if (problem || res.error !== undefined) {
    const fix = 'The page must answer 200 with HTML to anonymous visitors, without a redirect.';
    const root = fail('page', names.page, `${short(found.url, ctx.origin)} ${problem}`, fix);
    return [root, blocked('page-link-header', names.header, root), blocked('page-head', names.head, root)];
  }
  const view: PageView = readPage(res);
  ctx.page = { view, via: found.via };
  const results = [pass('page', names.page, `${short(found.url, ctx.origin)} (${found.via})`)];
  const headerProblems = [...missingRels(view.headerLinks, SITE_RELS).map((r) => `lacks ${r}`), ...alternateProblems(view.headerLinks, true)];
  results.push(
    headerProblems.length
      ? fail('page-link-header', names.header, headerProblems.join('; '), FIX_PAGE_HEADER)
      : pass('page-link-header', names.header, `${relList(view.headerLinks)}; Markdown and JSON alternates, Markdown last`),
  );
  const headProblems = [...missingRels(view.headLinks, SITE_RELS).map((r) => `lacks ${r}`), ...alternateProblems(view.headLinks, false)];
  results.push(
    headProblems.length
      ? fail('page-head', names.head, headProblems.join('; '), FIX_PAGE_HEAD)
      : pass('page-head', names.head, `${relList(view.headLinks)}; Markdown and JSON alternates`),
  );
  return results;
}
