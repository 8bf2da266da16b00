import { sql, type Kysely } from 'kysely';

/**
 * The plugin's own `rsc` keeps the visibility log (migration 0008) for the change feed: after every
 * insert, update and delete of a row, in the row's transaction. The rule of anonymous-visible is the
 * one of `src/content/visibility.ts` (`anonymousVisible`), written here as the trigger sees a row:
 *
 * - public before, not after (deleted, hidden, unpublished, its window moved by an edit): removed now;
 * - expired after having been public (its window ended, which no write shows; the feed lists it at
 *   `publication_end` from the table itself) and that no longer shows after the write (deleted,
 *   unpublished, edited since): removed at its `publication_end`, so the tombstone stays where it was;
 * - public after, not before (an update, or an insert of an id removed before): public now;
 * - public after, with a `modified` and publication start more than 30 seconds old (a push of an edit
 *   made earlier, an import): public now, so the change is not listed before a reader's last visit.
 *
 * A content index of the feed's order of resources (their latest change) comes with it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION agent_discovery_rsc_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      was_public boolean := false;
      is_public boolean := false;
      was_expired timestamptz;
      is_expired timestamptz;
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        was_public := OLD.is_published AND OLD.visibility = 'public' AND OLD.publication_start <= now()
          AND (OLD.publication_end IS NULL OR OLD.publication_end > now());
        IF OLD.is_published AND OLD.visibility = 'public' AND OLD.publication_end <= now()
          AND greatest(OLD.modified, OLD.publication_start) < OLD.publication_end THEN
          was_expired := OLD.publication_end;
        END IF;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        is_public := NEW.is_published AND NEW.visibility = 'public' AND NEW.publication_start <= now()
          AND (NEW.publication_end IS NULL OR NEW.publication_end > now());
        IF NEW.is_published AND NEW.visibility = 'public' AND NEW.publication_end <= now()
          AND greatest(NEW.modified, NEW.publication_start) < NEW.publication_end THEN
          is_expired := NEW.publication_end;
        END IF;
      END IF;
      IF was_public AND NOT is_public THEN
        PERFORM agent_discovery_record_removed(OLD.id);
      ELSIF was_expired IS NOT NULL AND was_expired IS DISTINCT FROM is_expired THEN
        PERFORM agent_discovery_record_removed(OLD.id, was_expired);
      END IF;
      IF is_public AND (
        (TG_OP = 'UPDATE' AND NOT was_public)
        OR greatest(NEW.modified, NEW.publication_start) < now() - interval '30 seconds'
        OR (TG_OP = 'INSERT' AND EXISTS (SELECT 1 FROM agent_discovery_visibility_log l WHERE l.id = NEW.id))
      ) THEN
        PERFORM agent_discovery_record_public(NEW.id);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`DROP TRIGGER IF EXISTS agent_discovery_rsc_visibility ON rsc`.execute(db);
  await sql`
    CREATE TRIGGER agent_discovery_rsc_visibility AFTER INSERT OR UPDATE OR DELETE ON rsc
      FOR EACH ROW EXECUTE FUNCTION agent_discovery_rsc_visibility()`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS rsc_changed_idx ON rsc ((greatest(modified, publication_start)), id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS rsc_changed_idx`.execute(db);
  await sql`DROP TRIGGER IF EXISTS agent_discovery_rsc_visibility ON rsc`.execute(db);
  await sql`DROP FUNCTION IF EXISTS agent_discovery_rsc_visibility()`.execute(db);
}
