import { createHash, randomBytes } from 'node:crypto';
import { PATHS } from '../../paths.js';
import { checkName } from '../check-catalog.js';
import { ACCEPT, isObject, parseJson, short, type CheckContext } from '../context.js';
import { describeResponse, mediaType, sameOrigin, type SiteResponse } from '../site-client.js';
import { fail, pass, skip, type CheckOutcome } from '../report.js';
import { FOREIGN_ORIGIN } from './cors.js';
import { sitemapUrl } from './find-page.js';

const ok = (res: SiteResponse): res is Extract<SiteResponse, { status: number }> => res.error === undefined && res.status >= 200 && res.status < 300;

/** The path of the page being checked. */
const pagePath = (ctx: CheckContext) => new URL(ctx.page!.view.url).pathname;

/** `<page URL>.md` and `/index.md` answer Markdown (200 `text/markdown`), whatever the Accept. */
export async function checkMarkdownTwins(ctx: CheckContext): Promise<CheckOutcome> {
  const name = checkName('md-twins');
  if (!ctx.page) return skip('md-twins', name, 'no page to check');
  const problems: string[] = [];
  for (const path of [`${pagePath(ctx).replace(/\/$/, '')}.md`, '/index.md']) {
    const res = await ctx.client.fetch(path, { accept: '*/*' });
    if (!ok(res) || res.status !== 200) problems.push(`GET ${path} ${describeResponse(res)}`);
    else if (mediaType(res) !== 'text/markdown') problems.push(`GET ${path} is ${mediaType(res) || 'no Content-Type'}, not text/markdown`);
  }
  return problems.length
    ? fail('md-twins', name, problems.join('; '), 'Answer <page URL>.md and /index.md with the page\'s Markdown (as Ghost and Mintlify do): with express-agent-discovery, the markdownTwins option.')
    : pass('md-twins', name, `${short(pagePath(ctx), ctx.origin)}.md and /index.md answer text/markdown`);
}

/** A page URL that does not exist, asked for in Markdown, is a Markdown 404 (not the host's HTML page). */
export async function checkMarkdownNotFound(ctx: CheckContext): Promise<CheckOutcome> {
  const name = checkName('markdown-404');
  if (!ctx.page) return skip('markdown-404', name, 'no page to check');
  const dir = pagePath(ctx).replace(/[^/]*\/?$/, '');
  const missing = `${dir}check-missing-${randomBytes(5).toString('hex')}`;
  const res = await ctx.client.fetch(missing, { accept: ACCEPT.markdownAgent });
  const problem =
    res.error !== undefined || res.status !== 404 ? `GET ${missing} ${describeResponse(res)}, not 404` : mediaType(res) !== 'text/markdown' ? `GET ${missing} answered 404 as ${mediaType(res) || 'no Content-Type'}` : undefined;
  return problem
    ? fail('markdown-404', name, problem, "Answer an agent that asked for Markdown with a Markdown 404: with express-agent-discovery, app.use(agent.markdownNotFound) before the host's 404 handler.")
    : pass('markdown-404', name, `${missing} (Markdown-first Accept) → 404 text/markdown`);
}

/** The page's Markdown answer is readable from another origin: `Access-Control-Allow-Origin: *`, no credentials. */
export async function checkPageMarkdownCors(ctx: CheckContext): Promise<CheckOutcome> {
  const name = checkName('cors-page-markdown');
  if (!ctx.page) return skip('cors-page-markdown', name, 'no page to check');
  const res = await ctx.client.fetch(ctx.page.view.url, { accept: ACCEPT.markdownAgent, headers: { origin: FOREIGN_ORIGIN } });
  const where = short(ctx.page.view.url, ctx.origin);
  let problem: string | undefined;
  if (!ok(res)) problem = `GET ${where} (Markdown-first Accept) ${describeResponse(res)}`;
  else if (res.headers.get('access-control-allow-origin') !== '*') problem = `the Markdown of ${where} has no Access-Control-Allow-Origin: *`;
  else if (res.headers.get('access-control-allow-credentials') === 'true') problem = `the Markdown of ${where} allows credentials`;
  return problem
    ? fail('cors-page-markdown', name, problem, 'Answer a browser agent\'s Markdown request on a page URL with Access-Control-Allow-Origin: *: with express-agent-discovery, the cors: true option.')
    : pass('cors-page-markdown', name, `${where} in Markdown is readable from another origin`);
}

