import { checkCommand } from './check.js';
import { doctorCommand } from './doctor.js';
import { migrateCommand } from './migrate.js';
import { pushCommand } from './push.js';
import { rangesCommand } from './ranges.js';
import { reconcileCommand } from './reconcile.js';
import { trafficCommand } from './traffic.js';
import { viewsCommand } from './views.js';
import { EXIT_OK, EXIT_USAGE, type CliCommand, type CliIo } from './command.js';

export type { CliIo } from './command.js';

/** Every subcommand, by name. A new one is one more entry. */
const COMMANDS: Record<string, CliCommand> = {
  migrate: migrateCommand,
  check: checkCommand,
  doctor: doctorCommand,
  traffic: trafficCommand,
  push: pushCommand,
  ranges: rangesCommand,
  reconcile: reconcileCommand,
  views: viewsCommand,
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: express-agent-discovery <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `express-agent-discovery <command> --help` for the options of a command.',
    'Exit status: 0 done, 1 failed, 2 wrong usage.',
    '',
  ].join('\n');
}

/** Runs the command line `argv` (without `node` and the script) and resolves to the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    (name === undefined ? io.err : io.out)(usage());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.err(`express-agent-discovery: unknown command "${name}"\n\n${usage()}`);
    return EXIT_USAGE;
  }
  return command.run(rest, io);
}
