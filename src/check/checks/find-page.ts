import { ACCEPT, isObject, llmsLinks, parseJson, resolve, short, type CheckContext } from '../context.js';
import { mediaType, sameOrigin } from '../site-client.js';

/** A page to check, and how it was found; or why none was. */
export type FoundPage = { url: string; via: string } | { problem: string };

/** The `url` of a Markdown document's YAML front matter. */
function frontMatterUrl(markdown: string): string | undefined {
  const block = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(markdown)?.[1];
  const value = block && /^url:\s*(.+?)\s*$/m.exec(block)?.[1];
  return value ? value.replace(/^(["'])(.*)\1$/, '$2') : undefined;
}

/** The `<loc>` URLs of a sitemap document. */
export function sitemapLocations(xml: string): string[] {
  return [...xml.matchAll(/<loc>\s*([^<]+?)\s*<\/loc>/gi)].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

/** The sitemap URL: the one llms.txt links, else `/sitemap.xml`. */
export function sitemapUrl(ctx: CheckContext): string {
  return llmsLinks(ctx).find((l) => /sitemap[^/]*\.xml(?:$|\?)/i.test(l.url))?.url ?? `${ctx.origin}/sitemap.xml`;
}

/** The search endpoint llms.txt links (a link whose path ends in `/search`), if any. */
export function searchUrl(ctx: CheckContext): string | undefined {
  return llmsLinks(ctx).find((l) => sameOrigin(l.url, ctx.origin) && /\/search$/.test(new URL(l.url).pathname))?.url;
}

/** The items of a search answer (`{ result: { items } }` or `{ items }`). */
export function searchItems(body: string): Array<Record<string, unknown>> {
  const json = parseJson(body);
  const result = isObject(json) && isObject(json.result) ? json.result : json;
  return isObject(result) && Array.isArray(result.items) ? result.items.filter(isObject) : [];
}

const isHome = (url: string, ctx: CheckContext) => new URL(url).pathname === '/';

/**
 * A public, indexable resource page: `--page`, else the first entry of llms.txt's newest section (a
 * page, or a Markdown document whose front matter `url` is the page), else the first sitemap entry
 * that is not the home page, else the `page_url` of the first search result.
 */
export async function findPage(ctx: CheckContext): Promise<FoundPage> {
  if (ctx.pageUrl) return { url: ctx.pageUrl, via: 'given with --page' };
  const newest = llmsLinks(ctx).find((l) => /newest|latest|recent/i.test(l.section) && sameOrigin(l.url, ctx.origin));
  if (newest) {
    const res = await ctx.client.fetch(newest.url, { accept: ACCEPT.markdown });
    if (res.error === undefined && res.status === 200) {
      if (mediaType(res) === 'text/html') return { url: newest.url, via: `llms.txt section "${newest.section}"` };
      const page = frontMatterUrl(res.body);
      const url = page && resolve(page, newest.url);
      if (url && sameOrigin(url, ctx.origin)) return { url, via: `front matter of ${short(newest.url, ctx.origin)}, llms.txt section "${newest.section}"` };
    }
  }
  const sitemap = await ctx.client.fetch(sitemapUrl(ctx), { accept: 'application/xml, text/xml, */*;q=0.5' });
  if (sitemap.error === undefined && sitemap.status === 200) {
    const loc = sitemapLocations(sitemap.body).find((u) => sameOrigin(u, ctx.origin) && !isHome(u, ctx));
    if (loc) return { url: loc, via: 'the sitemap' };
  }
  const search = searchUrl(ctx);
  if (search) {
    const res = await ctx.client.fetch(search, { accept: ACCEPT.json });
    const item = res.error === undefined && res.status === 200 ? searchItems(res.body).find((i) => typeof i.page_url === 'string') : undefined;
    const url = item && resolve(String(item.page_url), search);
    if (url && sameOrigin(url, ctx.origin)) return { url, via: 'the page_url of a search result' };
  }
  return { problem: 'no page found in llms.txt (a newest section), the sitemap or a search result' };
}
