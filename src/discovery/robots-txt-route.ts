import { PATHS } from '../paths.js';
import { resolveOnBase } from '../http/urls.js';
import { contentSignalsOf } from '../settings/ai-preferences.js';
import { effectiveSettings } from '../settings/effective-settings.js';
import { loadAgentCatalogue } from '../traffic/agent-catalogue.js';
import { documentRoute } from './document-route.js';
import { buildRobotsTxt } from './robots-txt.js';
import { policyInForce } from '../policy/policy-settings.js';
import { blockedRobotsGroups, buildRslLicense } from '../policy/policy-renderings.js';
import { parseSiteLicense } from '../settings/site-license.js';

/**
 * `GET /license.xml` (with the `robotsTxt` option, which names it in its `License:` line): the RSL 1.0 licence
 * of the site, written from the agent policy in force, the site licence and the copyright line.
 */
export function licenseXmlRoute() {
  return documentRoute(PATHS.licenseXml, 'application/rsl+xml; charset=utf-8', async (ctx, base) => {
    const settings = await effectiveSettings(ctx);
    const license = settings.siteLicense ? parseSiteLicense(settings.siteLicense) : undefined;
    return {
      body: buildRslLicense({
        policy: policyInForce(settings),
        catalogue: ctx.agents?.catalogue ?? loadAgentCatalogue(),
        siteLicense: license?.ok ? license.license : undefined,
        copyright: settings.siteCopyright || undefined,
        base: resolveOnBase(base, '/'),
        signals: contentSignalsOf(settings),
      }),
    };
  });
}

/**
 * `GET /robots.txt` (only with the `robotsTxt` option): the crawler rules and Content Signals of the
 * admin Settings (the signals else the `contentSignals` option's) and the absolute sitemap URL (the
 * plugin's own by default with the `sitemap` option), read on every request.
 */
export function robotsTxtRoute() {
  return documentRoute(PATHS.robotsTxt, 'text/plain; charset=utf-8', async (ctx, base) => {
    const settings = await effectiveSettings(ctx);
    const policy = policyInForce(settings);
    return {
      body: buildRobotsTxt({
        rules: settings.crawlerRules,
        signals: contentSignalsOf(settings),
        sitemapUrl: settings.sitemapUrl ? resolveOnBase(base, settings.sitemapUrl) : undefined,
        blocked: ctx.agents ? blockedRobotsGroups(policy, ctx.agents.catalogue) : [],
        licenseUrl: resolveOnBase(base, PATHS.licenseXml.url()),
      }),
    };
  });
}
