import { checkName } from '../check-catalog.js';
import { isIP } from 'node:net';
import { ACCEPT, homeLink, isObject, parseJson, short, type CheckContext } from '../context.js';
import { describeResponse, mediaType, sameOrigin } from '../site-client.js';
import { fail, pass, plural, type CheckOutcome } from '../report.js';

const NAME = checkName('ard');
const FIX =
  'Serve /.well-known/ard.json (application/json, advertised with rel="ard") with "entries": each an identifier ' +
  'urn:air:<public host name>:<namespace>:<name>, a one-line displayName, a description, 2 to 5 representativeQueries, ' +
  'an ISO-8601 updatedAt and a url that answers 200 with the entry\'s type; behind a proxy, on an IP address or on localhost, set the public base URL (the baseUrl option).';

/**
 * Publishers that name no real public host: the plugin's own placeholder (`agent.localhost`, used when
 * the public base URL is an IP address or `localhost`) and the reserved names of RFC 2606 and 6761.
 */
const PLACEHOLDER_PUBLISHER = /(?:^|\.)(?:localhost|test|example|invalid|local)$|(?:^|\.)example\.(?:com|net|org)$/;

const SEGMENT = /^[a-z0-9][a-z0-9-]*$/;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** The entry's problems that need no request. */
function entryProblems(entry: Record<string, unknown>): string[] {
  const p: string[] = [];
  const id = typeof entry.identifier === 'string' ? entry.identifier.split(':') : [];
  if (id.length !== 5 || id[0] !== 'urn' || id[1] !== 'air' || !HOSTNAME.test(id[2]!) || isIP(id[2]!) || !SEGMENT.test(id[3]!) || !SEGMENT.test(id[4]!)) {
    p.push(`identifier ${JSON.stringify(entry.identifier)} is not urn:air:<host name>:<namespace>:<name>`);
  } else if (PLACEHOLDER_PUBLISHER.test(id[2]!)) {
    p.push(`identifier ${String(entry.identifier)} names the placeholder publisher ${id[2]}, not the site's public host (set the baseUrl option)`);
  }
  if (typeof entry.displayName !== 'string' || !entry.displayName.trim() || /[\r\n]/.test(entry.displayName)) p.push('displayName is not one non-empty line');
  if (typeof entry.description !== 'string' || !entry.description.trim()) p.push('description is empty');
  const queries = entry.representativeQueries;
  if (!Array.isArray(queries) || queries.length < 2 || queries.length > 5 || queries.some((q) => typeof q !== 'string' || !q.trim())) {
    p.push('representativeQueries is not 2 to 5 strings');
  }
  if (typeof entry.updatedAt !== 'string' || Number.isNaN(Date.parse(entry.updatedAt)) || new Date(entry.updatedAt).toISOString() !== entry.updatedAt) {
    p.push('updatedAt is not an ISO-8601 UTC timestamp');
  }
  if (typeof entry.type !== 'string' || !entry.type) p.push('type is missing');
  if (typeof entry.url !== 'string' || !/^https?:\/\//.test(entry.url)) p.push('url is not an absolute URL');
  return p;
}

/** The ARD manifest: every entry follows the entry rules, and its same-origin url answers 200 with the entry's type. */
export async function checkArd(ctx: CheckContext): Promise<CheckOutcome> {
  const url = homeLink(ctx, 'ard')?.href ?? `${ctx.origin}/.well-known/ard.json`;
  const where = short(url, ctx.origin);
  const res = await ctx.client.fetch(url, { accept: ACCEPT.json });
  if (res.error !== undefined || res.status !== 200) return fail('ard', NAME, `GET ${where} ${describeResponse(res)}`, FIX);
  const doc = parseJson(res.body);
  const entries = isObject(doc) && Array.isArray(doc.entries) ? doc.entries : undefined;
  if (!entries?.length) return fail('ard', NAME, `${where} has no "entries"`, FIX);
  const problems: string[] = [];
  if (mediaType(res) !== 'application/json') problems.push(`served as ${mediaType(res) || 'no Content-Type'}`);
  let resolved = 0;
  for (const [i, entry] of entries.entries()) {
    if (!isObject(entry)) {
      problems.push(`entries[${i}] is not an object`);
      continue;
    }
    const own = entryProblems(entry);
    problems.push(...own.map((p) => `entries[${i}]: ${p}`));
    if (own.length || !sameOrigin(String(entry.url), ctx.origin)) continue;
    const target = await ctx.client.fetch(String(entry.url), { accept: ACCEPT.document });
    if (target.error !== undefined || target.status !== 200) problems.push(`entries[${i}].url ${describeResponse(target)}`);
    else if (mediaType(target) !== String(entry.type).toLowerCase()) problems.push(`entries[${i}].url is served as ${mediaType(target)}, the entry says ${String(entry.type)}`);
    else resolved += 1;
  }
  return problems.length
    ? fail('ard', NAME, problems.join('; '), FIX)
    : pass('ard', NAME, `${plural(entries.length, 'entry', 'entries')} (${entries.map((e) => (isObject(e) ? String(e.identifier) : '')).join(', ')}); ${resolved === 1 ? '1 url served with its type' : `${resolved} urls served with their type`}`);
}
