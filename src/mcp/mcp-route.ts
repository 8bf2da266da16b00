import { markMcpClient, markResourceRead, markSurface, markTool, trafficMark } from '../traffic/traffic-mark.js';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type Server } from '@modelcontextprotocol/server';
import type { AgentContext } from '../context.js';
import { markPluginResponse } from '../http/plugin-response.js';
import { classifyError } from '../http/errors.js';
import { API_ROBOTS, setNoSniff } from '../http/representation.js';
import { reportUnexpected } from '../http/route-errors.js';
import type { Route } from '../http/route.js';
import { createMcpFace } from './mcp-server.js';
import { mcpOriginAllowed } from './mcp-origin.js';
import { sendWebResponse, webRequest } from './web-exchange.js';
import { mountServerCard } from './server-card-route.js';
import { MAX_BATCH_CALLS } from './tool-bounds.js';

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
 * A 2025-era request (no per-request `_meta` envelope: `initialize`, then calls without one): one
 * server and a stateless transport answering in JSON, closed once the answer is read.
 */
async function serveLegacy(server: Server, request: globalThis.Request, body: unknown): Promise<globalThis.Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_REQUEST_BYTES,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, { parsedBody: body });
    // A JSON answer is complete once it resolves: read it before the transport goes away.
    return new globalThis.Response(response.body && (await response.arrayBuffer()), { status: response.status, headers: response.headers });
  } finally {
    void transport.close();
    void server.close();
  }
}

/**
 * Mounts the MCP endpoint and its server card at `<path>/server-card` (and the older well-known
 * aliases). Streamable HTTP, stateless, JSON answers, on one URL for both protocol generations:
 * 2026-07-28 requests (a `_meta` envelope on every request, `server/discover`) go to the SDK's
 * per-request handler, 2025-era ones (`initialize` first) to a fresh server and stateless transport
 * per POST. Requests with a foreign `Origin` are refused with 403. The endpoint never reads the
 * session: tools see only their arguments and the public base URL.
 */
/** Marks an MCP request for the traffic counts: the tool a `tools/call` names (one of ours), the client an `initialize` names. */
function markMcpTraffic(req: Request, toolNames: ReadonlySet<string>): void {
  markSurface(req, 'mcp');
  const body = req.body as { method?: unknown; params?: { name?: unknown; clientInfo?: { name?: unknown } } } | null;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const params = body.params && typeof body.params === 'object' ? body.params : undefined;
  if (body.method === 'tools/call' && typeof params?.name === 'string' && toolNames.has(params.name)) markTool(req, params.name);
  const client = params?.clientInfo && typeof params.clientInfo === 'object' ? params.clientInfo.name : undefined;
  if (body.method === 'initialize' && typeof client === 'string') markMcpClient(req, client);
}

/** Whether a request is one `tools/call` of `read_resource` (a read agents count, like the resource routes). */
function isReadResourceCall(body: unknown): boolean {
  const b = body as { method?: unknown; params?: { name?: unknown } } | null;
  return !!b && typeof b === 'object' && !Array.isArray(b) && b.method === 'tools/call' && b.params?.name === 'read_resource';
}

/** Marks the resource a successful `read_resource` call read (its id in the structured result), for "read most". */
async function markToolRead(req: Request, response: globalThis.Response): Promise<void> {
  try {
    const answer = (await response.clone().json()) as { result?: { isError?: boolean; structuredContent?: { id?: unknown } } };
    const id = answer.result?.structuredContent?.id;
    if (!answer.result?.isError && typeof id === 'number' && Number.isSafeInteger(id)) markResourceRead(req, id);
  } catch {
    // Not a JSON answer: nothing read to count.
  }
}

export function mountMcp(router: Router, ctx: AgentContext, path: string, table: readonly Route<AgentContext>[]): void {
  const face = createMcpFace(ctx, table);
  const parseJson = express.json({ limit: MAX_REQUEST_BYTES });
  const allowedOrigins = new Set(ctx.options.mcp ? ctx.options.mcp.allowedOrigins : []);
  const toolNames = new Set(table.flatMap((route) => (route.tool ? [route.tool.name] : [])));
  // The public base URL of each request in flight, for the per-request server the handler builds.
  const bases = new WeakMap<globalThis.Request, string>();
  const modern = createMcpHandler(
    ({ requestInfo }) => {
      const base = requestInfo && bases.get(requestInfo);
      if (base === undefined) throw new Error('express-agent-discovery: an MCP request without its base URL');
      return face.server(base);
    },
    { legacy: 'reject', maxRequestBodySize: MAX_REQUEST_BYTES },
  );

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
      markMcpTraffic(req, toolNames);
      // A 2025-03-26 batch: at most MAX_BATCH_CALLS calls, else refused whole before any runs.
      if (Array.isArray(req.body) && req.body.length > MAX_BATCH_CALLS) {
        return jsonRpcError(res, 400, -32600, `Invalid Request: a batch holds at most ${MAX_BATCH_CALLS} calls (this one has ${req.body.length})`);
      }
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
        const gone = new AbortController();
        res.on('close', () => res.writableFinished || gone.abort());
        // The URL carries the validated public origin, never the client's raw Host.
        const request = webRequest(req, `${new URL(base).origin}${path}`, gone.signal);
        const legacy = await isLegacyRequest(request, req.body, { maxRequestBodySize: MAX_REQUEST_BYTES });
        bases.set(request, base);
        const response = legacy ? await serveLegacy(face.server(base), request, req.body) : await modern.fetch(request, { parsedBody: req.body });
        if (trafficMark(req) && isReadResourceCall(req.body)) await markToolRead(req, response);
        await sendWebResponse(res, response);
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
