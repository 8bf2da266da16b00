import type nunjucks from 'nunjucks';
import { z } from 'zod';
import type { ResolvedOptions } from '../options.js';
import { unavailable } from '../http/errors.js';
import type { OperationSpec } from '../http/operations.js';
import { PATHS } from '../paths.js';
import { absoluteUrl, resolveOnBase } from '../http/urls.js';

export const API_HELP_TEMPLATE = 'agent_api_help.njk';

/** One documented parameter, as the help page shows it. */
export interface HelpParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description: string;
  values: string;
}

/** One documented operation, as the help page shows it. */
export interface HelpOperation {
  operationId: string;
  method: 'GET';
  path: string;
  summary: string;
  description: string;
  responseType: string;
  errors: number[];
  parameters: HelpParameter[];
  exampleUrl?: string;
}

/** The `discovery` variable of the `agent_api_help` template. */
export interface DiscoveryVariable {
  site: { title: string; description: string | null; baseUrl: string; languages: string[]; defaultLanguage: string; budgetSeconds: number };
  links: {
    apiHelp: string;
    openapi: string;
    apiCatalog: string;
    llmsTxt: string;
    ard: string;
    sitemap: string | null;
    /** The MCP endpoint and its server card, or null when the `mcp` option is off. */
    mcp: string | null;
    mcpServerCard: string | null;
  };
  operations: HelpOperation[];
  examples: { search: string | null; browse: string };
}

function describeValues(field: z.ZodType): string {
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(field, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
    if (!('type' in schema) && !('enum' in schema)) schema = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  } catch {
    return '';
  }
  const parts: string[] = [];
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.join(', ')}`);
  else if (typeof schema.type === 'string') parts.push(schema.type);
  if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') parts.push(`${schema.minimum}..${schema.maximum}`);
  if (schema.default !== undefined) parts.push(`default ${String(schema.default)}`);
  return parts.join(', ');
}

function helpParameters(op: OperationSpec): HelpParameter[] {
  const list: HelpParameter[] = [];
  const add = (where: 'path' | 'query', shape: Record<string, z.ZodType>) => {
    for (const [name, field] of Object.entries(shape)) {
      list.push({
        name,
        in: where,
        required: where === 'path' || !field.safeParse(undefined).success,
        description: field.description ?? '',
        values: describeValues(field),
      });
    }
  };
  if (op.pathParams) add('path', op.pathParams.shape as Record<string, z.ZodType>);
  add('query', op.query.shape as Record<string, z.ZodType>);
  return list;
}

/** Builds the `discovery` variable from the site options and the operation registry. */
export function discoveryVariable(
  options: ResolvedOptions,
  base: string,
  operations: readonly OperationSpec[],
  exampleWord: string | undefined,
): DiscoveryVariable {
  return {
    site: {
      title: options.siteTitle,
      description: options.description ?? null,
      baseUrl: base,
      languages: [...options.languages],
      defaultLanguage: options.defaultLanguage,
      budgetSeconds: options.budgetMs / 1000,
    },
    links: {
      apiHelp: absoluteUrl(base, PATHS.apiHelp.url()),
      openapi: absoluteUrl(base, PATHS.openapi.url()),
      apiCatalog: absoluteUrl(base, PATHS.apiCatalog.url()),
      llmsTxt: absoluteUrl(base, PATHS.llmsTxt.url()),
      ard: absoluteUrl(base, PATHS.ard.url()),
      sitemap: options.sitemapUrl ? resolveOnBase(base, options.sitemapUrl) : null,
      mcp: options.mcp ? absoluteUrl(base, options.mcp.path) : null,
      mcpServerCard: options.mcp ? absoluteUrl(base, PATHS.mcpServerCard(options.mcp.path).url()) : null,
    },
    operations: operations.map((op) => ({
      operationId: op.operationId,
      method: 'GET',
      path: op.path,
      summary: op.summary,
      description: op.description,
      responseType: op.response.kind === 'envelope' ? 'application/json' : op.response.mediaType,
      errors: [...op.errors],
      parameters: helpParameters(op),
      ...(op.example !== undefined && !op.path.includes('{') ? { exampleUrl: `${absoluteUrl(base, op.path)}?${op.example}` } : {}),
    })),
    examples: {
      search: exampleWord ? absoluteUrl(base, PATHS.search.url(), { text: exampleWord, pagelen: 5 }) : null,
      browse: absoluteUrl(base, PATHS.search.url(), { sort: 'newest', pagelen: 5 }),
    },
  };
}

/** Renders the API help page; a template that cannot render is a 503 (templates not available). */
export function renderApiHelp(env: nunjucks.Environment, discovery: DiscoveryVariable): string {
  try {
    return env.render(API_HELP_TEMPLATE, { discovery });
  } catch {
    throw unavailable('the API help template could not be rendered; retry later');
  }
}
