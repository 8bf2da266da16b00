import { contentSignalValue, contentUsageValue, type ContentSignals } from '../settings/ai-preferences.js';

/** What robots.txt says: the crawler rules, the AI usage preferences and the sitemap. */
export interface RobotsTxtInput {
  /** `Allow:`/`Disallow:` lines, one rule a line (validated when stored). */
  readonly rules: string;
  readonly signals: ContentSignals;
  /** The sitemap's absolute URL, when one is configured. */
  readonly sitemapUrl?: string | undefined;
  /** Groups of the agents the agent policy blocks (every token of each, the paths refused). */
  readonly blocked?: readonly { readonly tokens: readonly string[]; readonly disallow: readonly string[] }[];
  /** The RSL licence's absolute URL (`License:`). */
  readonly licenseUrl?: string | undefined;
}

/**
 * A robots.txt (RFC 9309) of one group for every crawler: the Content Signals and the same
 * preferences as an aipref `Content-Usage` rule (only those set; crawlers ignore rules they do not
 * know), the crawler rules, then the sitemap.
 *
 * ```text
 * User-agent: *
 * Content-Signal: search=yes, ai-input=yes, ai-train=no
 * Content-Usage: search=y, ai-use=y, train-ai=n
 * Allow: /
 *
 * Sitemap: https://example.org/sitemap.xml
 * ```
 */
export function buildRobotsTxt(input: RobotsTxtInput): string {
  const signal = contentSignalValue(input.signals);
  const usage = contentUsageValue(input.signals);
  const preferences = [...(signal ? [`Content-Signal: ${signal}`] : []), ...(usage ? [`Content-Usage: ${usage}`] : [])];
  // A crawler obeys only the most specific group naming it: each blocked agent's group repeats the site's rules.
  const groups = (input.blocked ?? []).flatMap((g) => [
    '',
    ...g.tokens.map((t) => `User-agent: ${t}`),
    ...preferences,
    ...g.disallow.map((p) => `Disallow: ${p}`),
    ...input.rules.split('\n').filter((r) => !(g.disallow.includes('/') && /^Allow:/i.test(r))),
  ]);
  return [
    'User-agent: *',
    ...preferences,
    ...input.rules.split('\n'),
    ...groups,
    ...(input.sitemapUrl || input.licenseUrl ? [''] : []),
    ...(input.sitemapUrl ? [`Sitemap: ${input.sitemapUrl}`] : []),
    ...(input.licenseUrl ? [`License: ${input.licenseUrl}`] : []),
    '',
  ].join('\n');
}
