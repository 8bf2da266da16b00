import type { z } from 'zod';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import type { OperationSpec } from '../http/operations.js';
import { fixedBody } from '../http/representation.js';
import { absoluteUrl } from '../http/urls.js';
import { discoveryVariable, renderApiHelp } from './api-help.js';
import { documentRoute } from './document-route.js';
import { cachedPerSettings } from './cached-document.js';
import { settingsKey } from '../settings/effective-settings.js';
import { exampleSearchWord, newestWithOptions } from './site-content.js';
import { MEDIA } from '../links/site-links.js';

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
  const discoveryOf = cachedPerSettings('api-help discovery', (site, base) => discoveryVariable(site, base, operations(), undefined));
  return documentRoute(PATHS.apiHelp, MEDIA.html, async (ctx, base) => {
    const { options, newest } = await newestWithOptions(ctx, 1);
    const word = exampleSearchWord(newest[0], options.defaultLanguage, acceptsSearchText);
    const discovery = discoveryOf(ctx, options, base);
    const search = word ? absoluteUrl(base, PATHS.search.url(), { text: word, pagelen: 5 }) : null;
    return ctx.cache.get(['api-help', settingsKey(options), base, search], () =>
      fixedBody({ body: renderApiHelp(ctx.templates, { ...discovery, examples: { ...discovery.examples, search } }) }),
    );
  });
}
