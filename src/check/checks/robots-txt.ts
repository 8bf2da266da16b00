import { checkName } from '../check-catalog.js';
import type { CheckContext } from '../context.js';
import { describeResponse, mediaType } from '../site-client.js';
import { fail, pass, plural, type CheckOutcome } from '../report.js';

const ROBOTS = checkName('robots-txt');
const SIGNALS = checkName('content-signals');
const FIX_ROBOTS =
  'Serve /robots.txt (200, text/plain) with a Sitemap: line: with express-agent-discovery, turn on robotsTxt (for a host that has no robots.txt of its own) ' +
  'and the sitemap option (or set sitemapUrl to your own sitemap).';
const FIX_SIGNALS =
  'State your AI preferences in robots.txt (Content-Signal: search=…, ai-input=…, ai-train=…): with express-agent-discovery and robotsTxt on, ' +
  'set the Content Signals on the admin Settings page.';

/** The robots.txt lines as `[field, value]`, field lower case, comments dropped. */
function robotsLines(text: string): Array<[string, string]> {
  return text.split(/\r?\n/).flatMap((line) => {
    const m = /^\s*([A-Za-z-]+)\s*:\s*(.*?)\s*$/.exec(line.replace(/#.*$/, ''));
    return m ? [[m[1]!.toLowerCase(), m[2]!] as [string, string]] : [];
  });
}

/** `/robots.txt`: served as text, with a `User-agent` group and a `Sitemap:` line. Keeps the lines for the AI preferences. */
export async function checkRobotsTxt(ctx: CheckContext): Promise<CheckOutcome> {
  const res = await ctx.client.fetch('/robots.txt', { accept: 'text/plain' });
  if (res.error !== undefined || res.status !== 200) return fail('robots-txt', ROBOTS, `GET /robots.txt ${describeResponse(res)}`, FIX_ROBOTS);
  const lines = robotsLines(res.body);
  ctx.robots = lines;
  const problems: string[] = [];
  if (mediaType(res) !== 'text/plain') problems.push(`served as ${mediaType(res) || 'no Content-Type'}, not text/plain`);
  if (!lines.some(([f]) => f === 'user-agent')) problems.push('no User-agent line');
  const sitemaps = lines.filter(([f]) => f === 'sitemap').map(([, v]) => v);
  if (!sitemaps.length) problems.push('no Sitemap: line');
  return problems.length
    ? fail('robots-txt', ROBOTS, problems.join('; '), FIX_ROBOTS)
    : pass('robots-txt', ROBOTS, `${plural(lines.filter(([f]) => f === 'user-agent').length, 'User-agent line', 'User-agent lines')}; Sitemap: ${sitemaps.join(', ')}`);
}

/** robots.txt states the AI usage preferences: Cloudflare's `Content-Signal` or the aipref `Content-Usage` rule. */
export function checkContentSignals(ctx: CheckContext): CheckOutcome {
  const lines = ctx.robots ?? [];
  const signal = lines.find(([f]) => f === 'content-signal')?.[1];
  const usage = lines.find(([f]) => f === 'content-usage')?.[1];
  const known = /\b(?:search|ai-input|ai-train)\s*=\s*(?:yes|no)\b/i;
  if (signal !== undefined && !known.test(signal)) return fail('content-signals', SIGNALS, `Content-Signal: ${signal} names no search, ai-input or ai-train preference`, FIX_SIGNALS);
  if (signal === undefined && usage === undefined) return fail('content-signals', SIGNALS, 'robots.txt has no Content-Signal or Content-Usage line', FIX_SIGNALS);
  return pass('content-signals', SIGNALS, [signal !== undefined ? `Content-Signal: ${signal}` : '', usage !== undefined ? `Content-Usage: ${usage}` : ''].filter(Boolean).join('; '));
}
