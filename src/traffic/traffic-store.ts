import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { CountsBatch } from './traffic-counts.js';

/** Rows per statement of a flush (one JSON parameter each): small enough that PGlite, which runs on the event loop, blocks it only briefly per statement. */
const ROWS_PER_STATEMENT = 500;

const chunks = <T>(rows: readonly T[]): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
};

/** Lets other work run between two statements of a flush. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Adds a batch of counts to the hourly rows, a statement per 500 rows with the event loop free
 * between them: each row is an additive upsert, so the counts of several processes on one database
 * add up (a flush that fails part way has added what it wrote; the rest is lost, never counted twice).
 * Rows travel as one JSON array of arrays per statement (hours and times as epoch milliseconds):
 * cheap to build, the same on PostgreSQL and PGlite.
 *
 * ```sql
 * insert into agent_discovery_traffic (hour, agent, …)
 * select to_timestamp((e->>0)::bigint / 1000.0), e->>1, … from jsonb_array_elements($1::jsonb) as e
 * on conflict (hour, agent, purpose, verdict, surface, tool, status_class) do update
 *   set requests = agent_discovery_traffic.requests + excluded.requests, …
 * ```
 */
export async function addCounts(db: Kysely<Database>, batch: CountsBatch): Promise<void> {
  for (const rows of chunks(batch.requests)) {
    const json = JSON.stringify(rows.map((r) => [r.hour, r.agent, r.operator, r.purpose, r.verdict, r.surface, r.tool, r.statusClass, r.requests, r.robotsViolations, r.lastSeen, r.method, r.reason, r.outcome]));
    await sql`
      INSERT INTO agent_discovery_traffic (hour, agent, operator, purpose, verdict, surface, tool, status_class, requests, robots_violations, last_seen, method, reason, outcome)
      SELECT to_timestamp((e->>0)::bigint / 1000.0), e->>1, e->>2, e->>3, e->>4, e->>5, e->>6, (e->>7)::smallint, (e->>8)::bigint, (e->>9)::bigint, to_timestamp((e->>10)::bigint / 1000.0), e->>11, e->>12, e->>13
      FROM jsonb_array_elements(${json}::jsonb) AS e
      ON CONFLICT (hour, agent, purpose, verdict, method, reason, outcome, surface, tool, status_class) DO UPDATE SET
        requests = agent_discovery_traffic.requests + excluded.requests,
        robots_violations = agent_discovery_traffic.robots_violations + excluded.robots_violations,
        last_seen = greatest(agent_discovery_traffic.last_seen, excluded.last_seen),
        operator = excluded.operator`.execute(db);
    await yieldToLoop();
  }
  for (const rows of chunks(batch.resources)) {
    const json = JSON.stringify(rows.map((r) => [r.hour, r.resourceId, r.purpose, r.requests]));
    await sql`
      INSERT INTO agent_discovery_traffic_resource (hour, resource_id, purpose, requests)
      SELECT to_timestamp((e->>0)::bigint / 1000.0), (e->>1)::bigint, e->>2, (e->>3)::bigint
      FROM jsonb_array_elements(${json}::jsonb) AS e
      ON CONFLICT (hour, resource_id, purpose) DO UPDATE SET requests = agent_discovery_traffic_resource.requests + excluded.requests`.execute(db);
    await yieldToLoop();
  }
  for (const rows of chunks(batch.referrals)) {
    const json = JSON.stringify(rows.map((r) => [r.hour, r.assistant, r.landing, r.visits]));
    await sql`
      INSERT INTO agent_discovery_traffic_referral (hour, assistant, landing, visits)
      SELECT to_timestamp((e->>0)::bigint / 1000.0), e->>1, e->>2, (e->>3)::bigint
      FROM jsonb_array_elements(${json}::jsonb) AS e
      ON CONFLICT (hour, assistant, landing) DO UPDATE SET visits = agent_discovery_traffic_referral.visits + excluded.visits`.execute(db);
    await yieldToLoop();
  }
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
      method: r.method,
      reason: r.reason,
      outcome: r.outcome,
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
