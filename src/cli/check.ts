import { parseArgs } from 'node:util';
import {
  DEFAULT_MAX_REQUESTS,
  DEFAULT_TIMEOUT_MS,
  formatReport,
  runSiteChecks,
  siteCheckUsageError,
  type HiddenRef,
  type SiteCheckOptions,
} from '../check/index.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliCommand } from './command.js';

const HELP = `Usage: express-agent-discovery check <url> [options]

Checks a site from outside, as agents see it: the Link header and <head> of the
home page and of a resource page, the ten conventional paths agents probe, llms.txt,
the API catalog, the OpenAPI document, the ARD manifest, Markdown negotiation, a
resource read and its language, and the MCP server card when advertised. Works on
any site, with or without this plugin: what is missing is reported with its fix.

Options:
  --page <url>        the resource page to check (default: the first entry of
                      llms.txt's newest section, else the sitemap, else a search
                      result)
  --private <url|id>  confirm this resource is not advertised and its read is 404
                      (repeatable)
  --noindex <url|id>  confirm this resource is not advertised (repeatable)
  --json              print the report as JSON: {url, ok, requests, checks:[{id,
                      name, ok, skipped, detail, fix}]}
  --timeout <ms>      per request (default ${DEFAULT_TIMEOUT_MS})
  -h, --help          show this help

At most ${DEFAULT_MAX_REQUESTS} requests, all to the URL's origin; redirects are reported, not followed
(except one on the home page); bodies are read up to 2 MiB.
Exit status: 0 every check passed, 1 a check failed, 2 wrong usage.
`;

/** `express-agent-discovery check <url>`: runs the site checks and prints the report. */
export const checkCommand: CliCommand = {
  summary: 'check a site as agents see it (<url>, --json, --private, --noindex)',
  async run(args, io) {
    let parsed;
    try {
      parsed = parseArgs({
        args: [...args],
        options: {
          page: { type: 'string' },
          private: { type: 'string', multiple: true },
          noindex: { type: 'string', multiple: true },
          json: { type: 'boolean' },
          timeout: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
        allowPositionals: true,
      });
    } catch (error) {
      io.err(`express-agent-discovery check: ${(error as Error).message}\n\n${HELP}`);
      return EXIT_USAGE;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.out(HELP);
      return EXIT_OK;
    }
    const usage = (message: string) => {
      io.err(`express-agent-discovery check: ${message}\n\n${HELP}`);
      return EXIT_USAGE;
    };
    if (positionals.length !== 1) return usage(positionals.length ? `one URL expected, got ${positionals.length}` : 'the URL of the site is missing');
    const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
    if (timeout !== undefined && !/^\d+$/.test(values.timeout!)) return usage(`--timeout must be milliseconds, got ${JSON.stringify(values.timeout)}`);
    const hidden: HiddenRef[] = [
      ...(values.private ?? []).map((ref) => ({ kind: 'private' as const, ref })),
      ...(values.noindex ?? []).map((ref) => ({ kind: 'noindex' as const, ref })),
    ];
    const options: SiteCheckOptions = {
      ...(values.page !== undefined ? { page: values.page } : {}),
      ...(hidden.length ? { hidden } : {}),
      ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
    };
    const problem = siteCheckUsageError(positionals[0]!, options);
    if (problem) return usage(problem.replace(/\btimeoutMs\b/, '--timeout').replace(/^page\b/, '--page'));
    const report = await runSiteChecks(positionals[0]!, options);
    io.out(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    return report.ok ? EXIT_OK : EXIT_FAILED;
  },
};
