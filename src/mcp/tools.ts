import { z } from 'zod';
import type { AgentContext } from '../context.js';
import { PATHS } from '../paths.js';
import type { FacadeCall } from '../http/facade-call.js';
import { badRequest, HttpError } from '../http/errors.js';
import { facadeReads } from '../facade/reads.js';
import { relatedQuery, relatedResult } from '../facade/related-route.js';
import { resourcePath, resourceQuery } from '../facade/resource-route.js';
import { resourceRead } from '../representations/result-schemas.js';
import { schemaQuery, schemaResult } from '../facade/schema-route.js';
import { searchQuery, searchResult } from '../facade/search-route.js';

/** A JSON object of tool arguments, as a client sent it. */
export type ToolArguments = Record<string, unknown>;

/** What a tool answers: Markdown text and/or a structured result (already stripped to its schema). */
export interface ToolOutput {
  text?: string;
  structured: Record<string, unknown>;
}

/** One MCP tool: a facade read with the route's own parameter schema. */
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
export function argumentPairs(args: ToolArguments, skip: readonly string[] = []): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(args)) {
    if (skip.includes(name) || value === undefined || value === null) continue;
    if (typeof value === 'string') pairs.push([name, value]);
    else if (typeof value === 'number' && Number.isFinite(value)) pairs.push([name, String(value)]);
    else throw badRequest(name, 'expected a string');
  }
  return pairs;
}

/** The `id` argument of a read of one resource (a path parameter on the route). */
function idArgument(args: ToolArguments): string {
  const id = args.id;
  if (id === undefined || id === null) throw badRequest('id', 'required (a resource id or unique name)');
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  if (typeof id !== 'string') throw badRequest('id', 'expected a string');
  return id;
}

/** The arguments that continue a paged result: its `next_url` query as an object, or null. */
function nextArguments(nextUrl: string | null, extra: Record<string, string> = {}): Record<string, string> | null {
  return nextUrl ? { ...extra, ...Object.fromEntries(new URL(nextUrl).searchParams) } : null;
}

const READ_ONLY = 'Read-only and anonymous: only public, published content is ever returned.';
const PAGING = 'Paged: call again with next_arguments (the same arguments plus page and cursor) until it is null.';

/** A paged result plus the arguments of its next call. */
const withNextArguments = <T extends z.ZodObject>(result: T) =>
  result.extend({
    next_arguments: z
      .record(z.string(), z.string())
      .nullable()
      .describe('Arguments for the next page (page and cursor added), or null on the last page.'),
  });

/** The four tools, defined over the facade's reads, schemas and result schemas. */
export function facadeTools(ctx: AgentContext): ToolSpec[] {
  const routes = facadeReads(ctx);
  const call = (base: string, path: string, args: ToolArguments, skip: string[] = []): FacadeCall => ({
    base,
    path,
    query: argumentPairs(args, skip),
  });
  const citation = resourceRead.omit({ content: true });

  return [
    {
      name: 'search',
      title: 'Search public resources',
      description: `Browse or full-text search the site's public, indexable resources; localized summaries with citation page_url. ${PAGING} ${READ_ONLY}`,
      input: searchQuery(ctx.options),
      output: withNextArguments(searchResult),
      async run(base, args) {
        const result = await routes.search(call(base, PATHS.search.url(), args));
        return { structured: { ...result, next_arguments: nextArguments(result.next_url) } };
      },
    },
    {
      name: 'read_resource',
      title: 'Read one resource',
      description:
        'One public resource as Markdown (with its citation front matter when the site adds one), plus the fields to cite it: page_url and page_urls, uri, language fields, license, attribution, medium. ' +
        `Missing, private and unpublished resources are all "resource not found". ${READ_ONLY}`,
      input: resourcePath.extend(resourceQuery(ctx.options).shape).strict(),
      output: citation,
      async run(base, args) {
        const id = idArgument(args);
        const c = call(base, PATHS.resource.url({ id }), args, ['id']);
        const [json, md] = await Promise.all([routes.resource(c, id), routes.markdown(c, id)]);
        return { text: md.body, structured: citation.parse(json) };
      },
    },
    {
      name: 'related',
      title: 'Follow relationships',
      description: `One hop of a public resource's relationships: direction out (default) or in, optionally one predicate (see the schema tool with kind=predicate). ${PAGING} ${READ_ONLY}`,
      input: resourcePath.extend(relatedQuery(ctx.options).shape).strict(),
      output: withNextArguments(relatedResult),
      async run(base, args) {
        const id = idArgument(args);
        const result = await routes.related(call(base, PATHS.related.url({ id }), args, ['id']), id);
        return { structured: { ...result, next_arguments: nextArguments(result.next_url, { id }) } };
      },
    },
    {
      name: 'schema',
      title: 'List the public vocabulary',
      description: `The public categories (kind=category, default; use a name as cat in search) or relationship predicates (kind=predicate). ${PAGING} ${READ_ONLY}`,
      input: schemaQuery(ctx.options),
      output: withNextArguments(schemaResult),
      async run(base, args) {
        const result = await routes.schema(call(base, PATHS.schema.url(), args));
        return { structured: { ...result, next_arguments: nextArguments(result.next_url) } };
      },
    },
  ];
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
