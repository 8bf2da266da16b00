import { checkName } from '../check-catalog.js';
import { ACCEPT, isObject, parseJson, type CheckContext } from '../context.js';
import { describeResponse } from '../site-client.js';
import { fail, notApplicable, pass, type CheckOutcome } from '../report.js';

const NAME = checkName('oauth-metadata');
const FIX =
  'Published OAuth metadata must parse: /.well-known/oauth-protected-resource a JSON object with "resource" and "authorization_servers" (RFC 9728), ' +
  '/.well-known/oauth-authorization-server an object with "issuer" (RFC 8414). An anonymous API publishes none.';

const PATHS = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'] as const;

/** OAuth metadata: not applicable to an anonymous API that publishes none; when published, well-formed. */
export async function checkOauthMetadata(ctx: CheckContext): Promise<CheckOutcome> {
  const published = PATHS.filter((p) => {
    const res = ctx.probes?.get(p);
    return res !== undefined && res.error === undefined && res.status >= 200 && res.status < 300;
  });
  if (!published.length) return notApplicable('oauth-metadata', NAME, 'no OAuth metadata published: nothing asks agents to authorize (an anonymous API needs none)');
  const problems: string[] = [];
  for (const path of published) {
    const res = await ctx.client.fetch(path, { accept: ACCEPT.json });
    const doc = res.error === undefined && res.status === 200 ? parseJson(res.body) : undefined;
    if (!isObject(doc)) problems.push(`${path} ${res.error === undefined && res.status === 200 ? 'is not a JSON object' : describeResponse(res)}`);
    else if (path === PATHS[0] && (typeof doc.resource !== 'string' || !Array.isArray(doc.authorization_servers))) problems.push(`${path} lacks "resource" or "authorization_servers"`);
    else if (path !== PATHS[0] && typeof doc.issuer !== 'string') problems.push(`${path} lacks "issuer"`);
  }
  return problems.length ? fail('oauth-metadata', NAME, problems.join('; '), FIX) : pass('oauth-metadata', NAME, `${published.join(', ')} well-formed`);
}
