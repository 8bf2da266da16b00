import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AgentContext } from '../context.js';
import { markPluginResponse } from '../http/plugin-response.js';
import { classifyError } from '../http/errors.js';
import { API_ROBOTS, setNoSniff } from '../http/representation.js';
import { reportUnexpected } from '../http/route-errors.js';
import { createMcpFace } from './mcp-server.js';
import { mcpOriginAllowed } from './mcp-origin.js';
import { mountServerCard } from './server-card-route.js';

/** The largest JSON-RPC request body accepted (tool arguments are a few hundred bytes). */
const MAX_REQUEST_BYTES = 64 * 1024;

/** A JSON-RPC error answer written before any server exists (an unreadable request body). */
function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  setNoSniff(res);
  res.status(status).setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** An unexpected error: reported through `onError`, answered as a JSON-RPC internal error (500). */
function internalJsonRpcError(ctx: AgentContext, req: Request, res: Response, error: unknown): void {
  reportUnexpected(ctx, req, error);
  if (res.headersSent) return void res.destroy();
  jsonRpcError(res, 500, -32603, 'Internal error');
}

/**
 * Mounts the MCP endpoint (Streamable HTTP, stateless, JSON responses: one server and transport per
 * POST; requests with a foreign `Origin` refused with 403) and its server card at `<path>/server-card` (and the older well-known aliases).
 * The endpoint never reads the session: tools see only their arguments and the public base URL.
 */
export function mountMcp(router: Router, ctx: AgentContext, path: string): void {
  const face = createMcpFace(ctx);
  const parseJson = express.json({ limit: MAX_REQUEST_BYTES });
  const allowedOrigins = new Set(ctx.options.mcp ? ctx.options.mcp.allowedOrigins : []);

  // First, on every method: a browser's request from an origin that is not allowed (DNS rebinding,
  // a foreign page) is refused before anything is read or answered.
  router.all(path, function mcpOrigin(req: Request, res: Response, next: NextFunction) {
    if (mcpOriginAllowed(ctx, allowedOrigins, req)) return next();
    markPluginResponse(res);
    jsonRpcError(res, 403, -32000, 'Forbidden: this Origin may not use the MCP endpoint');
  });
  router.post(
    path,
    function mcpRequestBody(req: Request, res: Response, next: NextFunction) {
      markPluginResponse(res);
      parseJson(req, res, (error?: unknown) => {
        if (!error) return next();
        const tooLarge = (error as { type?: string }).type === 'entity.too.large';
        jsonRpcError(res, tooLarge ? 413 : 400, -32700, tooLarge ? `request body over ${MAX_REQUEST_BYTES} bytes` : 'Parse error: invalid JSON');
      });
    },
    async function mcpEndpoint(req: Request, res: Response) {
      let base: string;
      try {
        base = ctx.baseUrl(req);
      } catch (error) {
        // An unusable Host: the same 400 as every plugin route, as a JSON-RPC error.
        const known = classifyError(error);
        if (known) return jsonRpcError(res, known.status, -32600, known.message);
        return internalJsonRpcError(ctx, req, res, error);
      }
      try {
        setNoSniff(res);
        res.removeHeader('Set-Cookie');
        res.setHeader('X-Robots-Tag', API_ROBOTS);
        res.setHeader('Cache-Control', 'no-store');
        const server = face.server(base);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        // The transport rebuilds the request URL from `Host` and answers a bare 400 for one it
        // cannot parse: it gets the validated public host instead of the client's raw header.
        req.headers.host = new URL(base).host;
        await transport.handleRequest(req, res, req.body);
      } catch (error) {
        internalJsonRpcError(ctx, req, res, error);
      }
    },
  );
  // Stateless and without server-initiated messages: no SSE stream (GET) and no session (DELETE).
  router.all(path, function mcpMethodNotAllowed(_req: Request, res: Response) {
    markPluginResponse(res);
    res.setHeader('Allow', 'POST');
    jsonRpcError(res, 405, -32000, 'Method not allowed: this MCP endpoint answers POST only (stateless, JSON responses)');
  });

  mountServerCard(router, ctx, path);
}
