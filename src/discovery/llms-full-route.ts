import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AgentContext } from '../context.js';
import { PATHS } from '../paths.js';
import { chooseLanguage } from '../content/language.js';
import { readNewestResources } from '../content/newest-resources.js';
import { markdownDocument } from '../representations/resource-markdown.js';
import { composeResourceContent } from '../representations/resource-content.js';
import { unavailable } from '../http/errors.js';
import { fixedBody } from '../http/representation.js';
import type { TextBody } from '../http/route.js';
import { absoluteUrl } from '../http/urls.js';
import type { ResolvedOptions } from '../options.js';
import { mergeSettings, settingsKey } from '../settings/effective-settings.js';
import { readSiteSnapshot } from '../settings/settings-store.js';
import { defaultDescription } from '../settings/default-texts.js';
import { documentRoute } from './document-route.js';
import { assembleLlmsFull, type LlmsFullEntry, type LlmsFullFrame } from './llms-full.js';
import { assembleFromKept } from './llms-full-pieces.js';
import { withBudget } from '../http/budget.js';
import { newestResources } from './site-content.js';
import { MEDIA } from '../links/site-links.js';
import { OneBuildAtATime } from './one-build-at-a-time.js';

/** The most resources the first statement of a build reads, and any later one. */
const FIRST_CHUNK = 10;
const CHUNK = 50;

/**
 * The newest public, indexable resources (`sort=newest`, as the search lists them) with their
 * Markdown as the Markdown read serves it, in the site default language when they have it. Each
 * statement reads a chunk of them whole (`readNewestResources`): 10 first, then no more than would
 * fill the `room()` left at the smallest size a resource took so far, plus one (which tells whether
 * the rest were cut), and never more than 50. Each resource is composed in a turn of its own
 * (conversion of large bodies runs in the worker threads), so a long build never holds the event loop.
 */
async function* newestMarkdown(ctx: AgentContext, options: ResolvedOptions, base: string, room: () => number): AsyncGenerator<LlmsFullEntry> {
  if (options.noindex) return;
  let smallest = Infinity;
  let after: readonly number[] | undefined;
  do {
    const limit = smallest === Infinity ? FIRST_CHUNK : Math.min(CHUNK, Math.floor(room() / smallest) + 1);
    const page = await readNewestResources(ctx.db, { siteNoindex: false, after, limit });
    const listed = newestResources(page.rows, options);
    for (const [i, row] of page.rows.entries()) {
      const { id, title, language } = listed[i]!;
      await nextTurn();
      // As the Markdown read answers a request for `language` (`markdownRepresentation`).
      const lang = chooseLanguage(row.language, language, ctx.options.defaultLanguage);
      const markdown = markdownDocument(ctx, row, lang, base, options, await composeResourceContent(ctx, row, lang.language, base));
      const before = room();
      yield { title, url: absoluteUrl(base, PATHS.markdown.url({ id }), { language: lang.language }), markdown };
      // Resumed only when it fitted: it took what the room lost.
      smallest = Math.min(smallest, before - room());
    }
    after = page.next;
  } while (after);
}

/** The llms-full.txt frame (title, summary, budget, where to continue) for a public base, with the settings in `options`. */
function llmsFullFrame(options: ResolvedOptions, base: string, maxBytes: number): LlmsFullFrame {
  return {
    siteTitle: options.siteTitle,
    summary: options.description || defaultDescription(options.siteTitle),
    maxBytes,
    searchUrl: absoluteUrl(base, PATHS.search.url(), { sort: 'newest' }),
    llmsTxtUrl: absoluteUrl(base, PATHS.llmsTxt.url()),
  };
}

/** The llms-full.txt body for a public base, within the `llmsFull` byte budget, with the settings in `options`, every resource composed now. */
async function buildLlmsFull(ctx: AgentContext, options: ResolvedOptions, base: string, maxBytes: number): Promise<string> {
  return assembleLlmsFull(llmsFullFrame(options, base, maxBytes), (room) => newestMarkdown(ctx, options, base, room));
}

/**
 * How long a request for llms-full.txt waits for the build it shares (when longer than `budgetMs`):
 * a build of a large site on a busy machine can take longer than a request's budget, and a 504 would
 * only make the agent ask again for the same build. Each statement of the build keeps the budget.
 */
