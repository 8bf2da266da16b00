import { parseArgs } from 'node:util';
import { openDatabase } from '../db/connection.js';
import { checkContract, contractError } from '../db/contract-check.js';
import { bindContent, DEFAULT_TEXT_SEARCH_CONFIGURATION } from '../db/content-binding.js';
import { DEFAULT_ANALYZE_TIMEOUT_MS, DEFAULT_PLAN_THRESHOLD, diagnosePlans, findingText, summaryText, type PlanReport } from '../content/plan-doctor.js';
import { readAccessNotices, type AccessNotice } from '../content/access-notices.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliCommand } from './command.js';
import { searchPathHint } from './search-path-hint.js';

const HELP = `Usage: express-agent-discovery doctor [--database-url <url>] [options]

Runs EXPLAIN on the plugin's hot statements against the live schema (the first
search page by id and by newest, a deep keyset page, a rare word in text search,
a resource read, a related page) and flags sequential scans of large relations
and sorts of whole tables, naming the index that fixes each.

Options:
  --database-url <url>     PostgreSQL connection string (default: the
                           DATABASE_URL environment variable)
  --search-path <schemas>  the schemas the content relations are found in,
                           comma-separated (e.g. cms,public; default: the
                           connection's search_path)
  --threshold <rows>       flag scans and sorts of more rows than this
                           (default ${DEFAULT_PLAN_THRESHOLD})
  --text-search <config>   the textSearch.configuration option of the plugin
                           (default ${DEFAULT_TEXT_SEARCH_CONFIGURATION})
  --analyze                EXPLAIN ANALYZE, BUFFERS: runs the statements (reads,
                           in a read-only transaction)
  --timeout <ms>           with --analyze, per statement (default ${DEFAULT_ANALYZE_TIMEOUT_MS})
  --json                   print the report as JSON: {ok, threshold, analyzed,
                           statements:[{name, title, sql, parameters, plan,
                           findings:[{kind, node, relation, estimatedRows,
                           fixes:[{create, note}]}]}], fixes,
                           accessNotices:[{subject, notice}]}
  -h, --help               show this help

A views-road recipe that follows the CMS's access rules lists what it hides
because it cannot follow a rule (relation access_notice): each is a finding.

Exit status: 0 no finding, 1 a finding (or the database failed), 2 wrong usage.
`;

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_$]*$/;

/**
 * `url` with `-c search_path=<schemas>` added to its libpq `options` parameter, which PostgreSQL
 * applies to every session of the connection.
 *
 * ```ts
 * withSearchPath('postgres://db/site', 'cms,public') // 'postgres://db/site?options=-c+search_path%3Dcms%2Cpublic'
 * ```
 */
export function withSearchPath(url: string, schemas: string): string {
  const names = schemas.split(',').map((s) => s.trim());
  const bad = names.find((name) => !SCHEMA_NAME.test(name));
  if (bad !== undefined) throw new TypeError(`--search-path: "${bad}" is not a schema name (letters, digits and _; comma-separated)`);
  const u = new URL(url);
  const options = u.searchParams.get('options');
  u.searchParams.set('options', `${options ? `${options} ` : ''}-c search_path=${names.join(',')}`);
  return u.toString();
}

/**
 * The report for people: each statement with ✓, or ✗ with its findings and the indexes that fix
 * them; then every index to create, once, with where it belongs when the relation is a view.
 */
function formatPlanReport(report: PlanReport): string {
  const lines: string[] = [];
  const mode = report.analyzed ? 'EXPLAIN ANALYZE' : 'EXPLAIN';
  lines.push(`Query plans of the hot statements (${mode}; flagged: sequential scans and sorts of more than ${report.threshold} rows)`, '');
  for (const s of report.statements) {
    const failed = s.error !== undefined || s.findings.length > 0;
    lines.push(`${failed ? '✗' : '✓'} ${s.name}: ${s.title}`);
    if (s.error !== undefined) lines.push(`    EXPLAIN failed: ${s.error}`);
    for (const f of s.findings) lines.push(`    ${findingText(f)}`);
    for (const fix of s.fixes) lines.push(`    fix: ${fix.create}  -- ${fix.serves}`);
    if (s.findings.length && !s.fixes.length) lines.push('    no index of the content contract covers these relations');
  }
  lines.push('', summaryText(report));
  if (report.fixes.length) {
    lines.push('The indexes that fix them:');
    for (const fix of report.fixes) lines.push(`  ${fix.create};`, ...(fix.note ? [`    -- ${fix.note}`] : []));
  }
  return `${lines.join('\n')}\n`;
}

