import { sql, type Kysely } from 'kysely';

/**
 * The optional `page_url` of the content contract on the plugin's own schema: the CMS's own page of a
 * resource (a path or absolute URL, one string or per language), which pushing CMSs fill.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE rsc ADD COLUMN page_url jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE rsc DROP COLUMN IF EXISTS page_url`.execute(db);
}
