import { parseArgs } from 'node:util';
import { isLanguageTag } from '../content/language.js';
import { createContentWriter, ContentPushError, type ContentWriter } from '../push/index.js';
import { RECORD_CALLS } from '../push/push-calls.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliCommand } from './command.js';
import { describe, target } from './migrate.js';
import { ndjsonLines, openContentDatabase, type PipeIo } from './ndjson.js';

const HELP = `Usage: express-agent-discovery push [--database-url <url> | --data-dir <dir>] [options] [file | -]

Writes content into the plugin's tables from NDJSON: one JSON object a line, read
from the file, or from standard input when it is "-" or left out. Each record is
one call of the push API (docs/reference/content-api.md), named by its key:

  {"put": {"id": "5f2b9c1e8a4d3b0017a1c2d3", "category": "post", "title": "Hello", "body": "<p>Hi</p>"}}
  {"remove": "5f2b9c1e8a4d3b0017a1c2d3"}
  {"putCategory": {"name": "post", "title": "Posts"}}
  {"putPredicate": {"name": "tagged", "subjects": ["post"], "objects": ["tag"]}}
  {"setEdges": {"subject": "5f2b…", "predicate": "tagged", "objects": ["news"]}}
  also putEdge, removeEdge, removeCategory, removePredicate, putMedium, removeMedium

Records are applied in order; consecutive put, putEdge and setEdges records are
written in batches (putMany, putEdgeMany, setEdgesMany), each batch one
transaction. Blank lines are skipped. When a line is refused, every line before
it has been applied.

Options:
  --database-url <url>  PostgreSQL connection string (default: DATABASE_URL)
  --data-dir <dir>      an embedded PGlite data directory instead
  --language <tag>      the language of text given as one string (default en)
  --batch-size <n>      records per batch (default 500, at most 10000)
  --keep-going          report a refused line and go on (default: stop at the
                        first refused line; what came before it stays written)
  --json                print the summary as JSON
  -h, --help            show this help

Each refused line is reported on standard error with its number and the push
API's error ("line 17: content.put: title: must not contain NUL …"); a lost
connection is retried twice, then the command stops. The summary counts the
records applied by call, and the refused lines.
Exit status: 0 every record applied, 1 a line refused or the database failed,
2 wrong usage.
`;

/** The calls consecutive records of which are written together, and the bulk call that writes them. */
const BATCHED: Record<string, 'putMany' | 'putEdgeMany' | 'setEdgesMany'> = { put: 'putMany', putEdge: 'putEdgeMany', setEdges: 'setEdgesMany' };
/** How long to wait before each retry of a batch or call that failed on a lost connection. */
const RETRY_DELAYS_MS = [500, 2000];

/** A record of the input: its line and the call it names with the call's input. */
interface PushRecord {
  readonly line: number;
  readonly call: string;
  readonly input: unknown;
}

/** What a run did, for the summary. */
interface PushSummary {
  lines: number;
  applied: Record<string, number>;
  refused: { line: number; message: string }[];
  stopped?: string;
}

