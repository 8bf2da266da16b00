import { describe, it } from 'node:test';
import { migrations } from '../migrations/index.js';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, type CliIo } from '../src/cli/run.js';
import * as entry from '../src/index.js';

/** The Markdown pages of the README and docs/. */
const DOC_PAGES = ['README.md', 'bench/README.md', ...readdirSync('docs', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))];

/** The `<!-- file: … -->` code blocks of the README and docs/: the page, the named file and the block's text. */
function fileBlocks(): Array<{ page: string; file: string; block: string }> {
  return DOC_PAGES.flatMap((page) =>
    [...readFileSync(page, 'utf8').matchAll(/<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)```\n/g)].map((m) => ({ page, file: m[1]!, block: m[2]! })),
  );
}

describe('code blocks of the README and docs are the runnable files', () => {
  it('shows each marked file verbatim, the README its host and the CMS guide its first resource', () => {
    const blocks = fileBlocks();
    assert.ok(blocks.some((b) => b.page === 'README.md' && b.file === 'examples/minimal-host.mjs'));
    assert.ok(blocks.some((b) => b.page === 'docs/guides/cms-content.md' && b.file === 'examples/first-resource.mjs'));
    for (const { page, file, block } of blocks) assert.equal(block, readFileSync(file, 'utf8'), `${page}: the block differs from ${file}`);
  });

  it('every relative link of the README and docs points at a file of the repository', () => {
    for (const page of DOC_PAGES) {
      const prose = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
      for (const m of prose.matchAll(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        assert.ok(existsSync(path.join(path.dirname(page), target)), `${page}: ${target}`);
      }
    }
  });
});

describe('package entry', () => {
  it('exports what a host needs to write content: the visibility rules, localize and sql', () => {
    for (const name of ['createAgentDiscovery', 'anonymousVisible', 'indexable', 'localize', 'sql', 'migrateToLatest']) {
      assert.equal(typeof (entry as Record<string, unknown>)[name], 'function', name);
    }
  });

  it('the example site imports only from the package entry, never from src internals', () => {
    for (const file of readdirSync('example-site').filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(path.join('example-site', file), 'utf8');
      const internal = [...text.matchAll(/from '(\.\.\/src\/[^']+)'/g)].map((m) => m[1]).filter((s) => s !== '../src/index.js');
      assert.deepEqual(internal, [], `example-site/${file}`);
    }
  });

  it('shipped text names no contract sections or issues', () => {
    const shipped = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true, recursive: true })
        .filter((d) => d.isFile())
        .map((d) => path.join(d.parentPath, d.name));
    for (const file of ['README.md', ...shipped('docs'), ...shipped('src'), ...shipped('templates'), ...shipped('migrations'), ...shipped('examples')]) {
      const text = readFileSync(file, 'utf8');
      assert.doesNotMatch(text, /\bSPEC\b/, file);
      assert.doesNotMatch(text, /(?<!RFC \d{3,5} )§\s?\d|\bissues? #?\d+|FetchKit-style/i, file);
    }
  });
});

/** Runs the command line in-process, capturing what it writes. */
async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  let out = '';
  let err = '';
  const io: CliIo = { env, out: (t) => (out += t), err: (t) => (err += t) };
  const code = await runCli(args, io);
  return { code, out, err };
}

describe('express-agent-discovery command line', () => {
  it('--help lists the commands and exits 0; no command is a usage error (2)', async () => {
    const help = await cli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /Usage: express-agent-discovery <command>/);
    assert.match(help.out, /^ {2}migrate {2}/m);
    const none = await cli([]);
    assert.equal(none.code, 2);
    assert.match(none.err, /Usage:/);
  });

  it('an unknown command or option is a usage error naming it', async () => {
    const unknown = await cli(['chek']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /^express-agent-discovery: unknown command "chek"/);
    const option = await cli(['migrate', '--databse-url', 'x']);
    assert.equal(option.code, 2);
    assert.match(option.err, /^express-agent-discovery migrate: Unknown option '--databse-url'/);
    const toString = await cli(['toString']);
    assert.equal(toString.code, 2);
  });

  it('migrate without a database says how to give one; both flags at once are refused', async () => {
    const none = await cli(['migrate'], {});
    assert.equal(none.code, 2);
    assert.match(none.err, /no database: set DATABASE_URL, or pass --database-url <url> or --data-dir <dir>/);
    const both = await cli(['migrate', '--database-url', 'postgres://x/y', '--data-dir', 'd'], {});
    assert.equal(both.code, 2);
    assert.match(both.err, /either --database-url or --data-dir, not both/);
    const help = await cli(['migrate', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /--data-dir <dir>/);
  });

  it('migrate on an unreachable PostgreSQL fails (1) naming the server, not the password', async () => {
    const r = await cli(['migrate'], { DATABASE_URL: 'postgres://someone:s3cret@127.0.0.1:1/nowhere' });
    assert.equal(r.code, 1);
    assert.match(r.err, /^express-agent-discovery: cannot connect to PostgreSQL: .* \(PostgreSQL at 127\.0\.0\.1:1\/nowhere\)\n$/);
    assert.doesNotMatch(r.err, /s3cret/);
  });

  it('migrate --data-dir creates a nested PGlite directory, applies, then reports up to date', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'ead-cli-'));
    try {
      const dir = path.join(tmp, 'a', 'b');
      const first = await cli(['migrate', '--data-dir', dir], { DATABASE_URL: 'postgres://ignored@127.0.0.1:1/x' });
      assert.equal(first.code, 0, first.err);
      assert.equal(first.out, `applied: ${Object.keys(migrations).join(', ')}\n`);
      const again = await cli(['migrate', `--data-dir=${dir}`]);
      assert.equal(again.code, 0, again.err);
      assert.equal(again.out, 'schema is up to date\n');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
