import type { z } from 'zod';

/**
 * The tags operations are grouped by, each with the description the OpenAPI document gives it. An
 * operation can only carry a tag listed here, so no tag goes undescribed.
 */
export const OPERATION_TAGS = {
  api: 'The API root document: what this API is, where its descriptions are, and its operations.',
  content:
    'Anonymous, read-only reads of the public content: search, localized resources with citation URLs, relationships, vocabulary and Markdown.',
  compatibility:
    "The host model API's edge reads, for existing clients: answered with the caller's own permissions and never stored by caches.",
} as const;

export type OperationTag = keyof typeof OPERATION_TAGS;

/**
 * One documented operation: the registry that builds the OpenAPI document, the API help page and the
 * API root document. The same zod schemas validate the requests.
 */
export interface OperationSpec {
  operationId: string;
  /** OpenAPI path template, e.g. `/api/agent/resource/{id}`. */
  path: string;
  summary: string;
  description: string;
  tags: OperationTag[];
  pathParams?: z.ZodObject;
  query: z.ZodObject;
  /** The success body: JSON `result` schema (enveloped) or a non-JSON media type. */
  response: { kind: 'envelope'; result: z.ZodType } | { kind: 'text'; mediaType: string };
  /** Error statuses this operation can answer. */
  errors: number[];
  /** A query string for the API help's clickable example (without `?`), when meaningful. */
  example?: string;
}
