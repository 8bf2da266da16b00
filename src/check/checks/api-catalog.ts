import { checkName } from '../check-catalog.js';
import { ACCEPT, isObject, parseJson, resolve, short, type CheckContext } from '../context.js';
import { describeResponse, mediaType, sameOrigin } from '../site-client.js';
import { blocked, fail, pass, plural, type CheckOutcome } from '../report.js';

const NAME = checkName('api-catalog');
const LINKS = checkName('api-catalog-links');
const FIX =
  'Serve /.well-known/api-catalog (200, application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727") whose only member is ' +
  '"linkset": context objects with an "anchor" and relation arrays of {"href": …}, at least one "service-desc" or "item".';
const FIX_LINKS = 'Every href and anchor of the API catalog must answer 2xx directly (GET and HEAD), without a redirect.';

/** The most catalog links one run resolves. */
const MAX_CATALOG_LINKS = 10;

/** What is wrong with a linkset document, and its absolute links. */
function readLinkset(doc: unknown, base: string): { problems: string[]; urls: string[]; serviceDescs: string[] } {
  const problems: string[] = [];
  const urls: string[] = [];
  const serviceDescs: string[] = [];
  if (!isObject(doc)) return { problems: ['the body is not a JSON object'], urls, serviceDescs };
  const members = Object.keys(doc);
  if (members.length !== 1 || members[0] !== 'linkset') problems.push(`top-level members are ${members.join(', ') || 'none'}; "linkset" must be the only one`);
  if (!Array.isArray(doc.linkset) || !doc.linkset.length) return { problems: [...problems, '"linkset" is not a non-empty array'], urls, serviceDescs };
  let described = false;
  for (const [i, context] of doc.linkset.entries()) {
    if (!isObject(context)) {
      problems.push(`linkset[${i}] is not an object`);
      continue;
    }
    if (context.anchor !== undefined) {
      const anchor = typeof context.anchor === 'string' ? resolve(context.anchor, base) : undefined;
      if (anchor) urls.push(anchor);
      else problems.push(`linkset[${i}].anchor is not a URI`);
    }
    for (const [rel, targets] of Object.entries(context)) {
      if (rel === 'anchor') continue;
      if (!Array.isArray(targets) || targets.some((t) => !isObject(t) || typeof t.href !== 'string')) {
        problems.push(`linkset[${i}]["${rel}"] is not an array of {"href": …} objects`);
        continue;
      }
      for (const t of targets as Array<{ href: string }>) {
        const href = resolve(t.href, base);
        if (!href) problems.push(`linkset[${i}]["${rel}"] has a href that is not a URI`);
        else {
          urls.push(href);
          if (rel === 'service-desc') serviceDescs.push(href);
        }
      }
      if (rel === 'service-desc' || rel === 'item') described = true;
    }
  }
  if (!described) problems.push('no "service-desc" or "item" link');
  return { problems, urls: [...new Set(urls)], serviceDescs };
}

/** The catalog as a linkset, then each of its same-origin links answering 2xx to HEAD. */
export async function checkApiCatalog(ctx: CheckContext): Promise<CheckOutcome[]> {
  const head = ctx.probes?.get('/.well-known/api-catalog');
  const res = await ctx.client.fetch('/.well-known/api-catalog', { accept: 'application/linkset+json, application/json;q=0.9' });
  if (res.error !== undefined || res.status !== 200) {
    const detail = `GET /.well-known/api-catalog ${describeResponse(res)}`;
    const root = fail('api-catalog', NAME, detail, FIX);
    return [root, blocked('api-catalog-links', LINKS, root)];
  }
  const { problems, urls, serviceDescs } = readLinkset(parseJson(res.body), res.url);
  ctx.catalogServiceDescs = serviceDescs;
  if (head && (head.error !== undefined || head.status < 200 || head.status >= 300)) problems.unshift(`HEAD ${describeResponse(head)}`);
  if (mediaType(res) !== 'application/linkset+json') problems.unshift(`served as ${mediaType(res) || 'no Content-Type'}, not application/linkset+json`);
  const catalog = problems.length
    ? fail('api-catalog', NAME, problems.join('; '), FIX)
    : pass('api-catalog', NAME, `linkset only; ${plural(urls.length, 'link', 'links')}${/rfc9727/.test(res.headers.get('content-type') ?? '') ? '; RFC 9727 profile' : ''}`);

  const local = urls.filter((u) => sameOrigin(u, ctx.origin));
  const foreign = urls.length - local.length;
  const checked = local.slice(0, MAX_CATALOG_LINKS);
  const answers = await Promise.all(checked.map((u) => ctx.client.fetch(u, { method: 'HEAD', accept: ACCEPT.document })));
  const broken = answers.filter((a) => a.error !== undefined || a.status < 200 || a.status >= 300);
  const notes = [
    local.length > checked.length ? `${local.length - checked.length} not checked (limit ${MAX_CATALOG_LINKS})` : '',
    foreign ? `${foreign} on other origins not checked` : '',
  ].filter(Boolean);
  const links = !urls.length
    ? fail('api-catalog-links', LINKS, 'no links to resolve', FIX)
    : broken.length
      ? fail('api-catalog-links', LINKS, broken.map((a) => `${short(a.url, ctx.origin)} ${describeResponse(a)}`).join('; '), FIX_LINKS)
      : pass('api-catalog-links', LINKS, [`${checked.length} ${checked.length === 1 ? 'answers' : 'answer'} 2xx to HEAD`, ...notes].join('; '));
  return [catalog, links];
}
