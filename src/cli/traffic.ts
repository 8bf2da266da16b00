import { parseArgs } from 'node:util';
import { openDatabase } from '../db/connection.js';
import { readTrafficReport } from '../traffic/read-traffic-report.js';
import { parseSince, type TrafficReport } from '../traffic/traffic-report.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliCommand } from './command.js';
import { describe, prefixed, target } from './migrate.js';

const HELP = `Usage: express-agent-discovery traffic [--database-url <url> | --data-dir <dir>] [--since 7d] [--json]

What agents did with the site, from the counts the plugin wrote (the traffic
option): requests per day by purpose, a line per agent, the resources agents
read most and the visits AI assistants referred. Counts a running process has
not written yet (at most one flush interval) are not included; the admin page's
traffic.json includes them.

Options:
  --database-url <url>  PostgreSQL connection string (default: DATABASE_URL)
  --data-dir <dir>      an embedded PGlite data directory instead
  --since <range>       how far back: 24h, 7d, 90d, … (default 7d)
  --language <code>     the language of resource titles (default en)
  --json                the report as JSON (the shape of traffic.json)
  -h, --help            show this help

Exit status: 0 done, 1 failed, 2 wrong usage.
`;

const pad = (rows: string[][]): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
};
const pct = (share: number) => `${Math.round(share * 100)}%`;

/** The report as text: totals, days, agents, resources, referrals. */
export function formatTrafficReport(r: TrafficReport): string {
  const lines = [
    `Agent traffic ${r.range.since.slice(0, 16)}Z to ${r.range.until.slice(0, 16)}Z: ${r.totals.requests} requests, ${r.totals.verified} verified, ${r.totals.spoofed} spoofed, ${r.totals.robotsViolations} robots.txt violations, ${r.totals.referrals} referred visits`,
    '',
    pad([['day', ...Object.keys(r.totals.byPurpose), 'all'], ...r.daily.map((d) => [d.day, ...Object.keys(r.totals.byPurpose).map((p) => String(d.byPurpose[p] ?? 0)), String(d.requests)])]),
    '',
    r.agents.length
      ? pad([
          ['agent', 'operator', 'purpose', 'requests', 'markdown', 'verified', 'spoofed', 'refused', 'violations', 'last seen'],
          ...r.agents.map((a) => [
            a.agent,
            a.operator ?? '',
            a.purpose,
            String(a.requests),
            pct(a.markdownShare),
            pct(a.verifiedShare),
            pct(a.spoofedShare),
            String((a.outcomes.blocked ?? 0) + (a.outcomes.limited ?? 0) + (a.outcomes['payment-required'] ?? 0)),
            String(a.robotsViolations),
            a.lastSeen.slice(0, 16),
          ]),
        ])
      : 'No agent requests in this range.',
    '',
    r.resources.length ? pad([['resource', 'reads', 'title'], ...r.resources.map((x) => [String(x.id), String(x.requests), x.title ?? ''])]) : 'No resource reads in this range.',
    '',
    r.referrals.length ? pad([['assistant', 'visits', 'landing page'], ...r.referrals.map((x) => [x.assistant, String(x.visits), x.landing])]) : 'No referred visits in this range.',
    '',
    ...(r.operators.length ? [pad([['operator', 'crawler requests', 'referred visits', 'crawls per visit'], ...r.operators.map((o) => [o.operator, String(o.crawlRequests), String(o.referrals), o.crawlsPerReferral === null ? '-' : String(o.crawlsPerReferral)])]), ''] : []),
    ...(r.charges?.length ? [pad([['charged agent', 'requests', 'amount (USD)'], ...r.charges.map((c) => [c.agent, String(c.requests), c.amountUsd])]), ''] : []),
  ];
  return lines.join('\n');
}

/** `express-agent-discovery traffic`: the agent traffic report from the database. */
export const trafficCommand: CliCommand = {
  summary: 'what agents did with the site, from the traffic counts (--since 7d, --json)',
  async run(args, io) {
    let values;
    try {
      ({ values } = parseArgs({
        args: [...args],
        options: {
          'database-url': { type: 'string' },
          'data-dir': { type: 'string' },
          since: { type: 'string' },
          language: { type: 'string' },
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
        allowPositionals: false,
      }));
    } catch (error) {
      io.err(`express-agent-discovery traffic: ${(error as Error).message}\n\n${HELP}`);
      return EXIT_USAGE;
    }
    if (values.help) {
      io.out(HELP);
      return EXIT_OK;
    }
    const range = parseSince(values.since);
    if (!range) {
      io.err(`express-agent-discovery traffic: --since must be a number of days or hours such as 7d or 24h (got ${JSON.stringify(values.since)})\n`);
      return EXIT_USAGE;
    }
    const config = target(values, io);
    if (typeof config === 'string') {
      io.err(`express-agent-discovery traffic: ${config}\n\n${HELP}`);
      return EXIT_USAGE;
    }
    let content;
    try {
      content = await openDatabase(config);
    } catch (error) {
      io.err(`${prefixed((error as Error).message)} (${describe(config)})\n`);
      return EXIT_FAILED;
    }
    try {
      const report = await readTrafficReport(content.db, range, values.language ?? 'en');
      io.out(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatTrafficReport(report));
      return EXIT_OK;
    } catch (error) {
      const missing = (error as { code?: unknown }).code === '42P01';
      io.err(missing ? `express-agent-discovery traffic: the database has no traffic tables: run \`express-agent-discovery migrate\` (${describe(config)})\n` : `${prefixed((error as Error).message)} (${describe(config)})\n`);
      return EXIT_FAILED;
    } finally {
      await content.close();
    }
  },
};
