import { checkName } from '../check-catalog.js';
import { ACCEPT, homeLink, isObject, parseJson, short, type CheckContext } from '../context.js';
import { describeResponse } from '../site-client.js';
import { fail, pass, plural, type CheckOutcome } from '../report.js';

const NAME = checkName('openapi');
const FIX =
  'Publish an OpenAPI 3.1 document as JSON (application/openapi+json or application/json) with "info" and "paths", ' +
  'advertised as service-desc in the API catalog and the Link header.';

/** The OpenAPI document (the catalog's service-desc, else the home page's, else /openapi.json) parses as 3.1 with paths. */
export async function checkOpenApi(ctx: CheckContext): Promise<CheckOutcome> {
  const url = ctx.catalogServiceDescs?.[0] ?? homeLink(ctx, 'service-desc')?.href ?? `${ctx.origin}/openapi.json`;
  const res = await ctx.client.fetch(url, { accept: ACCEPT.document });
  const where = short(url, ctx.origin);
  if (res.error !== undefined || res.status !== 200) return fail('openapi', NAME, `GET ${where} ${describeResponse(res)}`, FIX);
  if (res.truncated) return fail('openapi', NAME, `${where} is larger than the body limit`, FIX);
  const doc = parseJson(res.body);
  if (!isObject(doc)) return fail('openapi', NAME, `${where} is not a JSON object`, FIX);
  const problems: string[] = [];
  if (typeof doc.openapi !== 'string' || !/^3\.1\.\d+$/.test(doc.openapi)) problems.push(`"openapi" is ${JSON.stringify(doc.openapi)}, not 3.1.x`);
  if (!isObject(doc.info) || typeof doc.info.title !== 'string' || typeof doc.info.version !== 'string') problems.push('"info" lacks title or version');
  const paths = isObject(doc.paths) ? Object.keys(doc.paths) : [];
  if (!paths.length) problems.push('no "paths"');
  return problems.length ? fail('openapi', NAME, `${where}: ${problems.join('; ')}`, FIX) : pass('openapi', NAME, `${where}: OpenAPI ${String(doc.openapi)}, ${plural(paths.length, 'path', 'paths')}`);
}
