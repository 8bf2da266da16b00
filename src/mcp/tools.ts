import { z } from 'zod';
import type { AgentContext } from '../context.js';
import { badRequest, HttpError } from '../http/errors.js';
import { runRoute } from '../http/responder.js';
import type { Route, RouteTool, TextBody } from '../http/route.js';
import { absoluteUrl, type PathTemplate } from '../http/urls.js';
import { itemsThatFit, markdownPart, MAX_TOOL_RESULT_CHARS, SKIP_ARGUMENT, skipArgument, START_ARGUMENT, startArgument, withToolArgument } from './tool-bounds.js';

/** A JSON object of tool arguments, as a client sent it. */
export type ToolArguments = Record<string, unknown>;

/** What a tool answers: Markdown text and/or a structured result (already stripped to its schema). */
export interface ToolOutput {
  text?: string;
  structured: Record<string, unknown>;
}

/** One MCP tool: a route of the table (its `tool`), with the route's own parameter schemas. */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The arguments: exactly the route's query parameters, plus `id` for the reads of one resource. */
  input: z.ZodObject;
  output: z.ZodType;
  run(base: string, args: ToolArguments): Promise<ToolOutput>;
}

/**
 * The tool arguments as the route's query pairs. Values are strings as on the URL; a JSON number is
 * taken as its decimal string and `null` as absent. Anything else is a 400 naming the argument, as a
 * malformed query value is.
 */
function argumentPairs(args: ToolArguments, skip: readonly string[] = []): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(args)) {
    if (skip.includes(name) || value === undefined || value === null) continue;
    if (typeof value === 'string') pairs.push([name, value]);
    else if (typeof value === 'number' && Number.isFinite(value)) pairs.push([name, String(value)]);
    else throw badRequest(name, 'expected a string');
  }
  return pairs;
}

/** A path parameter's argument (`id` of the reads of one resource). */
function pathArgument(args: ToolArguments, name: string): string {
  const value = args[name];
  if (value === undefined || value === null) throw badRequest(name, 'required (a resource id or unique name)');
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') throw badRequest(name, 'expected a string');
  return value;
}

/** The arguments that continue a paged result: its `next_url` query as an object, or null. */
function nextArguments(nextUrl: string | null, extra: Record<string, string> = {}): Record<string, string> | null {
  return nextUrl ? { ...extra, ...Object.fromEntries(new URL(nextUrl).searchParams) } : null;
}

/** A paged result plus the arguments of its next call. */
const withNextArguments = <T extends z.ZodObject>(result: T) =>
  result.extend({
    next_arguments: z
      .record(z.string(), z.string())
      .nullable()
      .describe('Arguments for the next page (page and cursor added), or null on the last page.'),
  });

type TableRoute = Route<AgentContext>;

/** The route of the table at `path` (the text of a tool, the reads of the MCP resources). */
export function routeAt(table: readonly TableRoute[], path: PathTemplate): TableRoute {
  const route = table.find((r) => r.path === path);
  if (!route) throw new Error(`no route at ${path.template}`);
  return route;
}

/** The mask of `ZodObject.omit` for these keys. */
const omitMask = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, true])) as Parameters<z.ZodObject['omit']>[0];

/** A tool-only argument (`skip`, `start`) as a number, validated by its schema (0 when absent). */
function toolArgument(args: ToolArguments, name: string, schema: z.ZodType): number {
  const value = args[name];
  if (value === undefined || value === null) return 0;
  const parsed = schema.safeParse(typeof value === 'number' ? String(value) : value);
  if (!parsed.success) throw badRequest(name, parsed.error.issues[0]!.message);
  return (parsed.data as number | undefined) ?? 0;
}

/** The string form of the arguments, as `next_arguments` gives them back. */
const stringArguments = (args: ToolArguments, params: Record<string, string>, query: readonly [string, string][]) =>
  ({ ...params, ...Object.fromEntries(query) }) as Record<string, string>;

/**
 * A page bounded for a tool result: the items from `skip` on that fit (`itemsThatFit`); when some are
 * left, `next_arguments` asks for the same page again with `skip` past the ones given, else the route's
 * next page. `next` says whether the walk goes on.
 */
function boundedPage(page: { items: unknown[]; next_url?: string | null }, skip: number, args: Record<string, string>, params: Record<string, string>) {
  const rest = page.items.slice(skip);
  const routeNext = nextArguments(page.next_url ?? null, params);
  const fit = itemsThatFit({ ...page, next_arguments: routeNext }, rest);
  const cut = fit < rest.length;
  const next_arguments = cut ? { ...args, [SKIP_ARGUMENT]: String(skip + fit) } : routeNext;
  return { ...page, items: rest.slice(0, fit), next: next_arguments !== null, next_arguments };
}

