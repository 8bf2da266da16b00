import { sql, type Kysely } from 'kysely';

/**
 * Agent traffic, counted per hour (see docs/guides/traffic.md): requests by agent, purpose,
 * verification, surface, MCP tool and status class; the resources agents read; the human visits AI
 * assistants referred, by landing path. Additive rows: each process adds its counts with an upsert, so
 * several instances on one database add up. No IP address, cookie, query string or user-agent text
 * has a column.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS agent_discovery_traffic (
      hour timestamptz NOT NULL,
      agent text NOT NULL,
      operator text,
      purpose text NOT NULL,
      verdict text NOT NULL,
      surface text NOT NULL,
      tool text NOT NULL DEFAULT '',
      status_class smallint NOT NULL,
      requests bigint NOT NULL,
      robots_violations bigint NOT NULL DEFAULT 0,
      last_seen timestamptz NOT NULL,
      PRIMARY KEY (hour, agent, purpose, verdict, surface, tool, status_class)
    )`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS agent_discovery_traffic_resource (
      hour timestamptz NOT NULL,
      resource_id bigint NOT NULL,
      purpose text NOT NULL,
      requests bigint NOT NULL,
      PRIMARY KEY (hour, resource_id, purpose)
    )`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS agent_discovery_traffic_referral (
      hour timestamptz NOT NULL,
      assistant text NOT NULL,
      landing text NOT NULL,
      visits bigint NOT NULL,
      PRIMARY KEY (hour, assistant, landing)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS agent_discovery_traffic_referral`.execute(db);
  await sql`DROP TABLE IF EXISTS agent_discovery_traffic_resource`.execute(db);
  await sql`DROP TABLE IF EXISTS agent_discovery_traffic`.execute(db);
}
