import { sql, type Kysely } from 'kysely';

/**
 * The operator's AI usage preferences on the plugin's settings row: the three Content Signals
 * (`search`, `ai-input`, `ai-train`; null: not set) and the crawler rules of the plugin's robots.txt
 * (`Allow:`/`Disallow:` lines; null: the default `Allow: /`). `IF NOT EXISTS`: over a host's schema
 * whose settings table was created without the plugin's migration record, the columns may be there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE agent_discovery_settings
      ADD COLUMN IF NOT EXISTS content_signal_search boolean,
      ADD COLUMN IF NOT EXISTS content_signal_ai_input boolean,
      ADD COLUMN IF NOT EXISTS content_signal_ai_train boolean,
      ADD COLUMN IF NOT EXISTS crawler_rules text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE agent_discovery_settings
      DROP COLUMN IF EXISTS content_signal_search,
      DROP COLUMN IF EXISTS content_signal_ai_input,
      DROP COLUMN IF EXISTS content_signal_ai_train,
      DROP COLUMN IF EXISTS crawler_rules`.execute(db);
}
