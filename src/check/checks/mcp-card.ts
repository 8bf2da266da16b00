import { ACCEPT, homeLink, isObject, parseJson, short, type CheckContext } from '../context.js';
import { describeResponse } from '../site-client.js';
import { fail, pass, skip, type CheckResult } from '../report.js';

const NAME = 'MCP server card';
const CARD = '/.well-known/mcp/server-card.json';
const FIX =
  `When you advertise MCP (rel="mcp" or ${CARD}), serve the card as JSON with a "name" (namespace/name), a "version" and ` +
  '"remotes" [{"type": "streamable-http", "url": …}] naming the endpoint that rel="mcp" points at.';

/** The MCP server card, when the site advertises one: well-formed, naming the advertised endpoint. */
export async function checkMcpCard(ctx: CheckContext): Promise<CheckResult> {
  const endpoint = homeLink(ctx, 'mcp')?.href;
  const probe = ctx.probes?.get(CARD);
  const probed = probe !== undefined && probe.error === undefined && probe.status >= 200 && probe.status < 300;
  if (!endpoint && !probed) return skip('mcp-card', NAME, `not advertised (no rel="mcp", ${CARD} is not published)`);
  const res = await ctx.client.fetch(CARD, { accept: ACCEPT.json });
  if (res.error !== undefined || res.status !== 200) return fail('mcp-card', NAME, `rel="mcp" is advertised but GET ${CARD} ${describeResponse(res)}`, FIX);
  const card = parseJson(res.body);
  if (!isObject(card)) return fail('mcp-card', NAME, `${CARD} is not a JSON object`, FIX);
  const problems: string[] = [];
  if (typeof card.name !== 'string' || !/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(card.name)) problems.push(`name ${JSON.stringify(card.name)} is not namespace/name`);
  if (typeof card.version !== 'string' || !card.version) problems.push('no version');
  const remotes = Array.isArray(card.remotes) ? card.remotes.filter(isObject) : [];
  if (!remotes.length || remotes.some((r) => typeof r.url !== 'string' || typeof r.type !== 'string')) problems.push('"remotes" is not a list of {type, url}');
  if (endpoint && !remotes.some((r) => r.url === endpoint)) problems.push(`no remote names the rel="mcp" endpoint ${short(endpoint, ctx.origin)}`);
  return problems.length
    ? fail('mcp-card', NAME, problems.join('; '), FIX)
    : pass('mcp-card', NAME, `${String(card.name)} ${String(card.version)}, endpoint ${remotes.map((r) => short(String(r.url), ctx.origin)).join(', ')}`);
}
