import { sql, type Kysely } from 'kysely';

/**
 * The content version: one number that changes in the transaction of every write of the content, so
 * that a build of something made from the content (llms-full.txt, a resource's composed Markdown) can
 * be kept and reused while the number holds (see docs/architecture.md, "What is cached"). A plugin
 * table, created over a host's own content relations too: the plugin's own content tables bump it by
 * triggers (migration 0011); a views-road host bumps it from its own triggers with
 * `SELECT agent_discovery_content_changed()` or by attaching `agent_discovery_content_changed_trigger()`
 * as a statement trigger.
 *
 * The new version is the clock in microseconds since 1970, and always past the previous one, so a
 * restored backup or a clock set back never brings back a version a process has seen since.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS agent_discovery_content_version (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      version bigint NOT NULL
    )`.execute(db);
  await sql`
    INSERT INTO agent_discovery_content_version (id, version)
    VALUES (true, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)
    ON CONFLICT (id) DO NOTHING`.execute(db);
  // Unqualified names resolve in the schema the migration runs in (a host's schema too), also when a
  // CMS's own session with another search path calls them (`SET search_path FROM CURRENT`).
  await sql`
    CREATE OR REPLACE FUNCTION agent_discovery_content_changed() RETURNS void LANGUAGE sql
    SET search_path FROM CURRENT AS $$
      UPDATE agent_discovery_content_version
        SET version = greatest(version + 1, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)
        WHERE id
    $$`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION agent_discovery_content_changed_trigger() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
    BEGIN
      PERFORM agent_discovery_content_changed();
      RETURN NULL;
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS agent_discovery_content_changed_trigger()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS agent_discovery_content_changed()`.execute(db);
  await sql`DROP TABLE IF EXISTS agent_discovery_content_version`.execute(db);
}
