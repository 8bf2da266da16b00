/**
 * Where a route's CPU goes: the cost server (built package, plain Node) under `node --cpu-prof`,
 * autocannon on each path (20 connections, 2 s warm-up then 8 s), and the profile's busy time by
 * function, self and inclusive, printed as shares.
 *
 *   npx tsx bench/cost-profile.ts '/api/agent/search?sort=newest&pagelen=20'
 *   BENCH_PROFILE_ROWS=80 npx tsx bench/cost-profile.ts /llms.txt /api-help
 *   npx tsx bench/cost-profile.ts 'floor:json:/api/agent/search?sort=newest&pagelen=20'   # that route's floor
 *
 * Run `npm run bench -- cost` (or `npx tsc -p tsconfig.build.json`) first: this serves `dist/` as built.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { prepareDatabase } from './cost-bench.js';
import { HERE, serveTree } from './tree-server.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(root)', '(program)']);
const where = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/node_modules\//, '').replace(/^.*\/dist\//, '')}:${n.callFrame.lineNumber + 1}`;

/** Self and inclusive time (µs) by function, and the busy total (µs). */
function shares(profile: Profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const t = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id)!;
    if (IDLE.has(node.callFrame.functionName)) return;
    busy += t;
    self.set(where(node), (self.get(where(node)) ?? 0) + t);
    const seen = new Set<string>();
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
      const k = where(byId.get(x)!);
      if (!seen.has(k)) inclusive.set(k, (inclusive.get(k) ?? 0) + t);
      seen.add(k);
    }
  });
  return { self, inclusive, busy };
}

const url = await prepareDatabase();
const paths = process.argv.slice(2);
if (!paths.length) throw new Error('cost-profile: name the paths to load');
const dir = mkdtempSync(join(tmpdir(), 'ead-profile-'));
const server = await serveTree(HERE, url, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
// `floor:<kind>:<path>`: the floor of that route (see cost-server.mjs), served beside the bare read.
const urls: string[] = [];
for (const [i, p] of paths.entries()) {
  const floor = /^floor:([a-z+]+):(.*)$/.exec(p);
  if (!floor) {
    urls.push(`${server.plugin}${p}`);
    continue;
  }
  const res = await fetch(`${server.bare}/floors`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ key: String(i), kind: floor[1], path: floor[2] }]) });
  if (!res.ok) throw new Error(`the floor of ${floor[2]} could not be captured: ${await res.text()}`);
  urls.push(`${server.bare}/floor/${i}`);
}
for (const seconds of [2, 8]) for (const u of urls) await autocannon({ url: u, connections: 20, duration: seconds });
server.stop();
await new Promise((r) => setTimeout(r, 2000)); // the profile is written on exit
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${dir}`);
const { self, inclusive, busy } = shares(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile);
const rows = Number(process.env.BENCH_PROFILE_ROWS ?? 40);
const top = (m: Map<string, number>) =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, rows).map(([k, t]) => `${((100 * t) / busy).toFixed(1).padStart(5)} %  ${k}`).join('\n');
process.stdout.write(`${paths.join(' ')}: ${(busy / 1000).toFixed(0)} ms busy (${join(dir, file)})\n--- self\n${top(self)}\n--- inclusive\n${top(inclusive)}\n`);
