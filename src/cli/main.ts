#!/usr/bin/env node
/**
 * The `express-agent-discovery` command (the package's `bin`). `npm run migrate` in the repository
 * runs the same code through tsx.
 */
import { runCli } from './run.js';

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