export const LLMS_FULL_WAIT_MS = 60_000;

/** How many times a build is started again when the content changed while it ran. */
const BUILD_ATTEMPTS = 3;

/**
 * A build that read one version of the content. With exact composition keys (content in tables, the
 * cache on) it is assembled from the kept compositions of one listing's snapshot (`assembleFromKept`:
 * a write costs the compositions it touched, never a new build). Otherwise its statements run one
 * after another (chunks of resources, each resource's composition), so a write between them could mix
 * two versions in one document: the content version is read before and after; when it changed, the
 * build starts again (at most {@link BUILD_ATTEMPTS} times in all; under writes that never pause, the
 * last build is served, each of its parts public when it was read).
 */
async function buildOfOneVersion(ctx: AgentContext, options: ResolvedOptions, settings: string, base: string, maxBytes: number): Promise<string> {
  if (ctx.exactCompositions) {
    return assembleFromKept(ctx, options, settings, base, maxBytes, (source) => assembleLlmsFull(llmsFullFrame(options, base, maxBytes), source));
  }
  for (let attempt = 1; ; attempt++) {
    const before = (await readSiteSnapshot(ctx.db)).content.version;
    const body = await buildLlmsFull(ctx, options, base, maxBytes);
    if (before === null || attempt >= BUILD_ATTEMPTS || (await readSiteSnapshot(ctx.db)).content.version === before) return body;
  }
}

/**
 * The builds of llms-full.txt in this process: one at a time. Requests for the document being built
 * (the same plugin instance and public base) share its result; one build for another base may wait
 * its turn; beyond that a request gets 503 with `Retry-After`.
 */
export const llmsFullBuilds = new OneBuildAtATime<TextBody>();

/** A build refused because others run and wait. */
const BUSY = new Error('llms-full.txt: builds of other versions run');

/** Each plugin instance's own key prefix (two instances in one process build their own documents). */
const instanceKeys = new WeakMap<AgentContext, number>();
let instances = 0;
const instanceKey = (ctx: AgentContext): number => {
  let key = instanceKeys.get(ctx);
  if (key === undefined) instanceKeys.set(ctx, (key = ++instances));
  return key;
};

/**
 * `GET /llms-full.txt` (with the `llmsFull` option). Built once per settings version, content key
 * (the content version and publication window, `ContentClock`) and public base, and kept in the
 * plugin's cache: a request during the build of its key waits for that build; a request that saw a
 * newer version starts (or waits for) the build of its own. Over content whose version is not kept
 * by every write (`cache.contentVersioned` false), every request builds (shared while one runs).
 */
export function llmsFullRoute(maxBytes: number) {
  return documentRoute(PATHS.llmsFull, MEDIA.llmsTxt, async (ctx, base) => {
    for (;;) {
      // The version is read under the request budget (the long wait is for a build that makes progress).
      const { options, contentKey } = await withBudget(ctx.options.budgetMs, async () => {
        const site = await readSiteSnapshot(ctx.db);
        return { options: mergeSettings(ctx.options, site.settings).options, contentKey: await ctx.contentClock.key(site.content) };
      });
      const settings = settingsKey(options);
      const build = () => {
        // Its bytes and ETag worked out once for every request sharing the build (`fixedBody`), not once each.
        const shared = llmsFullBuilds.run(`${instanceKey(ctx)} ${settings} ${contentKey ?? 'unkept'} ${base}`, async () =>
          fixedBody({ body: await buildOfOneVersion(ctx, options, settings, base, maxBytes) }),
        );
        if (!shared) throw BUSY;
        return shared;
      };
      try {
        if (contentKey === undefined) return await build();
        return await ctx.cache.get(['llms-full', settings, contentKey, base, maxBytes], build, (body) => body.body.length);
      } catch (error) {
        if (error !== BUSY) throw error;
        // Builds of other versions run and wait: with versioned content, wait for them to end, then read the version again.
        // (A key is also missing when the version changed while its window was read: wait then too.)
        if (!ctx.contentClock.enabled) throw unavailable('llms-full.txt is being built for another request; retry shortly');
        await llmsFullBuilds.idle();
      }
    }
  }, true, LLMS_FULL_WAIT_MS);
}
