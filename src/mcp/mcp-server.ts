import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/server';
import type { AgentContext } from '../context.js';
import { withBudget } from '../http/budget.js';
import { classifyError, HttpError } from '../http/errors.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import { runRoute } from '../http/responder.js';
import type { Route, TextBody } from '../http/route.js';
import type { FacadeCall } from '../http/facade-call.js';
import { MCP_SERVER_VERSION, mcpDescription, serverCardName } from './server-card.js';
import { routeAt, routeTools, toolErrorText, toolJsonSchema, type ToolSpec } from './tools.js';

/** Resources listed per `resources/list` page. */
const RESOURCE_PAGE = 100;

/** A server fault the plugin cannot classify: the client learns nothing about it. */
const INTERNAL = JSON.stringify({ status: 'error', error: 'internal_error', message: 'the read failed' });

/** What a plugin's MCP servers share: the tools and their JSON Schemas, built once. */
export interface McpFace {
  readonly tools: readonly ToolSpec[];
  readonly listed: readonly Tool[];
  /** A fresh server for one request (stateless: one server and transport per HTTP request). */
  server(base: string): Server;
}

/** The reads the MCP resources run: the search (`resources/list`) and the Markdown read (`resources/read`). */
interface ResourceReads {
  search(call: FacadeCall): Promise<{ items: { id: number; title: string; summary?: string | null }[]; next_url: string | null }>;
  markdown(call: FacadeCall, id: string): Promise<TextBody>;
}

/** What the MCP requests of one plugin run on: its context, its tools by name and the resources' reads. */
interface McpRuntime {
  readonly ctx: AgentContext;
  readonly tools: ReadonlyMap<string, ToolSpec>;
  readonly reads: ResourceReads;
}

/** The resources' reads: the routes of the table at the search and Markdown paths. */
function resourceReads(ctx: AgentContext, table: readonly Route<AgentContext>[]): ResourceReads {
  const search = routeAt(table, PATHS.search);
  const markdown = routeAt(table, PATHS.markdown);
  return {
    search: async (call) => (await runRoute(search, ctx, call, {})) as Awaited<ReturnType<ResourceReads['search']>>,
    markdown: async (call, id) => (await runRoute(markdown, ctx, call, { id })) as TextBody,
  };
}

const tooLarge = (max: number) => new HttpError(413, 'payload_too_large', `the response would exceed ${max} bytes; narrow the request`);

