// The traffic report aggregated where the rows are: stored hourly rows over days (several keys, old verdicts,
// verified and spoofed, outcomes, referrals) read back as PostgreSQL/PGlite groups them, equal to the report of the
// same rows summed in the process; rare resources and landing paths of a past hour folded into "other" with their
// counts kept.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { surfaceBackends, type TestDatabase } from './support/backends.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { readTrafficReport } from '../src/traffic/read-traffic-report.js';
import { addCounts, foldRareKeys, KEPT_PER_HOUR, OTHER_LANDING, OTHER_RESOURCE, rollUpDays } from '../src/traffic/traffic-store.js';
import { summarizeTraffic } from '../src/traffic/traffic-report.js';
import type { CountsBatch, RequestCount } from '../src/traffic/traffic-counts.js';

const HOUR = 3_600_000;

for (const backend of surfaceBackends) {
  describe(`traffic report in SQL (${backend.name})`, () => {
    let content: TestDatabase;
    before(async () => {
      content = await backend.open();
      await migrateToLatest(content.db);
    });
    after(async () => content?.close());

    it('groups the stored rows as summing them in the process would, days and shares included', async () => {
      const now = Date.now();
      const start = now - (now % HOUR) - 5 * 24 * HOUR;
      const requests: RequestCount[] = [];
      const agents = [['gptbot', 'training', 'verified', 'ranges'], ['spoofed:gptbot', 'training', 'spoofed', ''], ['claudebot', 'training', 'unverified', ''], ['browser', 'browser', 'unverified', '']] as const;
      for (let h = 0; h < 5 * 24; h += 7) {
        for (const [i, [agent, purpose, verdict, method]] of agents.entries()) {
          requests.push({ hour: start + h * HOUR, agent, operator: agent === 'gptbot' ? 'OpenAI' : null, purpose, verdict, method, reason: '', outcome: i === 1 ? 'blocked' : 'served', surface: h % 2 ? 'page-html' : 'llms-txt', tool: '', statusClass: i === 1 ? 4 : 2, requests: 1 + ((h * 7 + i) % 5), robotsViolations: i === 2 ? 1 : 0, lastSeen: start + h * HOUR + 1000 });
        }
      }
      const batch: CountsBatch = {
        requests,
        resources: requests.filter((r) => r.agent === 'gptbot').map((r, i) => ({ hour: r.hour, resourceId: 1 + (i % 30), purpose: 'training', requests: r.requests })),
        referrals: requests.filter((r) => r.agent === 'browser').map((r, i) => ({ hour: r.hour, assistant: 'chatgpt', landing: `/page/${i % 70}`, visits: r.requests })),
        dropped: 0,
      };
      await addCounts(content.db, batch);
      // A row as the release before verification by ranges wrote it: its verdict reads as unverified.
      await sql`INSERT INTO agent_discovery_traffic (hour, agent, operator, purpose, verdict, surface, tool, status_class, requests, robots_violations, last_seen)
        VALUES (${new Date(start)}, 'claudebot', 'Anthropic', 'training', 'unsigned', 'llms-txt', '', 2, 3, 0, ${new Date(start)})`.execute(content.db);
      const range = { since: new Date(start - 24 * HOUR), until: new Date(now + 1) };
      const report = await readTrafficReport(content.db, range, 'en');
      const expected = summarizeTraffic(
        { ...batch, requests: [...requests, { ...requests[0]!, agent: 'claudebot', operator: 'Anthropic', purpose: 'training', verdict: 'unverified', method: '', reason: '', outcome: 'served', surface: 'llms-txt', statusClass: 2, requests: 3, robotsViolations: 0, lastSeen: start, hour: start }] },
        range.since,
        range.until,
        0,
      );
      assert.deepEqual(report.totals, expected.totals);
      assert.deepEqual(report.daily, expected.daily);
      const lines = (r: typeof report) => r.agents.map((l) => ({ ...l, lastSeen: undefined })).sort((a, b) => a.agent.localeCompare(b.agent));
      assert.deepEqual(lines(report), lines(expected));
      assert.deepEqual(report.resources.map((r) => [r.id, r.requests]), expected.resources.map((r) => [r.id, r.requests]));
      assert.deepEqual(report.referrals, expected.referrals);
      // The crawl-to-referral ratio: OpenAI's crawlers (gptbot, not the spoofed claims of its name) per visit ChatGPT referred.
      assert.deepEqual(report.operators, expected.operators);
      const openai = report.operators.find((o) => o.operator === 'OpenAI')!;
      const gptRequests = requests.filter((r) => r.agent === 'gptbot').reduce((n, r) => n + r.requests, 0);
      const chatgptVisits = batch.referrals.reduce((n, r) => n + r.visits, 0);
      assert.deepEqual(openai, { operator: 'OpenAI', crawlRequests: gptRequests, referrals: chatgptVisits, crawlsPerReferral: Math.round((gptRequests / chatgptVisits) * 10) / 10 });
      assert.equal(report.agents.find((l) => l.agent === 'spoofed:gptbot')?.spoofedShare, 1);
      assert.equal(report.agents.find((l) => l.agent === 'gptbot')?.methods.ranges, report.agents.find((l) => l.agent === 'gptbot')?.requests);
    });

    it('folds the resources and landing paths past the most read of a finished hour into "other", counts kept', async () => {
      const now = Date.now();
      const hour = now - (now % HOUR) - 3 * HOUR;
      const n = KEPT_PER_HOUR + 40;
      await addCounts(content.db, {
        requests: [],
        resources: Array.from({ length: n }, (_, i) => ({ hour, resourceId: 10_000 + i, purpose: 'search', requests: n - i })),
        referrals: Array.from({ length: n }, (_, i) => ({ hour, assistant: 'perplexity', landing: `/landing/${i}`, visits: 1 + (i < 10 ? 5 : 0) })),
        dropped: 0,
      });
      const sums = async () =>
        (
          await sql<{ r: string; v: string; keys: string; landings: string }>`SELECT
            (SELECT sum(requests) FROM agent_discovery_traffic_resource WHERE hour = ${new Date(hour)}) AS r,
            (SELECT sum(visits) FROM agent_discovery_traffic_referral WHERE hour = ${new Date(hour)}) AS v,
            (SELECT count(*) FROM agent_discovery_traffic_resource WHERE hour = ${new Date(hour)}) AS keys,
            (SELECT count(*) FROM agent_discovery_traffic_referral WHERE hour = ${new Date(hour)}) AS landings`.execute(content.db)
        ).rows[0]!;
      const before = await sums();
      await foldRareKeys(content.db);
      const after = await sums();
      assert.equal(after.r, before.r);
      assert.equal(after.v, before.v);
      assert.equal(Number(after.keys), KEPT_PER_HOUR + 1);
      assert.equal(Number(after.landings), KEPT_PER_HOUR + 1);
      const other = await sql<{ requests: string }>`SELECT requests FROM agent_discovery_traffic_resource WHERE hour = ${new Date(hour)} AND resource_id = ${OTHER_RESOURCE}`.execute(content.db);
      assert.equal(Number(other.rows[0]!.requests), (40 * 41) / 2, 'the 40 least read resources, folded');
      const kept = await sql<{ landing: string }>`SELECT landing FROM agent_discovery_traffic_referral WHERE hour = ${new Date(hour)} AND landing = ${OTHER_LANDING}`.execute(content.db);
      assert.equal(kept.rows.length, 1);
      // Folding again changes nothing.
      await foldRareKeys(content.db);
      assert.deepEqual(await sums(), after);
    });

    it('rolls the hours of days ended more than a day ago up into one row per key and day; the report is unchanged', async () => {
      const range = { since: new Date(Date.now() - 30 * 24 * HOUR), until: new Date(Date.now() + 1) };
      const before = await readTrafficReport(content.db, range, 'en');
      const rows = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM agent_discovery_traffic`.execute(content.db)).rows[0]!.n);
      const count = await rows();
      await rollUpDays(content.db);
      assert.ok((await rows()) < count, 'fewer rows');
      const after = await readTrafficReport(content.db, range, 'en');
      assert.deepEqual(after.totals, before.totals);
      assert.deepEqual(after.daily, before.daily);
      assert.deepEqual(after.agents.map((l) => ({ ...l, lastSeen: undefined })), before.agents.map((l) => ({ ...l, lastSeen: undefined })));
      const hours = await sql<{ n: string }>`SELECT count(*) AS n FROM agent_discovery_traffic WHERE hour < date_trunc('day', now(), 'UTC') - interval '1 day' AND hour <> date_trunc('day', hour, 'UTC')`.execute(content.db);
      assert.equal(Number(hours.rows[0]!.n), 0);
      await rollUpDays(content.db);
      assert.deepEqual((await readTrafficReport(content.db, range, 'en')).totals, before.totals, 'rolling up again changes nothing');
    });
  });
}
