import { checkName } from '../check-catalog.js';
import type { CheckContext } from '../context.js';
import { describeResponse, mediaType } from '../site-client.js';
import { fail, notApplicable, pass, plural, type CheckOutcome } from '../report.js';

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

const LICENSE = checkName('license-policy');
const FIX_LICENSE =
  'Serve the RSL licence robots.txt names (License:) as application/rsl+xml in the namespace https://rslstandard.org/rsl, saying the same as the ' +
  'Content Signals: with express-agent-discovery, /license.xml is written from the agent policy; set the policy and the signals, not the file.';

/** The usages an RSL document prohibits and permits (`ai-train`, `search` …), from its `permits`/`prohibits` of type usage. */
function rslUsages(xml: string): { permits: Set<string>; prohibits: Set<string> } {
  const read = (tag: string) => new Set([...xml.matchAll(new RegExp(`<${tag}\\b[^>]*type="usage"[^>]*>([^<]*)</${tag}>`, 'g'))].flatMap((m) => m[1]!.trim().split(/[\s,]+/)));
  return { permits: read('permits'), prohibits: read('prohibits') };
}

/**
 * The RSL licence robots.txt names (`License:`): served, an RSL 1.0 document, and saying what the signals say:
 * `ai-train` prohibited where a Content-Signal says `ai-train=yes` (or a Content-Usage `train-ai=y`) is a
 * contradiction, as is `ai-train` permitted where the signals say no. Not applicable without a `License:` line.
 */
export async function checkLicensePolicy(ctx: CheckContext): Promise<CheckOutcome> {
  const lines = ctx.robots ?? [];
  const url = lines.find(([f]) => f === 'license')?.[1];
  if (url === undefined) return notApplicable('license-policy', LICENSE, 'robots.txt names no licence (no License: line)');
  const res = await ctx.client.fetch(url, { accept: 'application/rsl+xml, application/xml;q=0.9' });
  if (res.error !== undefined || res.status !== 200) return fail('license-policy', LICENSE, `GET ${url} ${describeResponse(res)}`, FIX_LICENSE);
  const problems: string[] = [];
  if (mediaType(res) !== 'application/rsl+xml') problems.push(`served as ${mediaType(res) || 'no Content-Type'}, not application/rsl+xml`);
  if (!/<rsl\b[^>]*xmlns="https:\/\/rslstandard\.org\/rsl"/.test(res.body)) problems.push('not an RSL document (root rsl in the namespace https://rslstandard.org/rsl)');
  if (!/<content\b[^>]*\burl="[^"]+"/.test(res.body) || !/<license\b/.test(res.body)) problems.push('no content with a url and a licence');
  const { permits, prohibits } = rslUsages(res.body);
  const trainYes = lines.some(([f, v]) => (f === 'content-signal' && /\bai-train\s*=\s*yes\b/i.test(v)) || (f === 'content-usage' && /\btrain-ai\s*=\s*y\b/i.test(v)));
  const trainNo = lines.some(([f, v]) => (f === 'content-signal' && /\bai-train\s*=\s*no\b/i.test(v)) || (f === 'content-usage' && /\btrain-ai\s*=\s*n\b/i.test(v)));
  if (prohibits.has('ai-train') && trainYes) problems.push('the licence prohibits ai-train where robots.txt says ai-train=yes');
  if (permits.has('ai-train') && !prohibits.has('ai-train') && trainNo) problems.push('the licence permits ai-train where robots.txt says ai-train=no');
  return problems.length
    ? fail('license-policy', LICENSE, problems.join('; '), FIX_LICENSE)
    : pass('license-policy', LICENSE, `${url}: permits ${[...permits].join(' ') || 'nothing named'}${prohibits.size ? `; prohibits ${[...prohibits].join(' ')}` : ''}`);
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