/** A tool as `tools/list` shows it: its JSON Schemas and read-only annotations. */
function listedTool(t: ToolSpec): Tool {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: toolJsonSchema(t.input, 'input'),
    outputSchema: toolJsonSchema(t.output, 'output'),
    annotations: { title: t.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

/** Runs a tool under the budget; every failure becomes a tool error (`isError`), never a protocol error. */
async function callTool(face: McpRuntime, base: string, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const { ctx } = face;
  const tool = face.tools.get(name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool "${name}"`);
  try {
    const out = await withBudget(ctx.options.budgetMs, () => tool.run(base, args));
    const json = JSON.stringify(out.structured);
    // The bound of the HTTP routes, per part: the Markdown as its route, the JSON as its read.
    const max = ctx.options.maxBodyBytes;
    if (Buffer.byteLength(json) > max || (out.text !== undefined && Buffer.byteLength(out.text) > max)) throw tooLarge(max);
    return { content: [{ type: 'text', text: out.text ?? json }], structuredContent: out.structured };
  } catch (error) {
    const known = classifyError(error);
    return { isError: true, content: [{ type: 'text', text: known ? toolErrorText(known) : INTERNAL }] };
  }
}

/** `<base>/agent/resource/{id}/markdown[?language=…]` (PATHS.markdown) → the Markdown read, or an MCP error. */
async function readResource(face: McpRuntime, base: string, uri: string) {
  const { ctx } = face;
  const rest = uri.startsWith(base) ? uri.slice(base.length) : '';
  const [, path, query] = /^([^?#]*)(?:\?([^#]*))?$/.exec(rest) ?? [];
  const match = path === undefined ? undefined : PATHS.markdown.match(path);
  if (!match) throw new ResourceNotFoundError(uri, 'resource not found');
  let id: string;
  try {
    id = decodeURIComponent(match.id);
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'parameter "path": a path segment is not valid percent-encoding');
  }
  try {
    const call = { base, path: PATHS.markdown.url({ id }), query: [...new URLSearchParams(query ?? '')] };
    const md = await withBudget(ctx.options.budgetMs, () => face.reads.markdown(call, id));
    if (Buffer.byteLength(md.body) > ctx.options.maxBodyBytes) throw tooLarge(ctx.options.maxBodyBytes);
    return { contents: [{ uri, mimeType: 'text/markdown', text: md.body }] };
  } catch (error) {
    const known = classifyError(error);
    if (known?.status === 404) throw new ResourceNotFoundError(uri, known.message);
    if (known?.status === 400) throw new ProtocolError(ProtocolErrorCode.InvalidParams, known.message);
    throw new ProtocolError(ProtocolErrorCode.InternalError, known ? known.message : 'the read failed');
  }
}

/** `resources/list`: the public, indexable resources (the search's rule), 100 a page, by id. */
async function listResources(face: McpRuntime, base: string, cursor: string | undefined) {
  const query: [string, string][] = [['pagelen', String(RESOURCE_PAGE)]];
  if (cursor !== undefined) {
    const m = /^([0-9]{1,5})\.([A-Za-z0-9_-]{16,1024})$/.exec(cursor);
    if (!m) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'parameter "cursor": malformed continuation');
    query.push(['page', m[1]!], ['cursor', m[2]!]);
  }
  try {
    const result = await withBudget(face.ctx.options.budgetMs, () => face.reads.search({ base, path: PATHS.search.url(), query }));
    const next = result.next_url ? new URL(result.next_url).searchParams : undefined;
    return {
      resources: result.items.map((item) => ({
        uri: absoluteUrl(base, PATHS.markdown.url({ id: item.id })),
        name: item.title || `resource ${item.id}`,
        title: item.title,
        ...(item.summary ? { description: item.summary } : {}),
        mimeType: 'text/markdown',
      })),
      ...(next ? { nextCursor: `${next.get('page')}.${next.get('cursor')}` } : {}),
    };
  } catch (error) {
    const known = classifyError(error);
    if (known?.status === 400) throw new ProtocolError(ProtocolErrorCode.InvalidParams, known.message);
    throw new ProtocolError(ProtocolErrorCode.InternalError, known ? known.message : 'the read failed');
  }
}

/** The tools (from the route table), their listing and a server factory for one plugin. */
export function createMcpFace(ctx: AgentContext, table: readonly Route<AgentContext>[]): McpFace {
  const tools = routeTools(ctx, table);
  const listed = tools.map(listedTool);
  const face: McpRuntime = { ctx, tools: new Map(tools.map((t) => [t.name, t])), reads: resourceReads(ctx, table) };
  return Object.freeze({
    tools,
    listed,
    server(base: string): Server {
      const server = new Server(
        { name: serverCardName(base), version: MCP_SERVER_VERSION, title: ctx.options.siteTitle },
        {
          capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
          instructions:
            `${mcpDescription(ctx.options)} Start with the search tool (or schema for categories), read a result with read_resource, ` +
            'and cite its page_url. Every resource is also readable as Markdown through the resource template.',
        },
      );
      server.setRequestHandler('tools/list', () => ({ tools: [...listed] }));
      server.setRequestHandler('tools/call', (req) => callTool(face, base, req.params.name, req.params.arguments ?? {}));
      server.setRequestHandler('resources/templates/list', () => ({
        resourceTemplates: [
          {
            uriTemplate: `${base}${PATHS.markdown.template}{?language}`,
            name: 'resource-markdown',
            title: 'A public resource as Markdown',
            description: `id: a resource id or unique name; language: one of ${ctx.options.languages.join(', ')}.`,
            mimeType: 'text/markdown',
          },
        ],
      }));
      server.setRequestHandler('resources/list', (req) => listResources(face, base, req.params?.cursor));
      server.setRequestHandler('resources/read', (req) => readResource(face, base, req.params.uri));
      return server;
    },
  });
}
