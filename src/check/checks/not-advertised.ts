import { PATHS } from '../../paths.js';
import { isPageUrlRef, pagePathKey } from '../../page-url-forms.js';
import { ACCEPT, isObject, llmsLinks, parseJson, resolve, short, type CheckContext } from '../context.js';
import { linksWith, readPage } from '../page-view.js';
import { describeResponse, sameOrigin } from '../site-client.js';
import { fail, pass, plural, type CheckOutcome } from '../report.js';
import { searchItems, searchUrl, sitemapLocations, sitemapUrl } from './find-page.js';

/** `--private` or `--noindex`: what the resource is, and so where it must not appear. */
export type HiddenKind = 'private' | 'noindex';

/** A resource to confirm hidden: a page URL, or the id or name the content API knows it by. */
export interface HiddenRef {
  readonly kind: HiddenKind;
  readonly ref: string;
}

const FIX: Record<HiddenKind, string> = {
  private:
    'A private resource must appear nowhere agents look: not in llms.txt, the sitemap, search results or any page\'s alternates, and its ' +
    'facade read must be 404. Check the visibility columns the plugin reads (or your own listings that bypass them).',
  noindex:
    'A noindex resource may be read directly but must not be advertised: not in llms.txt, the sitemap or search results, and its page ' +
    'carries no Markdown or JSON alternates.',
};

/**
 * Whether a URL points at the resource: for a URL reference, the same origin and path (query
 * ignored); for an id or name, a path segment equal to it or an `id` query parameter.
 */
function refMatcher(ref: string, origin: string): (url: string) => boolean {
  if (isPageUrlRef(ref)) {
    const target = pagePathKey(new URL(ref, `${origin}/`));
    return (url) => {
      try {
        return pagePathKey(new URL(url)) === target;
      } catch {
        return false;
      }
    };
  }
  return (url) => {
    try {
      const u = new URL(url);
      return u.pathname.split('/').some((s) => safeDecode(s) === ref) || u.searchParams.get('id') === ref;
    } catch {
      return false;
    }
  };
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

const URL_FIELDS = ['uri', 'page_url', 'json_url', 'markdown_url'] as const;

/** Confirms one resource is not advertised anywhere the checks can see. */
export async function checkNotAdvertised(ctx: CheckContext, { kind, ref }: HiddenRef): Promise<CheckOutcome> {
  const id = `${kind}:${ref}`;
  const name = `${kind === 'private' ? 'Private' : 'Noindex'} resource ${ref} is not advertised`;
  const found: string[] = [];
  const looked: string[] = [];
  let readNote = '';

  // An id or name: its facade read (a private one must be 404; a noindex one may be read, and names
  // its numeric id and page). A URL: its page.
  const aliases = [ref];
  let pageUrl: string | undefined = isPageUrlRef(ref) ? resolve(ref, `${ctx.origin}/`) : undefined;
  if (!isPageUrlRef(ref)) {
    const read = await ctx.client.fetch(PATHS.resource.url({ id: ref }), { accept: ACCEPT.json });
    if (read.error !== undefined) found.push(`the facade read could not be checked (${read.error})`);
    else if (kind === 'private' && read.status !== 404) found.push(`the facade read ${PATHS.resource.url({ id: ref })} ${describeResponse(read)}, not 404`);
    else {
      readNote = `facade read ${read.status}; `;
      const body = parseJson(read.body);
      const result = read.status === 200 && isObject(body) && isObject(body.result) ? body.result : undefined;
      if (result && (typeof result.id === 'number' || typeof result.id === 'string')) aliases.push(String(result.id));
      if (result && typeof result.page_url === 'string' && sameOrigin(result.page_url, ctx.origin)) pageUrl = result.page_url;
    }
  }
  const matchers = aliases.map((a) => refMatcher(a, ctx.origin));
  const matches = (url: string) => matchers.some((m) => m(url));

  if (ctx.llms) {
    found.push(...llmsLinks(ctx).filter((l) => matches(l.url)).map((l) => `llms.txt links it (${short(l.url, ctx.origin)})`));
    looked.push('llms.txt');
  }
  for (const [label, view] of [['the home page', ctx.home], ['the checked page', ctx.page?.view]] as const) {
    if (!view) continue;
    const links = [...view.headerLinks, ...view.headLinks].filter((l) => l.rels.includes('alternate') && matches(l.href));
    found.push(...links.map((l) => `${label} has an alternate to it (${short(l.href, ctx.origin)})`));
  }
  looked.push('home and page links');

  const sitemap = await ctx.client.fetch(sitemapUrl(ctx), { accept: 'application/xml, text/xml, */*;q=0.5' });
  if (sitemap.error === undefined && sitemap.status === 200) {
    const locs = sitemapLocations(sitemap.body);
    found.push(...locs.filter(matches).map((u) => `the sitemap lists it (${short(u, ctx.origin)})`));
    looked.push(`sitemap (${plural(locs.length, 'entry', 'entries')})`);
  }
  const search = searchUrl(ctx);
  if (search) {
    const res = await ctx.client.fetch(search, { accept: ACCEPT.json });
    const items = res.error === undefined && res.status === 200 ? searchItems(res.body) : [];
    const hits = items.filter((item) => aliases.includes(String(item.id)) || URL_FIELDS.some((f) => typeof item[f] === 'string' && matches(item[f])));
    if (hits.length) found.push('the first page of search results lists it');
    looked.push(`search (first page, ${plural(items.length, 'item', 'items')})`);
  }

  // Its own page carries no Markdown or JSON alternates.
  if (pageUrl && sameOrigin(pageUrl, ctx.origin)) {
    const res = await ctx.client.fetch(pageUrl, { accept: ACCEPT.fetcher });
    if (res.error === undefined) {
      const view = readPage(res);
      const links = [...view.headerLinks, ...view.headLinks];
      const alternates = [...linksWith(links, 'alternate', 'text/markdown'), ...linksWith(links, 'alternate', 'application/json')];
      if (alternates.length) found.push(`its page ${short(pageUrl, ctx.origin)} advertises ${alternates.length} Markdown/JSON alternates`);
      looked.push(`its page (${res.status})`);
    }
  }
  return found.length ? fail(id, name, found.join('; '), FIX[kind]) : pass(id, name, `${readNote}not in ${looked.join(', ')}`);
}
