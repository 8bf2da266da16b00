import { sql, type Kysely } from 'kysely';

/** The plugin's own content tables, whose every write changes what a reader can see. */
const CONTENT_TABLES = ['rsc', 'edge', 'category', 'predicate_category', 'medium'] as const;

/**
 * The plugin's own content tables bump the content version (migration 0010) in the transaction of
 * every statement that writes them: one statement trigger per table (a bulk write of 500 rows bumps
 * it once, not 500 times). The row lock this takes on the version row is held until the writing
 * transaction ends, so writers of the content commit one after another (they already wait on each
 * other's rows).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of CONTENT_TABLES) {
    const trigger = sql.id(`agent_discovery_${table}_content_changed`);
    await sql`DROP TRIGGER IF EXISTS ${trigger} ON ${sql.id(table)}`.execute(db);
    await sql`
      CREATE TRIGGER ${trigger} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.id(table)}
        FOR EACH STATEMENT EXECUTE FUNCTION agent_discovery_content_changed_trigger()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of CONTENT_TABLES) {
    await sql`DROP TRIGGER IF EXISTS ${sql.id(`agent_discovery_${table}_content_changed`)} ON ${sql.id(table)}`.execute(db);
  }
}
