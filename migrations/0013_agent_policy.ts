import { sql, type Kysely } from 'kysely';

/**
 * Who is really asking, and what they got (see docs/guides/traffic.md and docs/guides/admin.md):
 * - the hourly traffic rows gain how a request was verified (`method`: signature, ranges, dns, or ''), why a
 *   signature did not verify (`reason`), and what the agent policy did (`outcome`: served, limited, blocked,
 *   charged, payment-required); `verdict` now holds the verification state (verified, spoofed, unverified;
 *   rows written before this migration hold claimed/unsigned, read as unverified). The key grows with them.
 * - an index on (hour, agent) for the report's range scans grouped by agent;
 * - `agent_discovery_charges`: the pay-per-crawl ledger, hourly rows per agent (requests charged and the
 *   amount in millionths of a dollar), additive like the traffic rows;
 * - `agent_discovery_policy_log`: each saved change of the agent policy (when, the policy saved, a summary).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_discovery_traffic ADD COLUMN IF NOT EXISTS method text NOT NULL DEFAULT ''`.execute(db);
  await sql`ALTER TABLE agent_discovery_traffic ADD COLUMN IF NOT EXISTS reason text NOT NULL DEFAULT ''`.execute(db);
  await sql`ALTER TABLE agent_discovery_traffic ADD COLUMN IF NOT EXISTS outcome text NOT NULL DEFAULT 'served'`.execute(db);
  await sql`ALTER TABLE agent_discovery_traffic DROP CONSTRAINT IF EXISTS agent_discovery_traffic_pkey`.execute(db);
  await sql`ALTER TABLE agent_discovery_traffic ADD CONSTRAINT agent_discovery_traffic_pkey
    PRIMARY KEY (hour, agent, purpose, verdict, method, reason, outcome, surface, tool, status_class)`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS agent_discovery_charges (
      hour timestamptz NOT NULL,
      agent text NOT NULL,
      requests bigint NOT NULL,
      amount_micros bigint NOT NULL,
      PRIMARY KEY (hour, agent)
    )`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS agent_discovery_policy_log (
      id bigserial PRIMARY KEY,
      changed_at timestamptz NOT NULL DEFAULT now(),
      policy jsonb NOT NULL,
      summary text NOT NULL
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS agent_discovery_policy_log`.execute(db);
  await sql`DROP TABLE IF EXISTS agent_discovery_charges`.execute(db);
  await sql`DELETE FROM agent_discovery_traffic WHERE method <> '' OR reason <> '' OR outcome <> 'served'`.execute(db);
  await sql`ALTER TABLE agent_discovery_traffic DROP CONSTRAINT IF EXISTS agent_discovery_traffic_pkey`.execute(db);
  await sql`ALTER TABLE agent_discovery_traffic DROP COLUMN IF EXISTS outcome, DROP COLUMN IF EXISTS reason, DROP COLUMN IF EXISTS method`.execute(db);
  await sql`ALTER TABLE agent_discovery_traffic ADD CONSTRAINT agent_discovery_traffic_pkey PRIMARY KEY (hour, agent, purpose, verdict, surface, tool, status_class)`.execute(db);
}
