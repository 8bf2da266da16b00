import { z } from 'zod';
import { ERROR_STATUS } from '../http/errors.js';
import { describeApi } from '../representations/api-description.js';
import { OPERATION_TAGS, type OperationSpec, type OperationTag } from '../http/operations.js';

/** What the OpenAPI document says about the site. */
export interface OpenApiSite {
  title: string;
  description?: string;
  base: string;
  /** The licence of the API description, as the OpenAPI License Object; omitted when not configured. */
  license?: { name: string; url?: string; identifier?: string };
}

type JsonSchema = Record<string, unknown>;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request: the message names the parameter and the reason.',
  404: 'Not found (missing, private, unpublished and out-of-window resources alike).',
  405: 'Method not allowed: only GET and HEAD.',
  413: 'The response would exceed the size bound; narrow the request.',
  500: 'Unexpected server error (internal_error); the message carries no detail.',
  503: 'Backend unavailable or templates not ready; retry after Retry-After seconds.',
  504: 'The query exceeded its 5-second budget.',
};

const errorEnvelope = z.object({
  status: z.literal('error'),
  error: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...(keyof typeof ERROR_STATUS)[]]),
  message: z.string(),
});

/** A zod schema as JSON Schema 2020-12 (the OpenAPI 3.1 dialect), without `$schema`. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/**
 * A parameter's schema: the validated (output) shape when it is representable (`page` → integer
 * 1..10000), else the wire (input) shape (`cat` → string with its pattern).
 */
function parameterSchema(field: z.ZodType): JsonSchema {
  const output = jsonSchema(field, 'output');
  return 'type' in output || 'enum' in output || 'const' in output ? output : { ...jsonSchema(field, 'input'), ...output };
}

function parameters(op: OperationSpec): JsonSchema[] {
  const list: JsonSchema[] = [];
  const add = (where: 'path' | 'query', shape: Record<string, z.ZodType>) => {
    for (const [name, field] of Object.entries(shape)) {
      const { description, ...schema } = parameterSchema(field);
      list.push({
        name,
        in: where,
        required: where === 'path' || !field.safeParse(undefined).success,
        ...(typeof description === 'string' ? { description } : {}),
        schema,
      });
    }
  };
  if (op.pathParams) add('path', op.pathParams.shape as Record<string, z.ZodType>);
  add('query', op.query.shape as Record<string, z.ZodType>);
  return list;
}

const etagHeader = { ETag: { description: 'Strong validator; send it back in If-None-Match.', schema: { type: 'string' } } };

function operation(op: OperationSpec, head: boolean): JsonSchema {
  const success = op.response.kind === 'envelope'
    ? { 'application/json': { schema: jsonSchema(z.object({ status: z.literal('ok'), result: op.response.result }), 'output') } }
    : { [op.response.mediaType.split(';')[0]!.trim()]: { schema: { type: 'string' } } };
  const responses: JsonSchema = {
    200: {
      description: head ? 'The headers of the GET response, without a body.' : 'Success.',
      headers: etagHeader,
      ...(head ? {} : { content: success }),
    },
    304: { description: 'Not modified (If-None-Match matched the ETag).', headers: etagHeader },
  };
  // Any route may meet an unexpected error: 500 is documented on every operation.
  for (const status of [...new Set([...op.errors, 500])].sort((x, y) => x - y)) {
    responses[status] = {
      description: STATUS_TEXT[status] ?? 'Error.',
      ...(head ? {} : { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } }),
    };
  }
  return {
    operationId: head ? `${op.operationId}Head` : op.operationId,
    summary: head ? `${op.summary} (headers only)` : op.summary,
    description: head
      ? 'HEAD: the same status and headers as GET (ETag included), no body.'
      : `${op.description} Also answers HEAD with the same headers and no body.`,
    tags: op.tags,
    parameters: parameters(op),
    responses,
  };
}

/**
 * The OpenAPI 3.1.0 document of the registered operations: parameters from each operation's zod
 * `pathParams` and `query` (the schemas that validate requests), the `{status:'ok', result}` envelope
 * around each result schema, the error envelope for each error status, and a `head` operation
 * beside every `get`.
 */
export function buildOpenApi(operations: readonly OperationSpec[], site: OpenApiSite): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  const used = new Set<OperationTag>();
  for (const op of operations) {
    op.tags.forEach((t) => used.add(t));
    paths[op.path] = { ...(paths[op.path] ?? {}), get: operation(op, false), head: operation(op, true) };
  }
  const tags = (Object.keys(OPERATION_TAGS) as OperationTag[]).filter((t) => used.has(t));
  return {
    openapi: '3.1.0',
    info: {
      ...describeApi(site),
      version: '1.0.0',
      ...(site.license ? { license: site.license } : {}),
    },
    servers: [{ url: site.base }],
    // Every operation is anonymous: no security scheme applies.
    security: [],
    tags: tags.map((name) => ({ name, description: OPERATION_TAGS[name] })),
    paths,
    components: { schemas: { ErrorEnvelope: jsonSchema(errorEnvelope, 'output') } },
  };
}
