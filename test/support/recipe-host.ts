import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { REPO_ROOT } from './repo.js';

/** Starts a recipe's `host.mjs` (through tsx, as its README says) on a free port; resolves once it listens. */
export async function startRecipeHost(script: string, url: string, site: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: url, PORT: '0', SITE_URL: site },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`host.mjs did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      const match = /listening on http:\/\/localhost:(\d+)\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`host.mjs exited with ${code}:\n${output}`));
    });
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

export async function stopHost(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Runs `task` over `items`, `width` at a time. */
export async function eachLimited<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await task(items[next++]!);
  }));
}