/** The `<url>` entries of a urlset: location, lastmod and hreflang alternates. */
function urlEntries(xml: string): Array<{ loc: string; lastmod: string | undefined; alternates: string[] }> {
  return [...xml.matchAll(/<url>([\s\S]*?)<\/url>/gi)].map((m) => ({
    loc: (/<loc>\s*([^<]+?)\s*<\/loc>/i.exec(m[1]!)?.[1] ?? '').replace(/&amp;/g, '&'),
    lastmod: /<lastmod>\s*([^<]+?)\s*<\/lastmod>/i.exec(m[1]!)?.[1],
    alternates: [...m[1]!.matchAll(/<xhtml:link[^>]*\shref="([^"]+)"/gi)].map((a) => a[1]!.replace(/&amp;/g, '&')),
  }));
}

/**
 * A sitemap (the one robots.txt or llms.txt names, else `/sitemap.xml`): a urlset, or an index whose
 * first part is one, with full date-time `lastmod`s and reciprocal hreflang alternates.
 */
export async function checkSitemap(ctx: CheckContext): Promise<CheckOutcome> {
  const name = checkName('sitemap');
  const fix = 'Publish a sitemap of your pages with full date-time lastmod and hreflang alternates, named in robots.txt: with express-agent-discovery, the sitemap option.';
  const named = (ctx.robots ?? []).find(([f, v]) => f === 'sitemap' && sameOrigin(v, ctx.origin))?.[1] ?? sitemapUrl(ctx);
  const accept = 'application/xml, text/xml, */*;q=0.5';
  let res = await ctx.client.fetch(named, { accept });
  if (!ok(res)) return fail('sitemap', name, `GET ${short(named, ctx.origin)} ${describeResponse(res)}`, fix);
  let via = short(named, ctx.origin);
  if (/<sitemapindex[\s>]/i.test(res.body)) {
    const part = /<sitemap>\s*<loc>\s*([^<]+?)\s*<\/loc>/i.exec(res.body)?.[1]?.replace(/&amp;/g, '&');
    if (!part || !sameOrigin(part, ctx.origin)) return fail('sitemap', name, `the index ${via} names no part on this origin`, fix);
    res = await ctx.client.fetch(part, { accept });
    if (!ok(res)) return fail('sitemap', name, `its first part ${short(part, ctx.origin)} ${describeResponse(res)}`, fix);
    via = `${via} (index) → ${short(part, ctx.origin)}`;
  }
  const urls = urlEntries(res.body).filter((u) => sameOrigin(u.loc, ctx.origin));
  const problems: string[] = [];
  if (!urls.length) problems.push(`${via} lists no URL on this origin`);
  const dated = urls.filter((u) => u.lastmod !== undefined);
  const dateOnly = dated.filter((u) => !/T\d{2}:\d{2}/.test(u.lastmod!));
  if (!dated.length && urls.length > 1) problems.push('no lastmod');
  if (dateOnly.length) problems.push(`${dateOnly.length} lastmod without a time (${dateOnly[0]!.lastmod}): a full date-time is the recrawl signal`);
  const byLoc = new Map(urls.map((u) => [u.loc, u]));
  const oneWay = urls.filter((u) => u.alternates.some((a) => a !== u.loc && !(byLoc.get(a)?.alternates.includes(u.loc) ?? true)));
  if (oneWay.length) problems.push(`${oneWay.length} hreflang alternates not reciprocal (${short(oneWay[0]!.loc, ctx.origin)})`);
  return problems.length ? fail('sitemap', name, problems.join('; '), fix) : pass('sitemap', name, `${via}: ${urls.length} URLs, full date-time lastmod, hreflang reciprocal`);
}

