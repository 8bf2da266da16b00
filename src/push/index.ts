/**
 * The push road: typed writes into the plugin's own content tables for a CMS whose content lives in
 * another database (`agent.content`, or {@link createContentWriter} on a Kysely of its own).
 */
export { createContentWriter, type ContentWriter, type ContentWriterOptions, type RemoveResult } from './content-writer.js';
export { ContentPushError, type ContentPushErrorCode, type ContentPushErrorDetails } from './push-error.js';
export type { BulkOptions, BulkProgress, BulkResult } from './bulk-writes.js';
export type { PutResult } from './resource-writes.js';
export type { ReconcileResult, ReconcileScope, RemoveLimit } from './reconcile.js';
export type { HostTransaction, WriteOptions } from './write-transaction.js';
export type {
  CategoryInput,
  ContentRef,
  EdgeInput,
  EdgeSetInput,
  MediumInput,
  PredicateInput,
  ReconcileEntry,
  ResourceId,
  ResourceInput,
} from './resource-input.js';
