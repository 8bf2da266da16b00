import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { CountsBatch, ReferralCount, RequestCount, ResourceCount } from './traffic-counts.js';

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

/** The stored counts of a range, aggregated by PostgreSQL (or PGlite): a few statements, a page of rows back. */
export interface StoredTraffic {
  /** The request rows grouped over the whole range by agent, purpose, verification, outcome, surface, tool and status class (`hour` is the range's start). */
  readonly requests: RequestCount[];
  /** Requests per UTC day and purpose. */
  readonly daily: { day: string; purpose: string; requests: number }[];
  /** The resources read most over the range (at most `top`), with their requests per purpose. */
  readonly resources: ResourceCount[];
  /** The most visited (assistant, landing) pairs (at most `top`), and every referred visit of the range. */
  readonly referrals: ReferralCount[];
  readonly referralVisits: number;
  /** Every referred visit of the range per assistant. */
  readonly referralsByAssistant: { assistant: string; visits: number }[];
}

/**
 * The report's rows of a range, grouped where the rows are (never every hourly row into the process):
 *
 * ```sql
 * select agent, purpose, verdict, method, reason, outcome, surface, tool, status_class, max(operator),
 *        sum(requests), sum(robots_violations), max(last_seen)
 * from agent_discovery_traffic where hour >= $1 and hour < $2
 * group by agent, purpose, verdict, method, reason, outcome, surface, tool, status_class
 * ```
 *
 * and per day and purpose, the top resources and the top referrals the same way.
 */
export async function readStoredTraffic(db: Kysely<Database>, since: Date, until: Date, top = 200): Promise<StoredTraffic> {
  const sinceMs = since.getTime();
  const [requests, daily, resources, referrals, visits, byAssistant] = await Promise.all([
    sql<{ agent: string; purpose: string; verdict: string; method: string; reason: string; outcome: string; surface: string; tool: string; status_class: number; operator: string | null; requests: string; violations: string; last_seen: Date }>`
      SELECT agent, purpose, verdict, method, reason, outcome, surface, tool, status_class, max(operator) AS operator,
        sum(requests) AS requests, sum(robots_violations) AS violations, max(last_seen) AS last_seen
      FROM agent_discovery_traffic WHERE hour >= ${since} AND hour < ${until}
      GROUP BY agent, purpose, verdict, method, reason, outcome, surface, tool, status_class`.execute(db),
    sql<{ day: string; purpose: string; requests: string }>`
      SELECT to_char(date_trunc('day', hour AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, purpose, sum(requests) AS requests
      FROM agent_discovery_traffic WHERE hour >= ${since} AND hour < ${until}
      GROUP BY 1, purpose`.execute(db),
    sql<{ resource_id: string; purpose: string; requests: string }>`
      WITH top AS (
        SELECT resource_id FROM agent_discovery_traffic_resource WHERE hour >= ${since} AND hour < ${until}
        GROUP BY resource_id ORDER BY sum(requests) DESC, resource_id LIMIT ${top})
      SELECT r.resource_id, r.purpose, sum(r.requests) AS requests
      FROM agent_discovery_traffic_resource r JOIN top USING (resource_id)
      WHERE r.hour >= ${since} AND r.hour < ${until}
      GROUP BY r.resource_id, r.purpose`.execute(db),
    sql<{ assistant: string; landing: string; visits: string }>`
      SELECT assistant, landing, sum(visits) AS visits FROM agent_discovery_traffic_referral
      WHERE hour >= ${since} AND hour < ${until}
      GROUP BY assistant, landing ORDER BY sum(visits) DESC, landing LIMIT ${top}`.execute(db),
    sql<{ visits: string | null }>`SELECT sum(visits) AS visits FROM agent_discovery_traffic_referral WHERE hour >= ${since} AND hour < ${until}`.execute(db),
    sql<{ assistant: string; visits: string }>`SELECT assistant, sum(visits) AS visits FROM agent_discovery_traffic_referral WHERE hour >= ${since} AND hour < ${until} GROUP BY assistant`.execute(db),
  ]);
  return {
    requests: requests.rows.map((r) => ({
      hour: sinceMs,
      agent: r.agent,
      operator: r.operator,
      purpose: r.purpose,
      // Rows written before verification by ranges said claimed/unsigned: neither verified nor spoofed.
      verdict: r.verdict === 'claimed' || r.verdict === 'unsigned' ? 'unverified' : r.verdict,
      method: r.method,
      reason: r.reason,
      outcome: r.outcome,
      surface: r.surface,
      tool: r.tool,
      statusClass: Number(r.status_class),
      requests: Number(r.requests),
      robotsViolations: Number(r.violations),
      lastSeen: new Date(r.last_seen).getTime(),
    })),
    daily: daily.rows.map((r) => ({ day: r.day, purpose: r.purpose, requests: Number(r.requests) })),
    resources: resources.rows.map((r) => ({ hour: sinceMs, resourceId: Number(r.resource_id), purpose: r.purpose, requests: Number(r.requests) })),
    referrals: referrals.rows.map((r) => ({ hour: sinceMs, assistant: r.assistant, landing: r.landing, visits: Number(r.visits) })),
    referralVisits: Number(visits.rows[0]?.visits ?? 0),
    referralsByAssistant: byAssistant.rows.map((r) => ({ assistant: r.assistant, visits: Number(r.visits) })),
  };
}

