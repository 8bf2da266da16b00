import type { Request } from 'express';
import type { ContinuationCodec } from './continuation.js';

/**
 * What the HTTP core needs of a mounted plugin: the budget, the size bound, the error hook, the
 * continuation codec, the public base URL and the AI usage preferences. The plugin's `AgentContext` is one; the core never
 * sees the database, the templates or any route.
 */
export interface RouteContext {
  readonly options: {
    readonly budgetMs: number;
    readonly maxBodyBytes: number;
    readonly onError: (error: unknown, req: Request) => void;
  };
  /** Seals and opens the keyset continuations of `next_url`. */
  readonly continuations: ContinuationCodec;
  /** The public origin for absolute URLs (configured, or from the request with trust proxy honoured). */
  baseUrl(req: Request): string;
  /** The `Content-Usage` value of content answers, read now; undefined when no preference is set. */
  contentUsage?(): Promise<string | undefined>;
}
