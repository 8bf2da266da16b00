/**
 * `npm run bench -- policy [-- --quick]`: who is asking, and what they get, measured side by side.
 *
 * 1. **Identification and decision per request** (CPU, in process): the classification alone, against the
 *    classification with verification by the shipped ranges (an address inside GPTBot's list, one outside
 *    every list, an IPv6 one), against that plus a decision by a 20-rule policy. Median of 7 rounds of 200,000
 *    requests each, interleaved; reported as µs per request and the added cost.
 * 2. **The traffic report at a real site's size** (PostgreSQL at DATABASE_URL): 90 days of 1,000,000 hourly rows
 *    in each traffic table, `readTrafficReport` over 90 days and over 7 days (grouped in SQL) against reading
 *    every row into the process as the last release did (`readCounts` + `summarizeTraffic`): p50 and p95 of 10 runs.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { migrateToLatest } from '../src/db/migrator.js';
import type { Database } from '../src/db/schema.js';
import { compilePolicy, type AgentPolicy } from '../src/policy/agent-policy.js';
import { createAgentIdentifier } from '../src/traffic/agent-identity.js';
import { loadAgentCatalogue } from '../src/traffic/agent-catalogue.js';
import { AGENT_RANGES_FILE, readAgentRanges } from '../src/traffic/agent-ranges.js';
import { createBotVerifier } from '../src/traffic/web-bot-auth.js';
import { readTrafficReport } from '../src/traffic/read-traffic-report.js';
import { foldRareKeys, readCounts, rollUpDays } from '../src/traffic/traffic-store.js';
import { summarizeTraffic } from '../src/traffic/traffic-report.js';

const quick = process.argv.includes('--quick');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

/** Twenty rules, the matching one last for a search crawler (the worst case walks them all). */
const POLICY: AgentPolicy = {
  rules: [
    ...Array.from({ length: 18 }, (_, i) => ({ agent: ['ccbot', 'bytespider', 'amazonbot', 'petalbot', 'yandexbot', 'diffbot'][i % 6]!, path: `/section-${i}/`, action: 'block' as const })),
    { verification: 'spoofed' as const, action: 'block' as const },
    { purpose: 'training' as const, action: 'block' as const },
  ],
};

