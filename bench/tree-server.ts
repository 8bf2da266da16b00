/**
 * Another revision of this repository, built and served beside this tree, for the benches and tools
 * that compare two trees (`compare-trees.ts`, `behaviour-capture.ts`): a temporary git worktree that
 * borrows this tree's node_modules, its built package (`tsc -p tsconfig.build.json`), and its own
 * `bench/cost-server.mjs` started under plain Node.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** This repository's root. */
export const HERE = new URL('..', import.meta.url).pathname;

function run(command: string, args: string[], cwd: string): void {
  const r = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}`);
}

/**
 * Builds a tree's package (`dist/`) with this tree's TypeScript. Type errors that still let tsc emit
 * (exit status 2: another change in progress in a shared working tree) are reported, not fatal.
 */
export function buildTree(tree: string): void {
  const r = spawnSync(process.execPath, [join(HERE, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status === 2) process.stderr.write(`build of ${tree}: type errors (printed by tsc --noEmit), emitted anyway\n`);
  else if (r.status !== 0) throw new Error(`the build (tsc -p tsconfig.build.json) failed in ${tree}`);
}

/** Checks `rev` out in a temporary worktree sharing this tree's node_modules; `remove` deletes it. */
export function checkoutRevision(rev: string): { tree: string; remove(): void } {
  const tree = mkdtempSync(join(tmpdir(), 'ead-tree-'));
  run('git', ['worktree', 'add', '--detach', tree, rev], HERE);
  symlinkSync(join(HERE, 'node_modules'), join(tree, 'node_modules'));
  return {
    tree,
    remove() {
      spawnSync('git', ['worktree', 'remove', '--force', tree], { cwd: HERE });
      rmSync(tree, { recursive: true, force: true });
    },
  };
}

export interface TreeServer {
  /** The plugin's origin. */
  plugin: string;
  /** The bare endpoints' origin (the primary-key read, `/cpu`, and the floors where the tree has them). */
  bare: string;
  stop(): void;
}

/** Starts a tree's cost server (its built package) on `url`; resolves with its origins. */
export async function serveTree(tree: string, url: string, nodeArgs: string[] = []): Promise<TreeServer> {
  const child = spawn(process.execPath, [...nodeArgs, join(tree, 'bench/cost-server.mjs'), url], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ports = await new Promise<{ plugin: number; bare: number }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`bench server of ${tree} exited (${code})`)));
  });
  return { plugin: `http://127.0.0.1:${ports.plugin}`, bare: `http://127.0.0.1:${ports.bare}`, stop: () => child.kill() };
}