/** One tool from a route that carries a `tool`: its arguments, its result and a run of the route. */
function toolOf(ctx: AgentContext, table: readonly TableRoute[], route: TableRoute, tool: RouteTool): ToolSpec {
  if (route.response.kind !== 'envelope') throw new Error(`the tool ${tool.name} needs a JSON result`);
  const query = route.query ?? z.object({}).strict();
  const routeInput = route.params ? route.params.extend(query.shape).strict() : query;
  const result = route.response.result as z.ZodObject;
  const output = tool.paged ? withNextArguments(result) : tool.omit ? result.omit(omitMask(tool.omit)) : result;
  const textRoute = tool.text ? routeAt(table, tool.text) : undefined;
  const input = tool.paged
    ? withToolArgument(routeInput, SKIP_ARGUMENT, skipArgument)
    : textRoute
      ? withToolArgument(routeInput, START_ARGUMENT, startArgument)
      : routeInput;
  const pathNames = route.path.params;
  const toolOnly = [...pathNames, SKIP_ARGUMENT, START_ARGUMENT];
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    input,
    output,
    async run(base, args) {
      const params: Record<string, string> = Object.fromEntries(pathNames.map((name) => [name, pathArgument(args, name)]));
      const query = argumentPairs(args, toolOnly);
      const skip = tool.paged ? toolArgument(args, SKIP_ARGUMENT, skipArgument) : 0;
      const start = textRoute ? toolArgument(args, START_ARGUMENT, startArgument) : 0;
      const json = runRoute(route, ctx, { base, path: route.path.url(params), query }, params);
      if (textRoute) {
        const textPath = textRoute.path.url(params);
        const [read, text] = await Promise.all([json, runRoute(textRoute, ctx, { base, path: textPath, query }, params)]);
        const structured = output.parse(read) as Record<string, unknown>;
        return { text: markdownText((text as TextBody).body, start, structured, stringArguments(args, params, query), absoluteUrl(base, textPath, Object.fromEntries(query))), structured };
      }
      const structured = (await json) as { items: unknown[]; next_url?: string | null };
      if (!tool.paged) return { structured };
      return { structured: boundedPage(structured, skip, stringArguments(args, params, query), params) };
    },
  };
}

/**
 * The text of a read: its Markdown from `start`, whole when it fits in a tool result beside the
 * structured result, else the part that fits and a note saying how to read on (`start`) and where the
 * whole is. A `start` at or past the end is a 400 naming it.
 */
function markdownText(markdown: string, start: number, structured: Record<string, unknown>, args: Record<string, string>, url: string): string {
  if (start > 0 && start >= markdown.length) throw badRequest(START_ARGUMENT, `is past the end of the Markdown (${markdown.length} characters)`);
  const part = markdownPart(markdown, start, JSON.stringify(structured).length);
  const from = start > 0 ? `[… continued from character ${start} of ${markdown.length}]\n\n` : '';
  if (part.next === undefined) return from + part.text;
  const rest = JSON.stringify({ ...args, [START_ARGUMENT]: String(part.next) });
  return (
    `${from}${part.text}\n\n[… cut at character ${part.next} of ${markdown.length} to keep this result under ${MAX_TOOL_RESULT_CHARS} characters. ` +
    `Read on with read_resource ${rest}, or fetch the whole Markdown: ${url}]\n`
  );
}

/** The tools: every route of the table that carries a `tool`, in their `tools/list` order. */
export function routeTools(ctx: AgentContext, table: readonly TableRoute[]): ToolSpec[] {
  return table
    .filter((r): r is TableRoute & { tool: RouteTool } => r.tool !== undefined)
    .sort((a, b) => a.tool.listed - b.tool.listed)
    .map((r) => toolOf(ctx, table, r, r.tool));
}

/**
 * A zod schema as the JSON Schema of a tool: what the client sends (`input`) or receives (`output`),
 * without `$schema` (MCP clients read the 2020-12 dialect by default).
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): { type: 'object'; [key: string]: unknown } {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...json, type: 'object' };
}

/** A tool's error as text: the same envelope the HTTP route answers with. */
export function toolErrorText(error: HttpError): string {
  return JSON.stringify({ status: 'error', error: error.code, message: error.message });
}
