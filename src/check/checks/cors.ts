import { checkName } from '../check-catalog.js';
import { homeLink, short, type CheckContext } from '../context.js';
import { describeResponse, type SiteResponse } from '../site-client.js';
import { fail, pass, type CheckOutcome } from '../report.js';

const NAME = checkName('cors');
const FIX =
  'Answer browser agents on the anonymous documents and reads with Access-Control-Allow-Origin: * (never with credentials) and answer their preflights: ' +
  'with express-agent-discovery, the cors: true option.';

/** An origin no site allows by name: only a public `*` lets it read. */
export const FOREIGN_ORIGIN = 'https://agent.invalid';

const ok = (res: SiteResponse): res is Extract<SiteResponse, { status: number }> => res.error === undefined && res.status >= 200 && res.status < 300;

/** What a browser on another origin misses when reading `res`. */
function corsProblems(res: SiteResponse, label: string): string[] {
  if (!ok(res)) return [`${label} ${describeResponse(res)}`];
  const problems: string[] = [];
  const allow = res.headers.get('access-control-allow-origin');
  if (allow !== '*') problems.push(`${label}: Access-Control-Allow-Origin is ${allow === null ? 'missing' : JSON.stringify(allow)}, not *`);
  if (res.headers.get('access-control-allow-credentials') === 'true') problems.push(`${label} allows credentials`);
  return problems;
}

/**
 * A browser-based agent on another origin can read the discovery documents: llms.txt and the
 * OpenAPI document answer a cross-origin GET with `Access-Control-Allow-Origin: *` and a preflight
 * (`If-None-Match`, as a conditional GET sends) with 2xx.
 */
export async function checkCors(ctx: CheckContext): Promise<CheckOutcome> {
  const targets = ['/llms.txt', homeLink(ctx, 'service-desc')?.href ?? '/openapi.json'];
  const problems: string[] = [];
  for (const target of targets) {
    const where = short(new URL(target, `${ctx.origin}/`).toString(), ctx.origin);
    const res = await ctx.client.fetch(target, { headers: { origin: FOREIGN_ORIGIN } });
    problems.push(...corsProblems(res, `GET ${where}`));
  }
  const preflight = await ctx.client.fetch(targets[0]!, {
    method: 'OPTIONS',
    headers: { origin: FOREIGN_ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
  });
  problems.push(...corsProblems(preflight, 'the preflight of /llms.txt'));
  if (ok(preflight) && !/\bGET\b/i.test(preflight.headers.get('access-control-allow-methods') ?? 'GET')) problems.push('the preflight does not allow GET');
  if (ok(preflight) && !/if-none-match|\*/i.test(preflight.headers.get('access-control-allow-headers') ?? '')) problems.push('the preflight does not allow If-None-Match');
  return problems.length ? fail('cors', NAME, problems.join('; '), FIX) : pass('cors', NAME, `${targets.length} documents readable from another origin (Access-Control-Allow-Origin: *), preflight answered`);
}
