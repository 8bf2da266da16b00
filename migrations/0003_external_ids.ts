import { sql, type Kysely } from 'kysely';

/**
 * The push API's id mapping: a CMS's string id (a uuid, a cuid, a 24-hex object id) and the bigint
 * `rsc` id it stands for. The foreign key is checked at commit, so a new mapping can reserve its id
 * before the resource row is written in the same transaction; removing the resource removes it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE agent_discovery_external_id (
      external_id text PRIMARY KEY,
      rsc_id bigint NOT NULL UNIQUE REFERENCES rsc (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS agent_discovery_external_id`.execute(db);
}
