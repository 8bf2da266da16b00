import { sql, type Kysely } from 'kysely';

/**
 * The run-time settings as one JSON object (`settings`, one member per setting set on the admin page;
 * see `SETTINGS` in src/settings/settings-schema.ts) instead of a column each, so adding a setting
 * needs no migration; and the row's `version`, which a trigger sets on every insert and update from
 * the clock (microseconds since 1970, and always past the previous version), so caches keyed by it
 * can never take a changed row for one they have seen, even after a backup is restored. The values of
 * the former columns are moved into the object, then the columns dropped.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE agent_discovery_settings
      ADD COLUMN IF NOT EXISTS settings jsonb NOT NULL DEFAULT '{}'::jsonb,
      ADD COLUMN IF NOT EXISTS version bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`
    UPDATE agent_discovery_settings SET settings = jsonb_strip_nulls(jsonb_build_object(
      'description', description, 'noindex', noindex, 'sitemapUrl', sitemap_url, 'llmsNotes', llms_notes,
      'contentSignalSearch', content_signal_search, 'contentSignalAiInput', content_signal_ai_input,
      'contentSignalAiTrain', content_signal_ai_train, 'crawlerRules', crawler_rules))`.execute(db);
  await sql`
    ALTER TABLE agent_discovery_settings
      DROP COLUMN IF EXISTS description, DROP COLUMN IF EXISTS noindex, DROP COLUMN IF EXISTS sitemap_url,
      DROP COLUMN IF EXISTS llms_notes, DROP COLUMN IF EXISTS content_signal_search,
      DROP COLUMN IF EXISTS content_signal_ai_input, DROP COLUMN IF EXISTS content_signal_ai_train,
      DROP COLUMN IF EXISTS crawler_rules`.execute(db);
  // Unqualified names resolve in the schema the migration runs in (a host's schema too).
  await sql`
    CREATE OR REPLACE FUNCTION agent_discovery_settings_version() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.version := greatest(
        coalesce(CASE WHEN TG_OP = 'UPDATE' THEN OLD.version END, 0) + 1,
        (extract(epoch FROM clock_timestamp()) * 1000000)::bigint);
      RETURN NEW;
    END $$`.execute(db);
  await sql`DROP TRIGGER IF EXISTS agent_discovery_settings_version ON agent_discovery_settings`.execute(db);
  await sql`
    CREATE TRIGGER agent_discovery_settings_version BEFORE INSERT OR UPDATE ON agent_discovery_settings
      FOR EACH ROW EXECUTE FUNCTION agent_discovery_settings_version()`.execute(db);
  await sql`UPDATE agent_discovery_settings SET modified = modified`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS agent_discovery_settings_version ON agent_discovery_settings`.execute(db);
  await sql`DROP FUNCTION IF EXISTS agent_discovery_settings_version()`.execute(db);
  await sql`
    ALTER TABLE agent_discovery_settings
      ADD COLUMN IF NOT EXISTS description text, ADD COLUMN IF NOT EXISTS noindex boolean,
      ADD COLUMN IF NOT EXISTS sitemap_url text, ADD COLUMN IF NOT EXISTS llms_notes text,
      ADD COLUMN IF NOT EXISTS content_signal_search boolean, ADD COLUMN IF NOT EXISTS content_signal_ai_input boolean,
      ADD COLUMN IF NOT EXISTS content_signal_ai_train boolean, ADD COLUMN IF NOT EXISTS crawler_rules text`.execute(db);
  await sql`
    UPDATE agent_discovery_settings SET
      description = settings->>'description', noindex = (settings->>'noindex')::boolean,
      sitemap_url = settings->>'sitemapUrl', llms_notes = settings->>'llmsNotes',
      content_signal_search = (settings->>'contentSignalSearch')::boolean,
      content_signal_ai_input = (settings->>'contentSignalAiInput')::boolean,
      content_signal_ai_train = (settings->>'contentSignalAiTrain')::boolean,
      crawler_rules = settings->>'crawlerRules'`.execute(db);
  await sql`ALTER TABLE agent_discovery_settings DROP COLUMN IF EXISTS settings, DROP COLUMN IF EXISTS version`.execute(db);
}
