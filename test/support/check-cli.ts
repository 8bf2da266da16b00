import { runCli, type CliIo } from '../../src/cli/run.js';

/**
 * `express-agent-discovery check …` in-process, through the command registry the binary runs: exit
 * status, standard output and standard error. (test/check-command.test.ts also runs the command as a
 * child process once, as a user starts it; every other run of it is this one, without a Node start-up
 * and a TypeScript load per call.)
 */
export async function runCheck(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { env: {}, out: (t) => (out += t), err: (t) => (err += t) };
  const code = await runCli(['check', ...args], io);
  return { code, out, err };
}
