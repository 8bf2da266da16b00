import { checkName } from '../check-catalog.js';
import { homeLink, short, type CheckContext } from '../context.js';
import type { SiteResponse } from '../site-client.js';
import { fail, pass, skip, type CheckOutcome } from '../report.js';
import { describeResponse } from '../site-client.js';

const NAME = checkName('discovery-documents');
const FIX =
  'Publish the discovery documents (llms.txt, /.well-known/api-catalog, an OpenAPI document, /.well-known/ard.json): ' +
  'with express-agent-discovery, app.use(agent.router).';

const absent = (res: SiteResponse | undefined): boolean => res !== undefined && res.error === undefined && (res.status === 404 || res.status === 410);
const answered = (res: SiteResponse | undefined): boolean => res !== undefined && res.error === undefined && res.status >= 200 && res.status < 300;

/**
 * Whether the site publishes any discovery document at all (HEAD, a direct 2xx): when every one is
 * 404 or 410, that one root cause is reported here and the checks of each document are skipped
 * because of it; when some answer otherwise (a redirect, an error, a timeout) each document's check
 * says what.
 */
export async function checkDiscoveryDocuments(ctx: CheckContext): Promise<CheckOutcome> {
  const targets = [
    '/llms.txt',
    '/.well-known/api-catalog',
    homeLink(ctx, 'service-desc')?.href ?? `${ctx.origin}/openapi.json`,
    homeLink(ctx, 'ard')?.href ?? `${ctx.origin}/.well-known/ard.json`,
  ];
  const answers = await Promise.all(targets.map((t) => ctx.probes?.get(t) ?? ctx.client.fetch(t, { method: 'HEAD' })));
  const found = targets.filter((_, i) => answered(answers[i]));
  const where = targets.map((t) => short(new URL(t, `${ctx.origin}/`).toString(), ctx.origin));
  const unclear = targets.flatMap((_, i) => (answered(answers[i]) || absent(answers[i]) ? [] : [`${where[i]} ${describeResponse(answers[i]!)}`]));
  if (!found.length && unclear.length) return skip('discovery-documents', NAME, `none answers 2xx, but not all are absent (${unclear.join('; ')}): see each document's check`);
  return found.length
    ? pass('discovery-documents', NAME, `${found.length} of ${targets.length} published (${where.filter((_, i) => answered(answers[i])).join(', ')})`)
    : fail('discovery-documents', NAME, `none of ${where.join(', ')} answers 2xx`, FIX);
}
