import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { openDatabase, type ContentDatabase, type DatabaseConfig } from '../db/connection.js';
import { assertContentSchema } from '../db/schema-check.js';
import type { CliIo } from './command.js';
import { describe, prefixed } from './migrate.js';

/**
 * What the `push` and `reconcile` commands share: NDJSON read line by line from a file or standard
 * input, and the database opened with its schema checked.
 */

/** The command's environment, with standard input (injected by tests; `process.stdin` otherwise). */
export type PipeIo = CliIo & { readonly stdin?: Readable };

/** A line of NDJSON: its number (from 1) and its value, or why it is not JSON. */
export type NdjsonLine = { line: number; value: unknown; error?: undefined } | { line: number; value?: undefined; error: string };

/** A line longer than this is refused without parsing it. */
const MAX_LINE = 16 * 1024 * 1024;

/** The lines of `source` (a path, or `-` for standard input) as JSON values; blank lines are skipped. */
export async function* ndjsonLines(source: string, io: PipeIo): AsyncGenerator<NdjsonLine> {
  const input = source === '-' ? (io.stdin ?? process.stdin) : createReadStream(source);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (!text.trim()) continue;
    if (text.length > MAX_LINE) {
      yield { line, error: `longer than ${MAX_LINE.toLocaleString('en')} characters` };
      continue;
    }
    try {
      yield { line, value: JSON.parse(text) as unknown };
    } catch (error) {
      yield { line, error: `not JSON: ${(error as Error).message}` };
    }
  }
}

/** The database of a command, open and with the content schema in place; an error message otherwise. */
export async function openContentDatabase(config: DatabaseConfig): Promise<ContentDatabase | string> {
  let content: ContentDatabase;
  try {
    content = await openDatabase(config);
  } catch (error) {
    return `${prefixed((error as Error).message)} (${describe(config)})`;
  }
  try {
    await assertContentSchema(content.db, 'url' in config ? 'url' : 'dataDir');
    return content;
  } catch (error) {
    await content.close();
    return `${prefixed((error as Error).message)} (${describe(config)})`;
  }
}
