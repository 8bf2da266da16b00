import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { CountsBatch } from './traffic-counts.js';

/** Rows per statement of a flush (one JSON parameter each). */
const ROWS_PER_STATEMENT = 5000;

const chunks = <T>(rows: readonly T[]): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
};

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Adds a batch of counts to the hourly rows, in one transaction: each row is an additive upsert, so
 * the counts of several processes on one database add up. The rows travel as one JSON parameter per
 * statement (cheap to build on the event loop, the same on PostgreSQL and PGlite).
 *
 * ```sql
 * insert into agent_discovery_traffic (hour, agent, …)
 * select * from jsonb_to_recordset($1::jsonb) as x(hour timestamptz, agent text, …)
 * on conflict (hour, agent, purpose, verdict, surface, tool, status_class) do update
 *   set requests = agent_discovery_traffic.requests + excluded.requests, …
 * ```
 */
export async function addCounts(db: Kysely<Database>, batch: CountsBatch): Promise<void> {
  if (!batch.requests.length && !batch.resources.length && !batch.referrals.length) return;
  await db.transaction().execute(async (tx) => {
    for (const rows of chunks(batch.requests)) {
      const json = JSON.stringify(
        rows.map((r) => ({
          hour: iso(r.hour),
          agent: r.agent,
          operator: r.operator,
          purpose: r.purpose,
          verdict: r.verdict,
          surface: r.surface,
          tool: r.tool,
          status_class: r.statusClass,
          requests: r.requests,
          robots_violations: r.robotsViolations,
          last_seen: iso(r.lastSeen),
        })),
      );
      await sql`
        INSERT INTO agent_discovery_traffic (hour, agent, operator, purpose, verdict, surface, tool, status_class, requests, robots_violations, last_seen)
        SELECT hour, agent, operator, purpose, verdict, surface, tool, status_class, requests, robots_violations, last_seen
        FROM jsonb_to_recordset(${json}::jsonb) AS x(hour timestamptz, agent text, operator text, purpose text, verdict text, surface text, tool text, status_class smallint, requests bigint, robots_violations bigint, last_seen timestamptz)
        ON CONFLICT (hour, agent, purpose, verdict, surface, tool, status_class) DO UPDATE SET
          requests = agent_discovery_traffic.requests + excluded.requests,
          robots_violations = agent_discovery_traffic.robots_violations + excluded.robots_violations,
          last_seen = greatest(agent_discovery_traffic.last_seen, excluded.last_seen),
          operator = excluded.operator`.execute(tx);
    }
    for (const rows of chunks(batch.resources)) {
      const json = JSON.stringify(rows.map((r) => ({ hour: iso(r.hour), resource_id: r.resourceId, purpose: r.purpose, requests: r.requests })));
      await sql`
        INSERT INTO agent_discovery_traffic_resource (hour, resource_id, purpose, requests)
        SELECT hour, resource_id, purpose, requests
        FROM jsonb_to_recordset(${json}::jsonb) AS x(hour timestamptz, resource_id bigint, purpose text, requests bigint)
        ON CONFLICT (hour, resource_id, purpose) DO UPDATE SET requests = agent_discovery_traffic_resource.requests + excluded.requests`.execute(tx);
    }
    for (const rows of chunks(batch.referrals)) {
      const json = JSON.stringify(rows.map((r) => ({ hour: iso(r.hour), assistant: r.assistant, landing: r.landing, visits: r.visits })));
      await sql`
        INSERT INTO agent_discovery_traffic_referral (hour, assistant, landing, visits)
        SELECT hour, assistant, landing, visits
        FROM jsonb_to_recordset(${json}::jsonb) AS x(hour timestamptz, assistant text, landing text, visits bigint)
        ON CONFLICT (hour, assistant, landing) DO UPDATE SET visits = agent_discovery_traffic_referral.visits + excluded.visits`.execute(tx);
    }
  });
}

/**
 * Deletes the hourly rows older than `retentionDays`.
 *
 * ```sql
 * delete from agent_discovery_traffic where hour < now() - make_interval(days => $1)
 * ```
 */
export async function pruneCounts(db: Kysely<Database>, retentionDays: number): Promise<void> {
  const before = sql<Date>`now() - make_interval(days => ${retentionDays})`;
  await db.deleteFrom('agent_discovery_traffic').where('hour', '<', before).execute();
  await db.deleteFrom('agent_discovery_traffic_resource').where('hour', '<', before).execute();
  await db.deleteFrom('agent_discovery_traffic_referral').where('hour', '<', before).execute();
}

/** The stored counts of a time range, in the shape of a batch (hours as ms). */
export async function readCounts(db: Kysely<Database>, since: Date, until: Date): Promise<CountsBatch> {
  const [requests, resources, referrals] = await Promise.all([
    db
      .selectFrom('agent_discovery_traffic')
      .selectAll()
      .where('hour', '>=', since)
      .where('hour', '<', until)
      .execute(),
    db.selectFrom('agent_discovery_traffic_resource').selectAll().where('hour', '>=', since).where('hour', '<', until).execute(),
    db.selectFrom('agent_discovery_traffic_referral').selectAll().where('hour', '>=', since).where('hour', '<', until).execute(),
  ]);
  return {
    requests: requests.map((r) => ({
      hour: new Date(r.hour).getTime(),
      agent: r.agent,
      operator: r.operator,
      purpose: r.purpose,
      verdict: r.verdict,
      surface: r.surface,
      tool: r.tool,
      statusClass: Number(r.status_class),
      requests: Number(r.requests),
      robotsViolations: Number(r.robots_violations),
      lastSeen: new Date(r.last_seen).getTime(),
    })),
    resources: resources.map((r) => ({ hour: new Date(r.hour).getTime(), resourceId: Number(r.resource_id), purpose: r.purpose, requests: Number(r.requests) })),
    referrals: referrals.map((r) => ({ hour: new Date(r.hour).getTime(), assistant: r.assistant, landing: r.landing, visits: Number(r.visits) })),
    dropped: 0,
  };
}
