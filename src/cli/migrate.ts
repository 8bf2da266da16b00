import { parseArgs } from 'node:util';
import { openDatabase, type DatabaseConfig } from '../db/connection.js';
import { migrateToLatest } from '../db/migrator.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliCommand, type CliIo } from './command.js';

const HELP = `Usage: express-agent-discovery migrate [--database-url <url> | --data-dir <dir>]

Creates or updates the content tables the plugin reads (idempotent; safe to run
from several processes at once on PostgreSQL).

Options:
  --database-url <url>  PostgreSQL connection string (default: the DATABASE_URL
                        environment variable)
  --data-dir <dir>      an embedded PGlite data directory instead (created when
                        missing)
  -h, --help            show this help

Prints "applied: <migrations>" or "schema is up to date".
Exit status: 0 done, 1 failed, 2 wrong usage.
`;

/** Where to migrate, from the flags first, then DATABASE_URL. */
export function target(values: { 'database-url'?: string | undefined; 'data-dir'?: string | undefined }, io: CliIo): DatabaseConfig | string {
  const url = values['database-url'];
  const dataDir = values['data-dir'];
  if (url !== undefined && dataDir !== undefined) return 'give either --database-url or --data-dir, not both';
  if (url !== undefined) return url ? { url } : '--database-url needs a value';
  if (dataDir !== undefined) return dataDir ? { dataDir } : '--data-dir needs a value';
  if (io.env.DATABASE_URL) return { url: io.env.DATABASE_URL };
  return 'no database: set DATABASE_URL, or pass --database-url <url> or --data-dir <dir>';
}

/** Names the database without its password, for messages. */
export function describe(config: DatabaseConfig): string {
  if ('dataDir' in config) return `the embedded database in ${config.dataDir}`;
  if ('memory' in config) return 'an in-memory database';
  try {
    const u = new URL(config.url);
    return `PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

/** `express-agent-discovery migrate`: applies the plugin's migrations. */
export const migrateCommand: CliCommand = {
  summary: 'create or update the content tables (DATABASE_URL, --database-url or --data-dir)',
  async run(args, io) {
    let values;
    try {
      ({ values } = parseArgs({
        args: [...args],
        options: {
          'database-url': { type: 'string' },
          'data-dir': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
        allowPositionals: false,
      }));
    } catch (error) {
      io.err(`express-agent-discovery migrate: ${(error as Error).message}\n\n${HELP}`);
      return EXIT_USAGE;
    }
    if (values.help) {
      io.out(HELP);
      return EXIT_OK;
    }
    const config = target(values, io);
    if (typeof config === 'string') {
      io.err(`express-agent-discovery migrate: ${config}\n\n${HELP}`);
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
      const result = await migrateToLatest(content.db);
      const applied = result.results?.filter((r) => r.status === 'Success').map((r) => r.migrationName) ?? [];
      io.out(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
      return EXIT_OK;
    } catch (error) {
      io.err(`${prefixed((error as Error).message)} (${describe(config)})\n`);
      return EXIT_FAILED;
    } finally {
      await content.close();
    }
  },
};

export function prefixed(message: string): string {
  return message.startsWith('express-agent-discovery') ? message : `express-agent-discovery: ${message}`;
}
