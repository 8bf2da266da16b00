import { availableParallelism } from 'node:os';
import Tinypool from 'tinypool';
import { boundedHtmlToMarkdown, type ConvertOptions } from './convert.js';
import type { ConversionTask } from './convert-worker.js';
import type { MarkdownLimits } from './limits.js';
import { MARKER_NONCE, markerText } from './markers.js';
import type { RenderBudget } from './render-budget.js';

export interface ConvertedMarkdown {
  markdown: string;
  /** False when anything was cut, flattened, or the conversion ran out of budget. */
  complete: boolean;
}

/**
 * Converts composed HTML to Markdown within the limits (`boundedHtmlToMarkdown`) and the render
 * budget: a conversion still running at the budget's deadline is abandoned (a worker is terminated
 * and replaced) and its result discarded, and the Markdown is the budget marker alone.
 */
export interface MarkdownConverter {
  convert(html: string, options: ConvertOptions, limits: MarkdownLimits, budget: RenderBudget): Promise<ConvertedMarkdown>;
  /** Stops the worker threads, if any; later conversions run in process. */
  close(): Promise<void>;
}

/**
 * HTML up to this many characters is converted on the calling thread: a worker round trip costs more
 * than converting it (measured by `bench/markdown-pool-bench.ts`), and it blocks for at most a few ms.
 */
export const IN_PROCESS_MAX_CHARS = 16 * 1024;

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

const overBudget = (limits: MarkdownLimits): ConvertedMarkdown => ({ markdown: `[${markerText.budgetExceeded(limits.budgetMs)}]`, complete: false });

function convertInProcess(html: string, options: ConvertOptions, limits: MarkdownLimits, budget: RenderBudget): ConvertedMarkdown {
  if (budget.expired) return overBudget(limits);
  const converted = boundedHtmlToMarkdown(html, options, limits);
  return budget.expired ? overBudget(limits) : converted;
}

export interface MarkdownConverterOptions {
  /** Worker threads converting off the event loop; 0 converts in process. Default `defaultMarkdownWorkers()`. */
  workers?: number;
  /** Larger HTML goes to a worker. Default `IN_PROCESS_MAX_CHARS`. */
  inProcessMaxChars?: number;
}

/**
 * A converter of composed HTML: in process with `workers: 0`, else a pool of worker threads started
 * on the first large conversion (tinypool; idle threads do not keep the process alive).
 *
 * ```ts
 * const converter = createMarkdownConverter({ workers: 1 })
 * await converter.convert(html, { baseUrl: 'https://example.org' }, resolveMarkdownLimits(), new RenderBudget(2000))
 * await converter.close()
 * ```
 */
export function createMarkdownConverter(settings: MarkdownConverterOptions = {}): MarkdownConverter {
  const workers = settings.workers ?? defaultMarkdownWorkers();
  const inProcessMaxChars = settings.inProcessMaxChars ?? IN_PROCESS_MAX_CHARS;
  let pool: Tinypool | undefined;
  let closed = workers === 0;

  async function convertInWorker(html: string, options: ConvertOptions, limits: MarkdownLimits, budget: RenderBudget): Promise<ConvertedMarkdown> {
    pool ??= new Tinypool({ filename: workerModule(), minThreads: workers, maxThreads: workers });
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), Math.ceil(budget.remainingMs));
    const task: ConversionTask = { html, options: { ...options, markerNonce: options.markerNonce ?? MARKER_NONCE }, limits };
    try {
      return (await pool.run(task, { signal: abort.signal })) as ConvertedMarkdown;
    } catch (error) {
      if (abort.signal.aborted) return overBudget(limits);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async convert(html, options, limits, budget) {
      if (closed || html.length <= inProcessMaxChars || budget.expired) return convertInProcess(html, options, limits, budget);
      return convertInWorker(html, options, limits, budget);
    },
    async close() {
      closed = true;
      const running = pool;
      pool = undefined;
      await running?.destroy();
    },
  };
}