/** The hourly rows of one past hour kept per table: the most read resources and landing paths; the rest fold into "other". */
export const KEPT_PER_HOUR = 500;
/** The resource id and landing path the folded rows are counted under. */
export const OTHER_RESOURCE = 0;
export const OTHER_LANDING = '(other)';

/**
 * Bounds the rows over time: in each finished hour of the last two days, the resources and landing paths past
 * the `KEPT_PER_HOUR` most read are folded into one "other" row (counts kept, the distinct keys dropped).
 *
 * ```sql
 * with ranked as (select …, row_number() over (partition by hour order by requests desc) as rank …),
 *      moved as (delete from agent_discovery_traffic_resource t using ranked … where rank > 500 returning …)
 * insert into agent_discovery_traffic_resource select hour, 0, purpose, sum(requests) from moved group by … on conflict …
 * ```
 */
export async function foldRareKeys(db: Kysely<Database>): Promise<void> {
  await sql`
    WITH ranked AS (
      SELECT hour, resource_id, purpose, row_number() OVER (PARTITION BY hour ORDER BY requests DESC, resource_id) AS rank
      FROM agent_discovery_traffic_resource
      WHERE hour < date_trunc('hour', now()) AND hour >= now() - interval '2 days' AND resource_id <> ${OTHER_RESOURCE}),
    moved AS (
      DELETE FROM agent_discovery_traffic_resource t USING ranked r
      WHERE r.rank > ${KEPT_PER_HOUR} AND t.hour = r.hour AND t.resource_id = r.resource_id AND t.purpose = r.purpose
      RETURNING t.hour, t.purpose, t.requests)
    INSERT INTO agent_discovery_traffic_resource (hour, resource_id, purpose, requests)
    SELECT hour, ${OTHER_RESOURCE}, purpose, sum(requests) FROM moved GROUP BY hour, purpose
    ON CONFLICT (hour, resource_id, purpose) DO UPDATE SET requests = agent_discovery_traffic_resource.requests + excluded.requests`.execute(db);
  await sql`
    WITH ranked AS (
      SELECT hour, assistant, landing, row_number() OVER (PARTITION BY hour ORDER BY visits DESC, landing) AS rank
      FROM agent_discovery_traffic_referral
      WHERE hour < date_trunc('hour', now()) AND hour >= now() - interval '2 days' AND landing <> ${OTHER_LANDING}),
    moved AS (
      DELETE FROM agent_discovery_traffic_referral t USING ranked r
      WHERE r.rank > ${KEPT_PER_HOUR} AND t.hour = r.hour AND t.assistant = r.assistant AND t.landing = r.landing
      RETURNING t.hour, t.assistant, t.visits)
    INSERT INTO agent_discovery_traffic_referral (hour, assistant, landing, visits)
    SELECT hour, assistant, ${OTHER_LANDING}, sum(visits) FROM moved GROUP BY hour, assistant
    ON CONFLICT (hour, assistant, landing) DO UPDATE SET visits = agent_discovery_traffic_referral.visits + excluded.visits`.execute(db);
}

