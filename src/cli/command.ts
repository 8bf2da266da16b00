/** Where a command writes, and the environment it reads (injected so tests can run it in-process). */
export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  out(text: string): void;
  err(text: string): void;
}

/** One subcommand of the `express-agent-discovery` command. */
export interface CliCommand {
  /** One line for the command list. */
  readonly summary: string;
  /** Runs with the arguments after the command name; resolves to the exit status. */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

export const EXIT_OK = 0;
/** The command ran and failed (cannot connect, a migration failed). */
export const EXIT_FAILED = 1;
/** The command line itself is wrong (unknown command or option, missing database). */
export const EXIT_USAGE = 2;
