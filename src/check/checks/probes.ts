import { randomBytes } from 'node:crypto';
import { checkName } from '../check-catalog.js';
import type { CheckContext } from '../context.js';
import { describeResponse, type SiteResponse } from '../site-client.js';
import { fail, pass, type CheckOutcome } from '../report.js';

/**
 * The ten conventional paths agent-side fetchers HEAD-probe on a page's origin. A probe counts only
 * on a direct 2xx; a redirect never counts.
 */
export const CONVENTIONAL_PATHS = [
  '/llms.txt',
  '/llms-full.txt',
  '/auth.md',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/.well-known/oauth-protected-resource',
  '/.well-known/api-catalog',
  '/.well-known/mcp/server-card.json',
  '/.well-known/agent-card.json',
  '/.well-known/agent-skills/index.json',
] as const;

const found = (res: SiteResponse): boolean => res.error === undefined && res.status >= 200 && res.status < 300;
const absent = (res: SiteResponse): boolean => res.error === undefined && (res.status === 404 || res.status === 410);

/**
 * HEADs the ten conventional paths (each must answer a direct 2xx or 404) and one random unpublished
 * `/.well-known/` path (must be 404: a catch-all 200 makes every probe a false positive).
 */
export async function checkProbes(ctx: CheckContext): Promise<CheckOutcome[]> {
  const answers = await Promise.all(CONVENTIONAL_PATHS.map((path) => ctx.client.fetch(path, { method: 'HEAD' })));
  ctx.probes = new Map(CONVENTIONAL_PATHS.map((path, i) => [path, answers[i]!]));
  const wrong = CONVENTIONAL_PATHS.filter((_, i) => !found(answers[i]!) && !absent(answers[i]!));
  const ok2xx = CONVENTIONAL_PATHS.filter((_, i) => found(answers[i]!));
  const name = checkName('probes');
  const probes = wrong.length
    ? fail(
        'probes',
        name,
        wrong.map((p) => `${p} ${describeResponse(ctx.probes!.get(p)!)}`).join('; '),
        'Answer each conventional path directly: 2xx where you publish the document, 404 where you do not. ' +
          'Never a redirect (fetchers do not count one), never a 405 to HEAD, never an error.',
      )
    : pass('probes', name, ok2xx.length ? `2xx: ${ok2xx.join(', ')}; 404: the other ${CONVENTIONAL_PATHS.length - ok2xx.length}` : `404: all ${CONVENTIONAL_PATHS.length}`);

  const random = `/.well-known/check-${randomBytes(6).toString('hex')}`;
  const res = await ctx.client.fetch(random, { method: 'HEAD' });
  const catchAllName = checkName('catch-all');
  const catchAll = absent(res)
    ? pass('catch-all', catchAllName, `${random} answered ${res.status}`)
    : fail(
        'catch-all',
        catchAllName,
        `${random} ${describeResponse(res)}`,
        'Let paths you do not publish answer 404: a catch-all 200 (or a redirect) makes every probe look published.',
      );
  return [probes, catchAll];
}
