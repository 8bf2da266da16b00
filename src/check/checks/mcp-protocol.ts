import { checkName } from '../check-catalog.js';
import { isObject, parseJson, short, type CheckContext } from '../context.js';
import { describeResponse, type SiteResponse } from '../site-client.js';
import { fail, pass, type CheckOutcome } from '../report.js';
import { FOREIGN_ORIGIN } from './cors.js';

const NAME = checkName('mcp-protocol');
const FIX =
  'Answer MCP clients of both revisions on the one endpoint (initialize for 2025-11-25, server/discover for 2026-07-28) and refuse a foreign Origin with 403: ' +
  'with express-agent-discovery, the mcp option (more allowed origins in mcp.allowedOrigins).';

const MCP_ACCEPT = 'application/json, text/event-stream';

/** The JSON-RPC `result` of a response, read as JSON or from the `data:` lines of an event stream. */
function rpcResult(res: SiteResponse): Record<string, unknown> | undefined {
  if (res.error !== undefined || res.status !== 200) return undefined;
  const bodies = /^\s*[{[]/.test(res.body) ? [res.body] : res.body.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5));
  for (const body of bodies) {
    const msg = parseJson(body);
    if (isObject(msg) && isObject(msg.result)) return msg.result;
  }
  return undefined;
}

const post = (ctx: CheckContext, url: string, body: unknown, headers: Record<string, string> = {}) =>
  ctx.client.fetch(url, { method: 'POST', accept: MCP_ACCEPT, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/**
 * The MCP endpoint named by the card: a 2025-11-25 `initialize` and a stateless 2026-07-28
 * `server/discover` are both answered; a request from a foreign `Origin` gets 403 (DNS rebinding).
 */
export async function checkMcpProtocol(ctx: CheckContext): Promise<CheckOutcome> {
  const url = ctx.mcpEndpoint!;
  const problems: string[] = [];
  const initialize = await post(ctx, url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'express-agent-discovery-check', version: '1' } },
  });
  const init = rpcResult(initialize);
  if (!init || typeof init.protocolVersion !== 'string') problems.push(`initialize (2025-11-25) ${initialize.error === undefined && initialize.status === 200 ? 'has no result' : describeResponse(initialize)}`);
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const discover = await post(ctx, url, { jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: meta } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' });
  const found = rpcResult(discover);
  const versions = found && Array.isArray(found.supportedVersions) ? found.supportedVersions : [];
  if (!versions.includes('2026-07-28')) problems.push(`server/discover (2026-07-28) ${found ? 'does not list 2026-07-28' : discover.error === undefined && discover.status === 200 ? 'has no result' : describeResponse(discover)}`);
  const foreign = await post(ctx, url, { jsonrpc: '2.0', id: 3, method: 'ping' }, { origin: FOREIGN_ORIGIN });
  if (foreign.error !== undefined || foreign.status !== 403) problems.push(`a request from Origin ${FOREIGN_ORIGIN} ${describeResponse(foreign)}, not 403`);
  const where = short(url, ctx.origin);
  return problems.length
    ? fail('mcp-protocol', NAME, `${where}: ${problems.join('; ')}`, FIX)
    : pass('mcp-protocol', NAME, `${where}: initialize → ${String(init!.protocolVersion)}, server/discover → ${versions.join(', ')}, foreign Origin → 403`);
}
