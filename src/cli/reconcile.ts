import { parseArgs } from 'node:util';
import { createContentWriter, ContentPushError, type ReconcileEntry, type ReconcileResult, type RemoveLimit } from '../push/index.js';
import { removeLimit } from '../push/resource-input.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliCommand } from './command.js';
import { describe, target } from './migrate.js';
import { ndjsonLines, openContentDatabase, type PipeIo } from './ndjson.js';

const HELP = `Usage: express-agent-discovery reconcile [--database-url <url> | --data-dir <dir>] [options] [file | -]

Repairs drift between your CMS and the plugin's tables (agent.content.reconcile):
reads the list of every resource your CMS shows now, one JSON line each, from the
file or from standard input ("-" or left out):

  {"id": "5f2b9c1e8a4d3b0017a1c2d3", "modified": "2025-03-01T10:00:00Z"}
  {"id": 42}
  "5f2b9c1e8a4d3b0017a1c2d4"          (an id alone)

Every pushed resource in scope that the list does not name is removed; listed
ones stored with another "modified" are stale, unknown ones missing: push those
again. The whole run is one transaction, and a line that is not a valid entry
stops it before anything is removed (a skipped line would remove its resource).

Options:
  --database-url <url>  PostgreSQL connection string (default: DATABASE_URL)
  --data-dir <dir>      an embedded PGlite data directory instead
  --category <name>     only resources in this category and its subcategories
                        (repeatable; default every resource but categories and
                        predicates)
  --max-remove <n|%>    the most a run may remove: a count (25) or a share of
                        what is in scope (10%); default 10%. A run over it
                        removes nothing and exits 1, and so does an empty list
                        unless --max-remove 100%
  --dry-run             report what would be removed, remove nothing (exits 1
                        when a real run would be refused)
  --json                print the result as JSON: {"removed":[…],"stale":[…],
                        "missing":[…],"listed":n,"inScope":n}
  -h, --help            show this help

Without --json: a summary line, then the ids to push again, one a line
("stale <id>", "missing <id>"), and those removed ("removed <id>").
Exit status: 0 done, 1 a line refused, the removal limit met (nothing was
removed) or the database failed, 2 wrong usage.

In a cron job, keep the guard and let a failed export stop the pipe:

  set -o pipefail; cms-export-ids | express-agent-discovery reconcile --category post -
`;

/** A line's entry: `{ id, modified }`, or an id alone. */
const entryOf = (value: unknown): unknown => (typeof value === 'string' || typeof value === 'number' ? { id: value } : value);

/** The entries of `source`; a line that is not JSON stops the run (nothing is removed). */
async function* entries(source: string, io: PipeIo, lines: { at: number }): AsyncGenerator<ReconcileEntry> {
  for await (const parsed of ndjsonLines(source, io)) {
    lines.at = parsed.line;
    if (parsed.error !== undefined) throw new ContentPushError('reconcile', 'invalid_input', undefined, `line ${parsed.line}: ${parsed.error}`);
    yield entryOf(parsed.value) as ReconcileEntry;
  }
}

/** `--max-remove` as `reconcile` takes it (undefined when not given); null when it is neither a count nor a percentage. */
function removeLimitArg(value: string | undefined): RemoveLimit | undefined | null {
  if (value === undefined) return undefined;
  const parsed = removeLimit.safeParse(/^\d+$/.test(value) ? Number(value) : value);
  return parsed.success ? parsed.data : null;
}

function formatResult(result: ReconcileResult, dryRun: boolean): string {
  const lines = [
    `${result.listed.toLocaleString('en')} listed: ${result.removed.length.toLocaleString('en')} ${dryRun ? 'would be removed' : 'removed'}, ${result.stale.length.toLocaleString('en')} stale, ${result.missing.length.toLocaleString('en')} missing`,
    ...result.stale.map((id) => `stale ${id}`),
    ...result.missing.map((id) => `missing ${id}`),
    ...result.removed.map((id) => `${dryRun ? 'would remove' : 'removed'} ${id}`),
    ...(result.refusal ? [`a run would be refused: ${result.refusal}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** `express-agent-discovery reconcile`: the host's list of ids, as NDJSON, into `reconcile`. */
export const reconcileCommand: CliCommand = {
  summary: 'remove what your CMS no longer shows, from an NDJSON list of ids; report what to push again',
  async run(args, io: PipeIo) {
    let values;
    let positionals: string[];
    try {
      ({ values, positionals } = parseArgs({
        args: [...args],
        options: {
          'database-url': { type: 'string' },
          'data-dir': { type: 'string' },
          category: { type: 'string', multiple: true },
          'dry-run': { type: 'boolean' },
          'max-remove': { type: 'string' },
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
        allowPositionals: true,
      }));
    } catch (error) {
      io.err(`express-agent-discovery reconcile: ${(error as Error).message}\n\n${HELP}`);
      return EXIT_USAGE;
    }
    if (values.help) {
      io.out(HELP);
      return EXIT_OK;
    }
    const usage = (message: string) => (io.err(`express-agent-discovery reconcile: ${message}\n\n${HELP}`), EXIT_USAGE);
    if (positionals.length > 1) return usage('give one file (or - for standard input)');
    const maxRemove = removeLimitArg(values['max-remove']);
    if (maxRemove === null) return usage('--max-remove must be a count (25) or a percentage from 0% to 100% (10%)');
    const config = target(values, io);
    if (typeof config === 'string') return usage(config);
    const content = await openContentDatabase(config);
    if (typeof content === 'string') {
      io.err(`${content}\n`);
      return EXIT_FAILED;
    }
    const lines = { at: 0 };
    const dryRun = values['dry-run'] === true;
    try {
      const push = createContentWriter(content.db);
      const result = await push.reconcile(entries(positionals[0] ?? '-', io, lines), { dryRun, maxRemove, ...(values.category ? { categories: values.category } : {}) });
      io.out(values.json ? `${JSON.stringify(result)}\n` : formatResult(result, dryRun));
      return result.refusal ? EXIT_FAILED : EXIT_OK;
    } catch (error) {
      // An entry the push API refused is named by its position in the list: say its line.
      const message =
        error instanceof ContentPushError
          ? error.message.replace(/: current\.(\d+)\.?([\w.]*): /, (_, _index: string, field: string) => `: line ${lines.at}${field ? `: ${field}` : ''}: `)
          : `express-agent-discovery reconcile: ${(error as Error).message}`;
      if (error instanceof ContentPushError && error.code === 'remove_limit') {
        // Said in the command's words: its options, not the API's.
        io.err(`${message.replace(/\bmaxRemove '?([\d.%]+)'?/g, '--max-remove $1').replace(/maxRemove/g, '--max-remove').replace('dryRun', '--dry-run')} (${describe(config)})\n`);
        return EXIT_FAILED;
      }
      io.err(`${message}; nothing was removed (${describe(config)})\n`);
      return EXIT_FAILED;
    } finally {
      await content.close();
    }
  },
};
