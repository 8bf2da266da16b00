import { availableParallelism } from 'node:os';
import Tinypool from 'tinypool';
import { boundedHtmlToMarkdown, type ConvertOptions } from './convert.js';
import type { ConversionTask } from './convert-worker.js';
import type { MarkdownLimits } from './limits.js';
import { MARKER_NONCE } from './markers.js';
import { DEFAULT_BUDGET_MS } from '../options.js';

export interface ConvertedMarkdown {
  markdown: string;
  /** False when anything was cut or flattened. */
  complete: boolean;
}

/** A conversion in a worker still running `timeoutMs` after it was asked for: abandoned, its worker replaced. */
export class ConversionTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`express-agent-discovery: the Markdown conversion exceeded its ${timeoutMs} ms budget`);
    this.name = 'ConversionTimeoutError';
  }
}

/**
 * Converts composed HTML to Markdown within the limits (`boundedHtmlToMarkdown`). In a worker, a
 * conversion still running `timeoutMs` after it was asked for (queueing included) is abandoned: the
 * worker is terminated and replaced, and the promise rejects with `ConversionTimeoutError`. The
 * request that asked has answered by then (504, its own budget started earlier).
 */
export interface MarkdownConverter {
  convert(html: string, options: ConvertOptions, limits: MarkdownLimits): Promise<ConvertedMarkdown>;
  /** Stops the worker threads, if any; later conversions run in process. */
  close(): Promise<void>;
}

/**
 * HTML up to this many characters is converted on the calling thread: through a worker, 1 to 32 KiB of
 * dense markup took 1.4 to 3 times as long (`bench/markdown-pool-bench.ts`), and 8 KiB of dense markup
 * (the worst case per KiB) blocked the event loop for 13 to 35 ms on a heavily loaded 2-core machine.
 */
export const IN_PROCESS_MAX_CHARS = 8 * 1024;

/** The default `markdownWorkers`: one core left to the event loop, at most 4 threads. */
export function defaultMarkdownWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/**
 * The worker module beside this one: `convert-worker.js` once built. From the source tree (tests and
 * benches under tsx), `convert-worker.ts` through a `data:` module that registers tsx in the worker
 * first: on Node 20 a worker thread does not inherit the loader hooks of `--import tsx`.
 */
function workerModule(): string {
  if (!import.meta.url.endsWith('.ts')) return new URL('./convert-worker.js', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const worker = new URL('./convert-worker.ts', import.meta.url).href;
  const source = `const tsx = await import(${JSON.stringify(tsx)}); tsx.register(); export default (await import(${JSON.stringify(worker)})).default;`;
  return `data:text/javascript,${encodeURIComponent(source)}`;
}

export interface MarkdownConverterOptions {
  /** Worker threads converting off the event loop; 0 converts in process. Default `defaultMarkdownWorkers()`. */
  workers?: number;
  /** Larger HTML goes to a worker. Default `IN_PROCESS_MAX_CHARS`. */
  inProcessMaxChars?: number;
  /** How long a worker conversion may take, queueing included: the request budget (`budgetMs`). Default 5000. */
  timeoutMs?: number;
}

/**
 * A converter of composed HTML: in process with `workers: 0` (or below `inProcessMaxChars`), else a
 * pool of worker threads started on the first large conversion (tinypool; idle threads do not keep
 * the process alive). An in-process conversion cannot be interrupted (as before the pool).
 *
 * ```ts
 * const converter = createMarkdownConverter({ workers: 1 })
 * await converter.convert(html, { baseUrl: 'https://example.org' }, resolveMarkdownLimits())
 * await converter.close()
 * ```
 */
export function createMarkdownConverter(settings: MarkdownConverterOptions = {}): MarkdownConverter {
  const workers = settings.workers ?? defaultMarkdownWorkers();
  const inProcessMaxChars = settings.inProcessMaxChars ?? IN_PROCESS_MAX_CHARS;
  const timeoutMs = settings.timeoutMs ?? DEFAULT_BUDGET_MS;
  let pool: Tinypool | undefined;
  let closed = workers === 0;

  async function convertInWorker(html: string, options: ConvertOptions, limits: MarkdownLimits): Promise<ConvertedMarkdown> {
    pool ??= new Tinypool({ filename: workerModule(), minThreads: workers, maxThreads: workers });
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    const task: ConversionTask = { html, options: { ...options, markerNonce: options.markerNonce ?? MARKER_NONCE }, limits };
    try {
      return (await pool.run(task, { signal: abort.signal })) as ConvertedMarkdown;
    } catch (error) {
      if (abort.signal.aborted) throw new ConversionTimeoutError(timeoutMs);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async convert(html, options, limits) {
      if (closed || html.length <= inProcessMaxChars) return boundedHtmlToMarkdown(html, options, limits);
      return convertInWorker(html, options, limits);
    },
    async close() {
      closed = true;
      const running = pool;
      pool = undefined;
      await running?.destroy();
    },
  };
}
