import { checkName } from '../check-catalog.js';
import { ACCEPT, homeLink, isObject, parseJson, short, type CheckContext } from '../context.js';
import { describeResponse, mediaType, sameOrigin, type SiteResponse } from '../site-client.js';
import { fail, pass, type CheckOutcome } from '../report.js';
import { FOREIGN_ORIGIN } from './cors.js';

const NAME = checkName('mcp-card');
/** The older locations of the card, still probed by clients and scanners. */
const CARD_ALIASES = ['/.well-known/mcp/server-card.json', '/.well-known/mcp/server-card'] as const;
/** The only `$schema` the server card extension's schema accepts. */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
const FIX_NONE =
  'Offer agents an MCP endpoint with its server card (rel="mcp" in the Link header, the card at <endpoint>/server-card): ' +
  'with express-agent-discovery, turn on the mcp option (mcp: true).';
const FIX =
  `Serve the server card at <endpoint>/server-card as application/mcp-server-card+json with "$schema" ${SERVER_CARD_SCHEMA}, a "name" (namespace/name), ` +
  'a "version" and "remotes" naming the rel="mcp" endpoint, readable from any origin (Access-Control-Allow-Origin: *).';

const answered = (res: SiteResponse): res is Extract<SiteResponse, { status: number }> => res.error === undefined && res.status === 200;

/**
 * The MCP server card: found under the advertised endpoint (`<mcp>/server-card`) or at an older
 * well-known path; its `$schema`, name, version and remotes, its media type and CORS. A site that
 * offers no MCP endpoint fails with the fix to turn one on. Keeps the endpoint for the protocol check.
 */
export async function checkMcpCard(ctx: CheckContext): Promise<CheckOutcome> {
  const endpoint = homeLink(ctx, 'mcp')?.href;
  const local = endpoint && sameOrigin(endpoint, ctx.origin) ? endpoint : undefined;
  if (local) ctx.mcpEndpoint = local;
  const candidates = [...(local ? [`${local.replace(/\/$/, '')}/server-card`] : []), ...CARD_ALIASES];
  let res: SiteResponse | undefined;
  const tried: string[] = [];
  for (const url of candidates) {
    res = await ctx.client.fetch(url, { accept: ACCEPT.json, headers: { origin: FOREIGN_ORIGIN } });
    if (answered(res)) break;
    tried.push(`${short(new URL(url, `${ctx.origin}/`).toString(), ctx.origin)} ${describeResponse(res)}`);
  }
  if (!res || !answered(res)) {
    return endpoint
      ? fail('mcp-card', NAME, `rel="mcp" is advertised but no card answers: ${tried.join('; ')}`, FIX)
      : fail('mcp-card', NAME, `no MCP endpoint advertised (no rel="mcp") and no card at ${CARD_ALIASES.join(' or ')}`, FIX_NONE);
  }
  const where = short(res.url, ctx.origin);
  const card = parseJson(res.body);
  if (!isObject(card)) return fail('mcp-card', NAME, `${where} is not a JSON object`, FIX);
  const problems: string[] = [];
  if (card.$schema !== SERVER_CARD_SCHEMA) problems.push(`$schema is ${JSON.stringify(card.$schema)}, not the v1 schema`);
  if (typeof card.name !== 'string' || !/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(card.name)) problems.push(`name ${JSON.stringify(card.name)} is not namespace/name`);
  if (typeof card.version !== 'string' || !card.version) problems.push('no version');
  const remotes = Array.isArray(card.remotes) ? card.remotes.filter(isObject) : [];
  if (!remotes.length || remotes.some((r) => typeof r.url !== 'string' || typeof r.type !== 'string')) problems.push('"remotes" is not a list of {type, url}');
  if (endpoint && !remotes.some((r) => r.url === endpoint)) problems.push(`no remote names the rel="mcp" endpoint ${short(endpoint, ctx.origin)}`);
  if (mediaType(res) !== 'application/mcp-server-card+json') problems.push(`served as ${mediaType(res) || 'no Content-Type'}, not application/mcp-server-card+json`);
  if (res.headers.get('access-control-allow-origin') !== '*') problems.push('not readable from another origin (no Access-Control-Allow-Origin: *)');
  ctx.mcpEndpoint ??= remotes.map((r) => String(r.url)).find((u) => sameOrigin(u, ctx.origin));
  return problems.length
    ? fail('mcp-card', NAME, `${where}: ${problems.join('; ')}`, FIX)
    : pass('mcp-card', NAME, `${where}: ${String(card.name)} ${String(card.version)}, endpoint ${remotes.map((r) => short(String(r.url), ctx.origin)).join(', ')}`);
}
