import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { listen, type Listening } from './support/mcp-client.js';

const run = promisify(execFile);

/**
 * The official server conformance suite, pinned, fetched by npx with Node 22 (it needs 22; nothing is
 * installed globally: npx keeps both in its cache) and run from npx's cache.
 */
const SUITE = ['-y', '-p', 'node@22', '-p', '@modelcontextprotocol/conformance@0.1.16', '--'];
/** The scenarios that apply to a read-only server without prompts, logging or subscriptions. */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'];
/** The first run downloads Node 22 and the suite (about a minute here); later runs take seconds. */
const PROBE_TIMEOUT_MS = 180_000;

/**
 * Where npx put Node 22 and the suite: the PATH npx runs its command with (its cache's bin folders
 * first). Each scenario then runs the suite's `conformance` with that PATH, as npx would, without
 * resolving the packages again (npm's resolution is about 2 s of CPU a call). A string when the suite
 * cannot run here (npx cannot fetch it: offline, no registry).
 */
async function suitePath(cwd: string): Promise<{ path: string } | string> {
  try {
    const { stdout } = await run('npx', [...SUITE, 'node', '-e', 'console.log(process.version); console.log(process.env.PATH)'], { cwd, timeout: PROBE_TIMEOUT_MS });
    const [version = '', path = ''] = stdout.trim().split('\n');
    return /^v22\./.test(version) ? { path } : `npx ran Node ${version}, not 22`;
  } catch (error) {
    return `npx could not fetch node@22 and @modelcontextprotocol/conformance (${(error as Error).message.split('\n')[0]})`;
  }
}

const workDir = await mkdtemp(path.join(tmpdir(), 'ead-conformance-'));
const suite = await suitePath(workDir);
const unavailable = typeof suite === 'string' ? suite : undefined;
if (unavailable) await rm(workDir, { recursive: true, force: true });

describe('MCP conformance suite (2025-11-25 server scenarios)', { skip: unavailable && `skipped: ${unavailable}` }, () => {
  let demo: DemoDatabase;
  let web: Listening;
  before(async () => {
    demo = await openDemoDatabase(surfaceBackends[0]!);
    web = await listen((await pluginApp(demo.db, { mcp: true })).app);
  });
  after(async () => {
    await web?.close();
    await demo?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  for (const scenario of SCENARIOS) {
    it(scenario, async () => {
      // The results directory the suite may write lands in the temporary directory, not the repository.
      const env = { ...process.env, PATH: (suite as { path: string }).path };
      const result = await run('conformance', ['server', '--url', `${web.origin}/mcp`, '--scenario', scenario], { cwd: workDir, env, timeout: 60_000 }).catch(
        (error: { code?: number; stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: `${error.stderr ?? ''} (exit ${error.code})` }),
      );
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(result.stdout);
      assert.ok(summary, `${scenario}: no summary\n${result.stdout}\n${result.stderr}`);
      assert.equal(summary[3], '0', `${scenario}\n${result.stdout}`);
      assert.equal(summary[1], summary[2], `${scenario}\n${result.stdout}`);
      assert.ok(Number(summary[2]) > 0);
    });
  }
});