/** The change feed (`/api/agent/changes`): entries with a type, id and time, a `resume_url` that answers, an empty page for a future `since`. */
export async function checkChangeFeed(ctx: CheckContext): Promise<CheckOutcome> {
  const name = checkName('change-feed');
  const fix = 'Tell agents what changed since their last visit (public resources changed, ids removed): with express-agent-discovery, GET /api/agent/changes comes with the facade.';
  const feed = PATHS.changes.url();
  const res = await ctx.client.fetch(`${feed}?pagelen=5`, { accept: ACCEPT.json });
  if (!ok(res)) return fail('change-feed', name, `GET ${feed} ${describeResponse(res)}`, fix);
  const json = parseJson(res.body);
  const result = isObject(json) && isObject(json.result) ? json.result : undefined;
  const items = result && Array.isArray(result.items) ? result.items.filter(isObject) : undefined;
  const problems: string[] = [];
  if (!items) problems.push(`${feed} has no items`);
  else {
    const bad = items.find((i) => !(i.type === 'changed' || i.type === 'removed') || typeof i.id !== 'number' || typeof i.at !== 'string');
    if (bad) problems.push(`an entry without its type, id and time: ${JSON.stringify(bad).slice(0, 120)}`);
    const talkative = items.find((i) => i.type === 'removed' && Object.keys(i).some((k) => !['type', 'id', 'at'].includes(k)));
    if (talkative) problems.push(`a removed entry says more than its id and time: ${Object.keys(talkative).join(', ')}`);
  }
  const resume = result && typeof result.resume_url === 'string' && sameOrigin(result.resume_url, ctx.origin) ? result.resume_url : undefined;
  if (!resume) problems.push('no resume_url on this origin');
  else {
    const again = await ctx.client.fetch(resume, { accept: ACCEPT.json });
    if (!ok(again)) problems.push(`its resume_url ${describeResponse(again)}`);
  }
  const future = await ctx.client.fetch(`${feed}?since=2999-01-01T00:00:00Z`, { accept: ACCEPT.json });
  const futureItems = ok(future) ? parseJson(future.body) : undefined;
  if (!isObject(futureItems) || !isObject(futureItems.result) || !Array.isArray(futureItems.result.items) || futureItems.result.items.length) {
    problems.push(`a since in the future ${ok(future) ? 'is not an empty page' : describeResponse(future)}`);
  }
  return problems.length ? fail('change-feed', name, problems.join('; '), fix) : pass('change-feed', name, `${feed}: ${items!.length} entries on its first page, resume_url answers, a future since is an empty page`);
}

/** Agent Skills Discovery v0.2: the index names `skill-md` skills whose `SKILL.md` bytes match their `sha256:` digest. */
export async function checkSkillsIndex(ctx: CheckContext): Promise<CheckOutcome> {
  const name = checkName('skills-index');
  const fix = 'Publish /.well-known/agent-skills/index.json (Agent Skills Discovery v0.2) listing a SKILL.md with its sha256 digest: express-agent-discovery serves one generated from its read API.';
  const index = PATHS.agentSkillsIndex.url();
  const res = await ctx.client.fetch(index, { accept: ACCEPT.json });
  if (!ok(res)) return fail('skills-index', name, `GET ${index} ${describeResponse(res)}`, fix);
  const json = parseJson(res.body);
  const skills = isObject(json) && Array.isArray(json.skills) ? json.skills.filter(isObject) : [];
  const problems: string[] = [];
  if (!isObject(json) || typeof json.$schema !== 'string' || !/agentskills\.io\/discovery\/0\.2/.test(json.$schema)) problems.push('no Agent Skills Discovery v0.2 $schema');
  if (!skills.length) problems.push('no skills listed');
  for (const skill of skills.slice(0, 3)) {
    const label = typeof skill.name === 'string' ? skill.name : '(unnamed)';
    if (typeof skill.name !== 'string' || !/^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/.test(skill.name)) problems.push(`${label}: not a valid skill name`);
    if (skill.type !== 'skill-md' || typeof skill.url !== 'string' || typeof skill.digest !== 'string') {
      problems.push(`${label}: not a skill-md entry with url and digest`);
      continue;
    }
    const url = new URL(skill.url, new URL(index, `${ctx.origin}/`)).toString();
    if (!sameOrigin(url, ctx.origin)) continue;
    const md = await ctx.client.fetch(url, { accept: 'text/markdown, text/plain' });
    if (!ok(md)) problems.push(`${label}: ${short(url, ctx.origin)} ${describeResponse(md)}`);
    else if (`sha256:${createHash('sha256').update(md.body, 'utf8').digest('hex')}` !== skill.digest) problems.push(`${label}: the SKILL.md does not match its digest`);
  }
  return problems.length ? fail('skills-index', name, problems.join('; '), fix) : pass('skills-index', name, `${skills.length} skill${skills.length === 1 ? '' : 's'}, SKILL.md matching its digest`);
}
