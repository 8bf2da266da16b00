import { parseArgs } from 'node:util';
import {
  DEFAULT_MAX_REQUESTS,
  DEFAULT_TIMEOUT_MS,
  formatReport,
  runSiteChecks,
  siteCheckUsageError,
  SiteUnreachableError,
  type HiddenRef,
  type SiteCheckOptions,
} from '../check/index.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliCommand } from './command.js';

const HELP = `Usage: express-agent-discovery check <url> [options]

Checks a site from outside, as agents and scanners see it, and grades it with a
readiness score (0-100): the Link header and <head> of the home page and of a
resource page, Markdown on the home page and the page URL, the ten conventional
paths agents probe, llms.txt, the API catalog, OpenAPI, the ARD manifest, a
resource read, its language and translations, the MCP server card and endpoint,
robots.txt and its Content Signals, CORS and OAuth metadata. Works on any site,
with or without this plugin: each failure comes with its fix, reported once (the
checks that depend on it are skipped "because" of it).

Score: the weight of the passed checks over the weight of the passed, failed and
"skipped because another check failed" ones, rounded down; a check with nothing to
check (skipped) or that does not apply (not applicable) counts neither way.

Options:
  --page <url>        the resource page to check (default: the first entry of
                      llms.txt's newest section, else the sitemap, else a search
                      result)
  --private <url|id>  confirm this resource is not advertised and its read is 404
                      (repeatable)
  --noindex <url|id>  confirm this resource is not advertised (repeatable)
  --json              print the report as JSON: {url, ok, score, ranAt, requests,
                      checks:[{id, name, status, weight, detail, fix, because}]}
  --timeout <ms>      per request (default ${DEFAULT_TIMEOUT_MS})
  --connect-to <ip>   connect to this address instead of resolving the URL's host
                      (check a staging server or a local process under its public name)
  -h, --help          show this help

At most ${DEFAULT_MAX_REQUESTS} requests, all to the URL's origin; redirects are reported, not followed
(except one on the home page); bodies are read up to 2 MiB.
Exit status: 0 no check failed, 1 a check failed or nothing answers at the URL
("cannot connect to ..."), 2 wrong usage.
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
          'connect-to': { type: 'string' },
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
      ...(values['connect-to'] !== undefined ? { connectTo: values['connect-to'] } : {}),
    };
    const problem = siteCheckUsageError(positionals[0]!, options);
    if (problem) return usage(problem.replace(/\btimeoutMs\b/, '--timeout').replace(/^page\b/, '--page').replace(/^connectTo\b/, '--connect-to'));
    let report;
    try {
      report = await runSiteChecks(positionals[0]!, options);
    } catch (error) {
      if (!(error instanceof SiteUnreachableError)) throw error;
      io.err(`express-agent-discovery check: ${error.message}: is the site running, and is the URL right?\n`);
      return EXIT_FAILED;
    }
    io.out(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    return report.ok ? EXIT_OK : EXIT_FAILED;
  },
};
