import { checkName } from '../check-catalog.js';
import { isObject, short, type CheckContext } from '../context.js';
import { linksWith, type SeenLink } from '../page-view.js';
import { sameOrigin } from '../site-client.js';
import { fail, pass, skip, type CheckOutcome } from '../report.js';

const NAME = checkName('translations');
const FIX =
  'Name every language version of a page in its Link header and <head> (rel="alternate"; hreflang="…"; type="text/html"): ' +
  'with express-agent-discovery, agent.resourceLinks({ id, language }) and headLinks(req, id, { language }) add them from the languages the resource has.';

/** Which of `pages` (language → URL) `links` name with `hreflang` and `text/html`. */
function missing(links: readonly SeenLink[], pages: ReadonlyArray<[string, string]>): string[] {
  const html = linksWith(links, 'alternate', 'text/html');
  return pages.filter(([lang, url]) => !html.some((l) => l.hreflang?.toLowerCase() === lang.toLowerCase() && l.href === url)).map(([lang]) => lang);
}

/**
 * A page whose resource has two or more languages (the JSON read's `page_urls`) names each of them
 * with `hreflang` in its Link header and `<head>`; a resource in one language has nothing to check.
 */
export function checkTranslations(ctx: CheckContext, pageUrls: unknown): CheckOutcome {
  const view = ctx.page!.view;
  if (!isObject(pageUrls)) return skip('translations', NAME, 'the JSON read names no page_urls: no language versions to compare');
  const pages = Object.entries(pageUrls).flatMap(([lang, url]): Array<[string, string]> => {
    if (typeof url !== 'string') return [];
    try {
      const absolute = new URL(url, view.url).toString();
      return sameOrigin(absolute, ctx.origin) ? [[lang, absolute]] : [];
    } catch {
      return [];
    }
  });
  if (pages.length < 2) return skip('translations', NAME, `the resource has one language${pages[0] ? ` (${pages[0][0]})` : ''}: no translations to link`);
  const problems = [
    ...missing(view.headerLinks, pages).map((lang) => `the Link header does not name the ${lang} version`),
    ...missing(view.headLinks, pages).map((lang) => `<head> does not name the ${lang} version`),
  ];
  return problems.length
    ? fail('translations', NAME, `${short(view.url, ctx.origin)}: ${problems.join('; ')}`, FIX)
    : pass('translations', NAME, `${pages.map(([lang, url]) => `${lang} ${short(url, ctx.origin)}`).join(', ')} in header and <head>`);
}