/** What a views-road recipe hides because it cannot follow the CMS's rule for it (its `access_notice`). */
function noticesText(notices: readonly AccessNotice[]): string {
  if (!notices.length) return '';
  const lines = ['', `Hidden because the CMS's access rule cannot be followed (fail closed; ${notices.length}):`];
  for (const n of notices) lines.push(`✗ ${n.subject}: ${n.notice}`);
  return `${lines.join('\n')}\n`;
}

/** `express-agent-discovery doctor`: the plan doctor against a PostgreSQL database. */
export const doctorCommand: CliCommand = {
  summary: 'EXPLAIN the hot statements, name the missing indexes (DATABASE_URL or --database-url, --json)',
  async run(args, io) {
    let values;
    try {
      ({ values } = parseArgs({
        args: [...args],
        options: {
          'database-url': { type: 'string' },
          'search-path': { type: 'string' },
          threshold: { type: 'string' },
          'text-search': { type: 'string' },
          analyze: { type: 'boolean' },
          timeout: { type: 'string' },
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
        allowPositionals: false,
      }));
    } catch (error) {
      io.err(`express-agent-discovery doctor: ${(error as Error).message}\n\n${HELP}`);
      return EXIT_USAGE;
    }
    if (values.help) {
      io.out(HELP);
      return EXIT_OK;
    }
    const usage = (message: string) => {
      io.err(`express-agent-discovery doctor: ${message}\n\n${HELP}`);
      return EXIT_USAGE;
    };
    let url = values['database-url'] ?? io.env.DATABASE_URL;
    if (!url) return usage('no database: set DATABASE_URL, or pass --database-url <url>');
    const count = (value: string | undefined, fallback: number) => (value === undefined ? fallback : /^\d+$/.test(value) ? Number(value) : NaN);
    const threshold = count(values.threshold, DEFAULT_PLAN_THRESHOLD);
    if (Number.isNaN(threshold)) return usage(`--threshold must be a number of rows, got ${JSON.stringify(values.threshold)}`);
    const timeoutMs = count(values.timeout, DEFAULT_ANALYZE_TIMEOUT_MS);
    if (!(timeoutMs > 0)) return usage(`--timeout must be milliseconds, got ${JSON.stringify(values.timeout)}`);
    try {
      if (values['search-path'] !== undefined) url = withSearchPath(url, values['search-path']);
    } catch (error) {
      return usage((error as Error).message);
    }
    const textConfiguration = values['text-search'] ?? DEFAULT_TEXT_SEARCH_CONFIGURATION;
    let content;
    try {
      content = await openDatabase({ url, poolSize: 1 });
    } catch (error) {
      io.err(`${(error as Error).message}\n`);
      return EXIT_FAILED;
    }
    try {
      const contract = await checkContract(content.db, textConfiguration);
      if (contract.problems.length) {
        const hint = await searchPathHint(content.db, contract.problems);
        throw new Error(`${contractError(contract.problems).message}${hint ? `\n${hint}` : ''}`);
      }
      if (!contract.textConfigurationFound) throw new Error(`--text-search: the text search configuration "${textConfiguration}" does not exist in this database`);
      const absent = contract.absentOptional.map((c) => c.slice(c.indexOf('.') + 1));
      const db = bindContent(content.db, { textConfiguration }, absent);
      const report = await diagnosePlans(db, { threshold, analyze: values.analyze === true, timeoutMs });
      const accessNotices = await readAccessNotices(content.db);
      io.out(values.json ? `${JSON.stringify({ ...report, accessNotices }, null, 2)}\n` : formatPlanReport(report) + noticesText(accessNotices));
      return report.ok && !accessNotices.length ? EXIT_OK : EXIT_FAILED;
    } catch (error) {
      const message = (error as Error).message;
      io.err(`${message.startsWith('express-agent-discovery') ? message : `express-agent-discovery doctor: ${message}`}\n`);
      return EXIT_FAILED;
    } finally {
      await content.close();
    }
  },
};
