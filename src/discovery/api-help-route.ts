import type { z } from 'zod';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import type { OperationSpec } from '../http/operations.js';
import { absoluteUrl } from '../http/urls.js';
import { discoveryVariable, renderApiHelp } from './api-help.js';
import { documentRoute } from './document-route.js';
import { perSettingsCache } from './per-settings-cache.js';
import { exampleSearchWord, newestWithOptions } from './site-content.js';
import { MEDIA } from '../links/site-links.js';

/**
 * `GET /api-help`: the help page rendered from the `agent_api_help` template, with a search example
 * that finds the newest public resource (a word the search operation's `text` parameter accepts).
 */
export function apiHelpRoute(options: ResolvedOptions, operations: () => readonly OperationSpec[]) {
  // The search operation's own `text` parameter (from the route table) decides which word the example may use.
  let searchText: z.ZodType | undefined;
  const acceptsSearchText = (text: string): boolean => {
    searchText ??= operations().find((o) => o.path === PATHS.search.template)?.query.shape.text;
    return searchText?.safeParse(text).success ?? false;
  };
  const discovery = perSettingsCache((site, base) => discoveryVariable(site, base, operations(), undefined));
  return documentRoute(PATHS.apiHelp, MEDIA.html, async (ctx, base) => {
    const { options, newest } = await newestWithOptions(ctx, 1);
    const word = exampleSearchWord(newest[0], options.defaultLanguage, acceptsSearchText);
    const cached = discovery(options, base);
    const search = word ? absoluteUrl(base, PATHS.search.url(), { text: word, pagelen: 5 }) : null;
    return { body: renderApiHelp(ctx.templates, { ...cached, examples: { ...cached.examples, search } }) };
  });
}
