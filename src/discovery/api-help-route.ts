import type { z } from 'zod';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import type { OperationSpec } from '../http/operations.js';
import { fixedBody } from '../http/representation.js';
import type { TextBody } from '../http/route.js';
import { absoluteUrl } from '../http/urls.js';
import { discoveryVariable, renderApiHelp } from './api-help.js';
import { documentRoute } from './document-route.js';
import { perSettingsCache } from './per-settings-cache.js';
import { exampleSearchWord, newestWithOptions } from './site-content.js';
import { MEDIA } from '../links/site-links.js';

/** How many example searches' pages are kept per settings value and base (the newest resource changes rarely). */
const PAGES_PER_EXAMPLE = 4;

/**
 * `GET /api-help`: the help page rendered from the `agent_api_help` template, with a search example
 * that finds the newest public resource (a word the search operation's `text` parameter accepts).
 *
 * Every request reads the settings and the newest resource and chooses the example anew. The page is
 * a function of the settings, the public base and that example alone (the template is compiled once
 * and never reloaded, like every template of the plugin's environment), so each combination is
 * rendered once: the same inputs give the same bytes, and a new newest resource or a changed setting
 * gives a new page on the next request.
 */
export function apiHelpRoute(options: ResolvedOptions, operations: () => readonly OperationSpec[]) {
  // The search operation's own `text` parameter (from the route table) decides which word the example may use.
  let searchText: z.ZodType | undefined;
  const acceptsSearchText = (text: string): boolean => {
    searchText ??= operations().find((o) => o.path === PATHS.search.template)?.query.shape.text;
    return searchText?.safeParse(text).success ?? false;
  };
  const forSettings = perSettingsCache((site, base) => ({
    discovery: discoveryVariable(site, base, operations(), undefined),
    pages: new Map<string | null, TextBody>(),
  }));
  return documentRoute(PATHS.apiHelp, MEDIA.html, async (ctx, base) => {
    const { options, newest } = await newestWithOptions(ctx, 1);
    const word = exampleSearchWord(newest[0], options.defaultLanguage, acceptsSearchText);
    const { discovery, pages } = forSettings(options, base);
    const search = word ? absoluteUrl(base, PATHS.search.url(), { text: word, pagelen: 5 }) : null;
    let page = pages.get(search);
    if (page === undefined) {
      page = fixedBody({ body: renderApiHelp(ctx.templates, { ...discovery, examples: { ...discovery.examples, search } }) });
      if (pages.size >= PAGES_PER_EXAMPLE) pages.delete(pages.keys().next().value!);
      pages.set(search, page);
    }
    return page;
  });
}
