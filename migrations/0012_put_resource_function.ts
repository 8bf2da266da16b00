import { sql, type Kysely } from 'kysely';

/**
 * `put` of one resource in the common case, as a function of the database: the statement of the push
 * API's fast path (a new or existing id, a category at the top level or under `meta`), which a
 * PL/pgSQL function plans once per connection and reuses, where the same statement sent as text was
 * parsed, analysed and planned on every call (about 2.4 of the 4.4 ms a `put` took on PostgreSQL,
 * against 2.0 ms as a named statement). It writes only when every check passes and returns the id,
 * or null when it wrote nothing (a case it leaves out, or a check that fails); then the push API's
 * batch statement writes what it left out and names the problem of what it refuses. Its checks are
 * the batch statement's, never looser (test/push-bulk.test.ts compares the two).
 *
 * `p_row` is the batch statement's row of the resource (jsonb, with its category reference inline as
 * `cat_id`, `cat_name`, `cat_ext` or `cat_either`); `p_start_given`, `p_created_given` whether
 * `publication_start` and `created` were given (an update keeps the stored ones otherwise). A string
 * id's number is counted down from the top of the read API's range (999,999,999,999,999) by the `rsc`
 * id sequence, as src/push/surrogate-ids.ts says.
 *
 * Unqualified names resolve in the schema the migration runs in (`SET search_path FROM CURRENT`). A
 * later change of the fast path's rules is a new migration replacing the function.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION agent_discovery_put_resource(p_row jsonb, p_start_given boolean, p_created_given boolean)
    RETURNS bigint LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
    #variable_conflict use_column
    DECLARE
      v_id bigint;
    BEGIN
      WITH i AS MATERIALIZED (
        SELECT * FROM jsonb_to_record(p_row) AS x(
          id bigint, external_id text, cat_id bigint, cat_name text, cat_ext text, cat_either text, name text, is_published boolean,
          visibility text, publication_start timestamptz, publication_end timestamptz, modified timestamptz, created timestamptz,
          language text[], title jsonb, summary jsonb, body jsonb, blocks jsonb, props jsonb, seo_noindex boolean,
          uri text, license jsonb, attribution jsonb, page_url jsonb)
      ),
      roots AS MATERIALIZED (
        SELECT ARRAY(SELECT id FROM rsc WHERE name IN ('meta', 'category', 'predicate') ORDER BY name <> 'meta') AS ids
      ),
      t AS MATERIALIZED (
        SELECT i.*, m.rsc_id IS NULL AND i.external_id IS NOT NULL AS is_new,
          coalesce(i.id, m.rsc_id, CASE WHEN i.external_id IS NOT NULL THEN (1000000000000000::bigint - nextval(pg_get_serial_sequence('rsc', 'id'))) END) AS target_id,
          (SELECT min(f.id) FROM (
              SELECT r.id FROM rsc r WHERE r.id = i.cat_id
              UNION SELECT r.id FROM rsc r WHERE r.name = coalesce(i.cat_name, i.cat_either)
              UNION SELECT e.rsc_id FROM agent_discovery_external_id e WHERE e.external_id = coalesce(i.cat_ext, i.cat_either)
            ) f HAVING count(*) = 1) AS category_id
        FROM i LEFT JOIN agent_discovery_external_id m ON m.external_id = i.external_id
      ),
      ok AS MATERIALIZED (
        SELECT t.*, (
          EXISTS (SELECT 1 FROM category c, roots WHERE c.id = t.category_id AND c.id <> ALL(roots.ids) AND (c.parent_id IS NULL OR c.parent_id = roots.ids[1]))
          AND (s.id IS NULL OR (NOT EXISTS (SELECT 1 FROM category k WHERE k.id = s.id) AND (s.category_id = t.category_id OR EXISTS (SELECT 1 FROM category c, roots WHERE c.id = s.category_id AND c.id <> ALL(roots.ids) AND (c.parent_id IS NULL OR c.parent_id = roots.ids[1])))))
          AND (t.id IS NULL OR NOT EXISTS (SELECT 1 FROM agent_discovery_external_id o WHERE o.rsc_id = t.id))
          AND (NOT t.is_new OR (s.id IS NULL AND t.target_id BETWEEN 1 AND 999999999999999
            AND NOT EXISTS (SELECT 1 FROM agent_discovery_external_id x WHERE x.rsc_id = t.target_id)))
          AND (t.publication_end IS NULL OR t.publication_end >= coalesce(t.publication_start, s.publication_start, now()))
          AND (t.name IS NULL OR NOT EXISTS (SELECT 1 FROM rsc n WHERE n.name = t.name AND n.id <> t.target_id))
        ) AS ok
        FROM t LEFT JOIN rsc s ON s.id = t.target_id
      ),
      mapped AS (
        INSERT INTO agent_discovery_external_id (external_id, rsc_id)
        SELECT external_id, target_id FROM ok WHERE ok AND is_new
        ON CONFLICT (external_id) DO NOTHING
        RETURNING rsc_id
      )
      INSERT INTO rsc AS s (id, name, category_id, is_published, visibility, publication_start, publication_end, created, modified,
        language, title, summary, body, blocks, props, seo_noindex, uri, license, attribution, page_url)
      SELECT o.target_id, o.name, o.category_id, o.is_published, o.visibility, coalesce(o.publication_start, now()), o.publication_end,
        coalesce(o.created, now()), coalesce(o.modified, now()), o.language, o.title, o.summary, o.body, o.blocks, o.props,
        o.seo_noindex, o.uri, o.license, o.attribution, o.page_url
      FROM ok o
      WHERE o.ok AND (NOT o.is_new OR EXISTS (SELECT 1 FROM mapped))
      -- A fresh id is free when checked; should another writer take it in between, setting the id to null fails the
      -- statement (NOT NULL) rather than write over that writer's resource.
      ON CONFLICT (id) DO UPDATE SET id = CASE WHEN EXCLUDED.id IN (SELECT rsc_id FROM mapped) THEN NULL ELSE s.id END, name = EXCLUDED.name, category_id = EXCLUDED.category_id, is_published = EXCLUDED.is_published,
        visibility = EXCLUDED.visibility, publication_end = EXCLUDED.publication_end, modified = EXCLUDED.modified,
        publication_start = CASE WHEN p_start_given THEN EXCLUDED.publication_start ELSE s.publication_start END,
        created = CASE WHEN p_created_given THEN EXCLUDED.created ELSE s.created END,
        language = EXCLUDED.language, title = EXCLUDED.title, summary = EXCLUDED.summary, body = EXCLUDED.body, blocks = EXCLUDED.blocks,
        props = EXCLUDED.props, seo_noindex = EXCLUDED.seo_noindex, uri = EXCLUDED.uri, license = EXCLUDED.license,
        attribution = EXCLUDED.attribution, page_url = EXCLUDED.page_url
      RETURNING s.id INTO v_id;
      RETURN v_id;
    END
    $fn$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS agent_discovery_put_resource(jsonb, boolean, boolean)`.execute(db);
}
