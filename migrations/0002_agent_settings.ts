import { sql, type Kysely } from 'kysely';

/**
 * The plugin's own settings, edited on its admin page: one row (`id` is always true). A null column
 * means "not set here": the factory option of the same name applies.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE agent_discovery_settings (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      description text,
      noindex boolean,
      sitemap_url text,
      llms_notes text,
      modified timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS agent_discovery_settings`.execute(db);
}