/**
 * Bounds the rows over time, the other way: the hourly rows of days that ended more than a day ago are rolled up
 * into one row per day and key (the `hour` of the day's first hour, UTC), sums kept, the latest `last_seen` kept.
 * The report is per day already; a year's range then reads a row per key and day instead of 24.
 *
 * ```sql
 * with moved as (delete from agent_discovery_traffic where hour < date_trunc('day', now(), 'UTC') - interval '1 day'
 *                and hour <> date_trunc('day', hour, 'UTC') returning *)
 * insert into agent_discovery_traffic select date_trunc('day', hour, 'UTC'), agent, …, sum(requests), … from moved group by …
 * on conflict (…) do update set requests = agent_discovery_traffic.requests + excluded.requests, …
 * ```
 */
export async function rollUpDays(db: Kysely<Database>): Promise<void> {
  const before = sql`date_trunc('day', now(), 'UTC') - interval '1 day'`;
  await sql`
    WITH moved AS (
      DELETE FROM agent_discovery_traffic WHERE hour < ${before} AND hour <> date_trunc('day', hour, 'UTC') RETURNING *)
    INSERT INTO agent_discovery_traffic (hour, agent, operator, purpose, verdict, method, reason, outcome, surface, tool, status_class, requests, robots_violations, last_seen)
    SELECT date_trunc('day', hour, 'UTC'), agent, max(operator), purpose, verdict, method, reason, outcome, surface, tool, status_class, sum(requests), sum(robots_violations), max(last_seen)
    FROM moved GROUP BY 1, agent, purpose, verdict, method, reason, outcome, surface, tool, status_class
    ON CONFLICT (hour, agent, purpose, verdict, method, reason, outcome, surface, tool, status_class) DO UPDATE SET
      requests = agent_discovery_traffic.requests + excluded.requests,
      robots_violations = agent_discovery_traffic.robots_violations + excluded.robots_violations,
      last_seen = greatest(agent_discovery_traffic.last_seen, excluded.last_seen)`.execute(db);
  await sql`
    WITH moved AS (
      DELETE FROM agent_discovery_traffic_resource WHERE hour < ${before} AND hour <> date_trunc('day', hour, 'UTC') RETURNING *)
    INSERT INTO agent_discovery_traffic_resource (hour, resource_id, purpose, requests)
    SELECT date_trunc('day', hour, 'UTC'), resource_id, purpose, sum(requests) FROM moved GROUP BY 1, resource_id, purpose
    ON CONFLICT (hour, resource_id, purpose) DO UPDATE SET requests = agent_discovery_traffic_resource.requests + excluded.requests`.execute(db);
  await sql`
    WITH moved AS (
      DELETE FROM agent_discovery_traffic_referral WHERE hour < ${before} AND hour <> date_trunc('day', hour, 'UTC') RETURNING *)
    INSERT INTO agent_discovery_traffic_referral (hour, assistant, landing, visits)
    SELECT date_trunc('day', hour, 'UTC'), assistant, landing, sum(visits) FROM moved GROUP BY 1, assistant, landing
    ON CONFLICT (hour, assistant, landing) DO UPDATE SET visits = agent_discovery_traffic_referral.visits + excluded.visits`.execute(db);
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