/** The record a parsed line holds, or why it holds none. */
function toRecord(line: number, value: unknown): PushRecord | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'expected a JSON object such as {"put": {…}}';
  const keys = Object.keys(value);
  const call = keys[0];
  if (keys.length !== 1 || call === undefined || !RECORD_CALLS.has(call)) {
    return `expected one key naming a call (${[...RECORD_CALLS.keys()].join(', ')}), got ${keys.length ? keys.map((k) => JSON.stringify(k)).join(', ') : 'none'}`;
  }
  return { line, call, input: (value as Record<string, unknown>)[call] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work`, again after a pause when it failed on a lost connection (it left nothing behind). */
async function withRetries<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ContentPushError && error.retryable) || attempt >= RETRY_DELAYS_MS.length) throw error;
      await sleep(RETRY_DELAYS_MS[attempt]!);
    }
  }
}

/**
 * Applies a run of consecutive records of one batched call with its bulk call. A refused record is
 * reported with its line; with `keepGoing` the records after it (from the first one not written)
 * are written again without it. Returns false when the run must stop.
 */
async function applyBatch(push: ContentWriter, records: PushRecord[], batchSize: number, keepGoing: boolean, summary: PushSummary, report: (line: number, message: string) => void): Promise<boolean> {
  const call = records[0]!.call;
  const bulk = BATCHED[call]!;
  const count = (n: number) => {
    if (n > 0) summary.applied[call] = (summary.applied[call] ?? 0) + n;
  };
  let rest = records;
  while (rest.length) {
    // `written`: the records of `rest` written so far (whole batches); `start`: where the last attempt began.
    let written = 0;
    let start = 0;
    try {
      await withRetries(async () => {
        start = written;
        await push[bulk](rest.slice(start).map((r) => r.input) as never[], { batchSize, onProgress: (p) => (written = start + p.written) });
      });
      count(rest.length);
      return true;
    } catch (error) {
      count(written);
      if (!(error instanceof ContentPushError) || error.index === undefined) throw error;
      const at = start + error.index;
      const bad = rest[at]!;
      const refusal = `content.${call}: ${error.field ? `${error.field}: ` : ''}${error.detail}`;
      if (!keepGoing) {
        // Every line before the refused one is applied, also those that shared its batch; when one of
        // them is refused in turn (a line refused by the database, before one refused on reading), it is
        // the first failing line: it is reported, and the run stops there.
        const before = rest.slice(written, at);
        if (before.length && !(await applyBatch(push, before, batchSize, false, summary, report))) return false;
        report(bad.line, refusal);
        return false;
      }
      report(bad.line, refusal);
      rest = rest.slice(written).filter((r) => r !== bad);
    }
  }
  return true;
}

/** Applies one record that is not batched (a removal, the vocabulary, a medium). */
async function applyOne(push: ContentWriter, record: PushRecord): Promise<void> {
  const method = push[record.call as keyof ContentWriter] as (input: unknown) => Promise<unknown>;
  await withRetries(() => method.call(push, record.input));
}

/** Reads the records of `source` and applies them in order; the summary of what was done. */
export async function pushRecords(push: ContentWriter, source: string, io: PipeIo, options: { batchSize: number; keepGoing: boolean }): Promise<PushSummary> {
  const summary: PushSummary = { lines: 0, applied: {}, refused: [] };
  const report = (line: number, message: string) => {
    summary.refused.push({ line, message });
    io.err(`line ${line}: ${message}\n`);
  };
  let run: PushRecord[] = [];
  const flush = async () => {
    const records = run;
    run = [];
    return records.length ? applyBatch(push, records, options.batchSize, options.keepGoing, summary, report) : true;
  };
  for await (const parsed of ndjsonLines(source, io)) {
    summary.lines += 1;
    const record = parsed.error === undefined ? toRecord(parsed.line, parsed.value) : parsed.error;
    if (typeof record === 'string') {
      report(parsed.line, record);
      if (options.keepGoing) continue;
      await flush();
      summary.stopped = `line ${parsed.line}`;
      return summary;
    }
    if (record.call in BATCHED && (run.length === 0 || run[0]!.call === record.call) && run.length < options.batchSize) {
      run.push(record);
      continue;
    }
    if (!(await flush())) {
      summary.stopped = `line ${summary.refused.at(-1)!.line}`;
      return summary;
    }
    if (record.call in BATCHED) {
      run.push(record);
      continue;
    }
    try {
      await applyOne(push, record);
      summary.applied[record.call] = (summary.applied[record.call] ?? 0) + 1;
    } catch (error) {
      if (!(error instanceof ContentPushError) || error.retryable) throw error;
      report(record.line, `content.${record.call}: ${error.field ? `${error.field}: ` : ''}${error.detail}`);
      if (!options.keepGoing) {
        summary.stopped = `line ${record.line}`;
        return summary;
      }
    }
  }
  if (!(await flush())) summary.stopped = `line ${summary.refused.at(-1)!.line}`;
  return summary;
}

/** The summary as one line of text. */
function formatSummary(summary: PushSummary): string {
  const applied = Object.entries(summary.applied).map(([call, n]) => `${call} ${n.toLocaleString('en')}`);
  const refused = summary.refused.length ? `; ${summary.refused.length} refused (line${summary.refused.length > 1 ? 's' : ''} ${summary.refused.slice(0, 10).map((r) => r.line).join(', ')}${summary.refused.length > 10 ? ', …' : ''})` : '';
  const stopped = summary.stopped ? `; stopped at ${summary.stopped}` : '';
  return `${summary.lines.toLocaleString('en')} lines: ${applied.length ? applied.join(', ') : 'nothing applied'}${refused}${stopped}\n`;
}

/** `express-agent-discovery push`: NDJSON records into the push API. */
export const pushCommand: CliCommand = {
  summary: 'write content from NDJSON records (put, remove, edges, vocabulary) through the push API',
  async run(args, io: PipeIo) {
    let values;
    let positionals: string[];
    try {
      ({ values, positionals } = parseArgs({
        args: [...args],
        options: {
          'database-url': { type: 'string' },
          'data-dir': { type: 'string' },
          language: { type: 'string' },
          'batch-size': { type: 'string' },
          'keep-going': { type: 'boolean' },
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
        allowPositionals: true,
      }));
    } catch (error) {
      io.err(`express-agent-discovery push: ${(error as Error).message}\n\n${HELP}`);
      return EXIT_USAGE;
    }
    if (values.help) {
      io.out(HELP);
      return EXIT_OK;
    }
    const usage = (message: string) => (io.err(`express-agent-discovery push: ${message}\n\n${HELP}`), EXIT_USAGE);
    if (positionals.length > 1) return usage('give one file (or - for standard input)');
    const batchSize = values['batch-size'] === undefined ? 500 : Number(values['batch-size']);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) return usage('--batch-size must be an integer from 1 to 10000');
    const language = values.language ?? 'en';
    if (!isLanguageTag(language)) return usage(`--language must be a language tag such as en or pt-BR (got ${JSON.stringify(language)})`);
    const config = target(values, io);
    if (typeof config === 'string') return usage(config);
    const content = await openContentDatabase(config);
    if (typeof content === 'string') {
      io.err(`${content}\n`);
      return EXIT_FAILED;
    }
    try {
      const summary = await pushRecords(createContentWriter(content.db, { defaultLanguage: language }), positionals[0] ?? '-', io, { batchSize, keepGoing: values['keep-going'] === true });
      io.out(values.json ? `${JSON.stringify(summary)}\n` : formatSummary(summary));
      return summary.refused.length ? EXIT_FAILED : EXIT_OK;
    } catch (error) {
      const message = error instanceof ContentPushError ? error.message : `express-agent-discovery push: ${(error as Error).message}`;
      io.err(`${message} (${describe(config)}); the lines before the one in flight were applied\n`);
      return EXIT_FAILED;
    } finally {
      await content.close();
    }
  },
};
