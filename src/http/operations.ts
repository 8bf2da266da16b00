import type { z } from 'zod';

/**
 * One documented operation: the registry that builds the OpenAPI document and the API help page.
 * The same zod schemas validate the requests.
 */
export interface OperationSpec {
  operationId: string;
  /** OpenAPI path template, e.g. `/api/agent/resource/{id}`. */
  path: string;
  summary: string;
  description: string;
  tags: string[];
  pathParams?: z.ZodObject;
  query: z.ZodObject;
  /** The success body: JSON `result` schema (enveloped) or a non-JSON media type. */
  response: { kind: 'envelope'; result: z.ZodType } | { kind: 'text'; mediaType: string };
  /** Error statuses this operation can answer. */
  errors: number[];
  /** A query string for the API help's clickable example (without `?`), when meaningful. */
  example?: string;
}
