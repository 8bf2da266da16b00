import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { backends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { listen, type Listening } from './support/mcp-client.js';

const run = promisify(execFile);

/**
 * The official server conformance suite, pinned, run by npx under Node 22 (it needs 22; nothing is
 * installed globally: npx keeps both in its cache).
 */
const SUITE = ['-y', '-p', 'node@22', '-p', '@modelcontextprotocol/conformance@0.1.16', '--', 'conformance'];
/** The scenarios that apply to a read-only server without prompts, logging or subscriptions. */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'];
/** The first run downloads Node 22 and the suite (about a minute here); later runs take seconds. */
const PROBE_TIMEOUT_MS = 180_000;

/** Why the suite cannot run here (npx cannot fetch it: offline, no registry), or undefined when it can. */
async function suiteUnavailable(cwd: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('npx', [...SUITE.slice(0, -1), 'node', '--version'], { cwd, timeout: PROBE_TIMEOUT_MS });
    return /^v22\./.test(stdout.trim()) ? undefined : `npx ran Node ${stdout.trim()}, not 22`;
  } catch (error) {
    return `npx could not fetch node@22 and @modelcontextprotocol/conformance (${(error as Error).message.split('\n')[0]})`;
  }
}

const workDir = await mkdtemp(path.join(tmpdir(), 'ead-conformance-'));
const unavailable = await suiteUnavailable(workDir);
if (unavailable) await rm(workDir, { recursive: true, force: true });

describe('MCP conformance suite (2025-11-25 server scenarios)', { skip: unavailable && `skipped: ${unavailable}` }, () => {
  let demo: DemoDatabase;
  let web: Listening;
  before(async () => {
    demo = await openDemoDatabase(backends[0]!);
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
      const result = await run('npx', [...SUITE, 'server', '--url', `${web.origin}/mcp`, '--scenario', scenario], { cwd: workDir, timeout: 60_000 }).catch(
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
