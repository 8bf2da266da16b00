import { sql, type Kysely } from 'kysely';

/**
 * The record of changes of a resource's public state that the content itself cannot show, for the
 * change feed (`GET /api/agent/changes`): a resource that stopped being public (deleted, hidden,
 * unpublished, moved out of its window by an edit: `public = false`, a tombstone) or that became
 * public, or changed, without a newer `modified` or publication start (`public = true`). One row per
 * resource, its latest such change (a later write replaces it; the last written in a transaction
 * wins); nothing but the id, the time and the state. A plugin table (created over a host's own content relations too): the triggers of the
 * plugin's `rsc` (migration 0009) write it, and a host's own triggers call the two functions below.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS agent_discovery_visibility_log (
      id bigint PRIMARY KEY,
      at timestamptz NOT NULL,
      public boolean NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS agent_discovery_visibility_log_at_idx ON agent_discovery_visibility_log (at, id)`.execute(db);
  // Unqualified names resolve in the schema the migration runs in (a host's schema too). Only a
  // resource's latest change is kept: an earlier one never changes what a reader must do.
  await sql`
    CREATE OR REPLACE FUNCTION agent_discovery_record_removed(resource_id bigint, removed_at timestamptz DEFAULT now()) RETURNS void
    LANGUAGE sql AS $$
      INSERT INTO agent_discovery_visibility_log AS l (id, at, public) VALUES (resource_id, removed_at, false)
      ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at, public = false WHERE EXCLUDED.at >= l.at
    $$`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION agent_discovery_record_public(resource_id bigint, changed_at timestamptz DEFAULT now()) RETURNS void
    LANGUAGE sql AS $$
      INSERT INTO agent_discovery_visibility_log AS l (id, at, public) VALUES (resource_id, changed_at, true)
      ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at, public = true WHERE EXCLUDED.at >= l.at
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS agent_discovery_record_public(bigint, timestamptz)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS agent_discovery_record_removed(bigint, timestamptz)`.execute(db);
  await sql`DROP TABLE IF EXISTS agent_discovery_visibility_log`.execute(db);
}
