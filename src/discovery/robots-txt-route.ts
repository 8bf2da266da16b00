import { PATHS } from '../paths.js';
import { resolveOnBase } from '../http/urls.js';
import { contentSignalsOf } from '../settings/ai-preferences.js';
import { effectiveSettings } from '../settings/effective-settings.js';
import { documentRoute } from './document-route.js';
import { buildRobotsTxt } from './robots-txt.js';

/**
 * `GET /robots.txt` (only with the `robotsTxt` option): the crawler rules and Content Signals of the
 * admin Settings (the signals else the `contentSignals` option's) and the absolute sitemap URL (the
 * plugin's own by default with the `sitemap` option), read on every request.
 */
export function robotsTxtRoute() {
  return documentRoute(PATHS.robotsTxt, 'text/plain; charset=utf-8', async (ctx, base) => {
    const settings = await effectiveSettings(ctx);
    return {
      body: buildRobotsTxt({
        rules: settings.crawlerRules,
        signals: contentSignalsOf(settings),
        sitemapUrl: settings.sitemapUrl ? resolveOnBase(base, settings.sitemapUrl) : undefined,
      }),
    };
  });
}