async function identification(): Promise<void> {
  const catalogue = loadAgentCatalogue();
  const ranges = readAgentRanges(AGENT_RANGES_FILE);
  const identifier = createAgentIdentifier({ catalogue, ranges: () => ranges, dns: undefined, signatures: createBotVerifier({ allowedOrigins: [] }) });
  const policy = compilePolicy(POLICY);
  const gptbot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.3; +https://openai.com/gptbot)';
  const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
  const requests = [
    { userAgent: gptbot, accept: '*/*', ip: '4.227.36.5', signed: undefined },
    { userAgent: gptbot, accept: '*/*', ip: '203.0.113.9', signed: undefined },
    { userAgent: googlebot, accept: '*/*', ip: '2001:4860:4801:10::7', signed: undefined },
    { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', accept: 'text/html', ip: '198.51.100.4', signed: undefined },
  ];
  const n = quick ? 20_000 : 200_000;
  const variants: Record<string, () => Promise<void>> = {
    classify: async () => {
      for (let i = 0; i < n; i++) identifier.classify(requests[i & 3]!);
    },
    'classify + verify (ranges)': async () => {
      for (let i = 0; i < n; i++) await identifier.identify(requests[i & 3]!);
    },
    'classify + verify + decide (20 rules)': async () => {
      for (let i = 0; i < n; i++) {
        const who = await identifier.identify(requests[i & 3]!);
        policy.decide(who, '/en/page/22');
      }
    },
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let round = 0; round < (quick ? 3 : 7); round++) {
    for (const [name, run] of Object.entries(variants)) {
      const start = performance.now();
      await run();
      times[name]!.push(((performance.now() - start) * 1000) / n);
    }
  }
  const base = median(times.classify!);
  console.log('identification and decision per request (median of rounds, µs):');
  for (const [name, xs] of Object.entries(times)) console.log(`  ${name.padEnd(40)} ${median(xs).toFixed(3)} µs  (+${(median(xs) - base).toFixed(3)} µs over classify)`);
}

async function report(): Promise<void> {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `ead_policy_bench_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateToLatest(db);
    const rows = quick ? 100_000 : 1_000_000;
    const t0 = performance.now();
    // 90 days (2,160 hours) × 463 keys an hour: the same agents, surfaces and outcomes come back every hour, as
    // they do on a site read by a steady set of crawlers (k = i % 463 picks the key, i / 463 the hour).
    await sql`
      INSERT INTO agent_discovery_traffic (hour, agent, operator, purpose, verdict, method, reason, outcome, surface, tool, status_class, requests, robots_violations, last_seen)
      SELECT date_trunc('hour', now()) - make_interval(hours => (i / 463)), 'agent-' || (i % 463 % 60), 'Operator',
        (ARRAY['training','search','user-fetch','coding-agent','other-bot','browser'])[1 + i % 463 % 6],
        (ARRAY['verified','spoofed','unverified'])[1 + i % 463 / 60 % 3], '', '', (ARRAY['served','blocked','limited'])[1 + i % 463 / 7 % 3],
        (ARRAY['page-html','page-markdown','resource-json','llms-txt','mcp','listing'])[1 + i % 463 / 11 % 6], '', 2, 1 + i % 9, 0, now()
      FROM generate_series(0, ${rows - 1}) AS i ON CONFLICT DO NOTHING`.execute(db);
    await sql`
      INSERT INTO agent_discovery_traffic_resource (hour, resource_id, purpose, requests)
      SELECT date_trunc('hour', now()) - make_interval(hours => (i / 463)), 1 + i % 463 / 3, (ARRAY['training','search','user-fetch'])[1 + i % 3], 1 + i % 5
      FROM generate_series(0, ${rows - 1}) AS i ON CONFLICT DO NOTHING`.execute(db);
    await sql`
      INSERT INTO agent_discovery_traffic_referral (hour, assistant, landing, visits)
      SELECT date_trunc('hour', now()) - make_interval(hours => (i / 463)), (ARRAY['chatgpt','perplexity','claude'])[1 + i % 3], '/page/' || (i % 463 / 3), 1 + i % 4
      FROM generate_series(0, ${rows - 1}) AS i ON CONFLICT DO NOTHING`.execute(db);
    await sql`VACUUM ANALYZE`.execute(db);
    console.log(`\nseeded ${rows} rows per traffic table in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const measure = async (label: string) => {
      const now = Date.now();
      for (const days of [90, 7]) {
      const range = { since: new Date(now - days * 86_400_000), until: new Date(now + 1) };
      const sqlTimes: number[] = [];
      const nodeTimes: number[] = [];
      for (let i = 0; i < (quick ? 3 : 10); i++) {
          let t = performance.now();
        await readTrafficReport(db, range, 'en');
        sqlTimes.push(performance.now() - t);
        // The last release's way, twice only (a 90-day read of every row takes most of a minute).
        if (i < 2) {
          t = performance.now();
          summarizeTraffic(await readCounts(db, range.since, range.until), range.since, range.until, 0);
          nodeTimes.push(performance.now() - t);
        }
      }
      console.log(`${label}, report over ${days} days: grouped in SQL p50 ${median(sqlTimes).toFixed(0)} ms, p95 ${p95(sqlTimes).toFixed(0)} ms; every row into Node p50 ${median(nodeTimes).toFixed(0)} ms, p95 ${p95(nodeTimes).toFixed(0)} ms (${(median(nodeTimes) / median(sqlTimes)).toFixed(1)}x)`);
      }
    };
    await measure('hourly rows');
    const r0 = performance.now();
    await rollUpDays(db);
    await foldRareKeys(db);
    await sql`VACUUM ANALYZE`.execute(db);
    const left = (await sql<{ n: string }>`SELECT count(*) AS n FROM agent_discovery_traffic`.execute(db)).rows[0]!.n;
    console.log(`rolled up the days older than a day in ${((performance.now() - r0) / 1000).toFixed(1)} s: ${left} request rows left`);
    await measure('days rolled up');
  } finally {
    await db.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

await identification();
if (process.env.DATABASE_URL) await report();
else console.log('\n(report at a real size: set DATABASE_URL to a PostgreSQL server)');
