import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AgentContext } from '../context.js';
import { PATHS } from '../paths.js';
import { searchResources } from '../content/search.js';
import { markdownRepresentation } from '../representations/resource-markdown.js';
import { unavailable } from '../http/errors.js';
import { absoluteUrl } from '../http/urls.js';
import type { ResolvedOptions } from '../options.js';
import { effectiveOptions } from '../settings/effective-settings.js';
import { defaultDescription } from '../settings/default-texts.js';
import { documentRoute } from './document-route.js';
import { assembleLlmsFull, type LlmsFullEntry } from './llms-full.js';
import { newestResources } from './site-content.js';
import { MEDIA } from '../links/site-links.js';
import { OneBuildAtATime } from './one-build-at-a-time.js';

/** How many resources each search of the build reads. */
const PAGE = 50;

/**
 * The newest public, indexable resources (`sort=newest`, as the search lists them) with their
 * Markdown as the Markdown read serves it, in the site default language when they have it. Read page
 * by page, only as far as the caller iterates; each resource is composed in a turn of its own
 * (conversion of large bodies runs in the worker threads), so a long build never holds the event loop.
 */
async function* newestMarkdown(ctx: AgentContext, options: ResolvedOptions, base: string): AsyncGenerator<LlmsFullEntry> {
  if (options.noindex) return;
  for (let offset = 0; ; offset += PAGE) {
    const rows = await searchResources(ctx.db, { sort: 'newest', siteNoindex: false, offset, limit: PAGE });
    for (const r of newestResources(rows, options)) {
      await nextTurn();
      const markdown = await markdownRepresentation(ctx, r.id, r.language, base);
      if (!markdown) continue;
      yield { title: r.title, url: absoluteUrl(base, PATHS.markdown.url({ id: r.id }), { language: markdown.language }), markdown: markdown.body };
    }
    if (rows.length < PAGE) return;
  }
}

/** The llms-full.txt body for a public base, within the `llmsFull` byte budget. */
async function buildLlmsFull(ctx: AgentContext, base: string, maxBytes: number): Promise<string> {
  const options = await effectiveOptions(ctx);
  return assembleLlmsFull(
    {
      siteTitle: options.siteTitle,
      summary: options.description || defaultDescription(options.siteTitle),
      maxBytes,
      searchUrl: absoluteUrl(base, PATHS.search.url(), { sort: 'newest' }),
      llmsTxtUrl: absoluteUrl(base, PATHS.llmsTxt.url()),
    },
    newestMarkdown(ctx, options, base),
  );
}

/**
 * The builds of llms-full.txt in this process: one at a time. Requests for the document being built
 * (the same plugin instance and public base) share its result; one build for another base may wait
 * its turn; beyond that a request gets 503 with `Retry-After`.
 */
export const llmsFullBuilds = new OneBuildAtATime<string>();

/** Each plugin instance's own key prefix (two instances in one process build their own documents). */
const instanceKeys = new WeakMap<AgentContext, number>();
let instances = 0;
const instanceKey = (ctx: AgentContext): number => {
  let key = instanceKeys.get(ctx);
  if (key === undefined) instanceKeys.set(ctx, (key = ++instances));
  return key;
};

/** `GET /llms-full.txt` (with the `llmsFull` option). */
export function llmsFullRoute(maxBytes: number) {
  return documentRoute(PATHS.llmsFull, MEDIA.llmsTxt, async (ctx, base) => {
    const shared = llmsFullBuilds.run(`${instanceKey(ctx)} ${base}`, () => buildLlmsFull(ctx, base, maxBytes));
    if (!shared) throw unavailable('llms-full.txt is being built for another request; retry shortly');
    return { body: await shared };
  });
}
