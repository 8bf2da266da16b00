import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { PushDatabase } from './push-database.js';
import { refColumns } from './ref-keys.js';
import type { ResourceRow } from './resource-batch.js';
import { MAX_RESOURCE_ID, type ContentRef } from './resource-input.js';
import { NEXT_ID } from './surrogate-ids.js';

/**
 * `put` of one resource in the common case, as a statement a fraction the size of the batch
 * statement (`putResources`), which PostgreSQL plans in a fraction of the time: a new or existing id,
 * a category at the top level or under `meta`. It writes only when every check passes, and answers
 * no row otherwise (or in a case it leaves out: a subcategory, a fresh id already taken); then the
 * batch statement runs, writes what the fast path left out and names the problem of what it refuses.
 * The checks here are the batch statement's, never looser (test/push-bulk.test.ts compares the two).
 */

/**
 * A category the fast path writes into: a category at the top level or directly under `meta` (a
 * vocabulary category), none of the roots `meta`, `category` and `predicate` (`roots`: their ids,
 * `meta` first). Every other category (a subcategory, one below the roots) is left to the batch
 * statement and its tree walk.
 */
function plainCategory(id: RawBuilder<unknown>): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (
    SELECT 1 FROM category c, roots WHERE c.id = ${id} AND c.id <> ALL(roots.ids) AND (c.parent_id IS NULL OR c.parent_id = roots.ids[1]))`;
}

/**
 * The statement. `$1` is the resource's row (the batch statement's columns, with its category
 * reference inline); `$2`, `$3` whether `publication_start` and `created` were given (an update keeps
 * the stored ones otherwise).
 *
 * ```sql
 * WITH i AS (SELECT * FROM jsonb_to_record($1::jsonb) AS x(id bigint, external_id text, cat_id bigint, …)),
 *   t AS (SELECT i.*, <the id: given, mapped, or the next of the sequence> AS target_id,
 *                     <the category: exactly one resource the reference names> AS category_id, … FROM i),
 *   ok AS (SELECT t.*, <category plain> AND <the stored row no category or predicate, in a plain category>
 *     AND <id not a string id's> AND <a fresh id free> AND <window> AND <name free> AS ok FROM t LEFT JOIN rsc s ON s.id = t.target_id),
 *   mapped AS (INSERT INTO agent_discovery_external_id … SELECT … FROM ok WHERE ok AND is_new ON CONFLICT DO NOTHING RETURNING rsc_id)
 * INSERT INTO rsc AS s (…) SELECT … FROM ok WHERE ok AND (NOT is_new OR EXISTS (SELECT 1 FROM mapped))
 * ON CONFLICT (id) DO UPDATE SET … RETURNING s.id
 * ```
 */
function fastPutStatement(rowJson: string, startGiven: boolean, createdGiven: boolean) {
  return sql<{ id: string | number }>`
    WITH i AS MATERIALIZED (
      SELECT * FROM jsonb_to_record(${rowJson}::jsonb) AS x(
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
        coalesce(i.id, m.rsc_id, CASE WHEN i.external_id IS NOT NULL THEN ${NEXT_ID} END) AS target_id,
        (SELECT min(f.id) FROM (
            SELECT r.id FROM rsc r WHERE r.id = i.cat_id
            UNION SELECT r.id FROM rsc r WHERE r.name = coalesce(i.cat_name, i.cat_either)
            UNION SELECT e.rsc_id FROM agent_discovery_external_id e WHERE e.external_id = coalesce(i.cat_ext, i.cat_either)
          ) f HAVING count(*) = 1) AS category_id
      FROM i LEFT JOIN agent_discovery_external_id m ON m.external_id = i.external_id
    ),
    ok AS MATERIALIZED (
      SELECT t.*, (
        ${plainCategory(sql`t.category_id`)}
        AND (s.id IS NULL OR (NOT EXISTS (SELECT 1 FROM category k WHERE k.id = s.id) AND (s.category_id = t.category_id OR ${plainCategory(sql`s.category_id`)})))
        AND (t.id IS NULL OR NOT EXISTS (SELECT 1 FROM agent_discovery_external_id o WHERE o.rsc_id = t.id))
        AND (NOT t.is_new OR (s.id IS NULL AND t.target_id BETWEEN 1 AND ${MAX_RESOURCE_ID}
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
      publication_start = CASE WHEN ${startGiven} THEN EXCLUDED.publication_start ELSE s.publication_start END,
      created = CASE WHEN ${createdGiven} THEN EXCLUDED.created ELSE s.created END,
      language = EXCLUDED.language, title = EXCLUDED.title, summary = EXCLUDED.summary, body = EXCLUDED.body, blocks = EXCLUDED.blocks,
      props = EXCLUDED.props, seo_noindex = EXCLUDED.seo_noindex, uri = EXCLUDED.uri, license = EXCLUDED.license,
      attribution = EXCLUDED.attribution, page_url = EXCLUDED.page_url
    RETURNING s.id`;
}

/**
 * Writes one resource by the fast path; its id, or undefined when the fast path wrote nothing (the
 * batch statement then decides). `row` is the batch statement's row of the resource.
 */
export async function fastPut(db: Kysely<PushDatabase>, row: ResourceRow, category: ContentRef, given: { publicationStart: boolean; created: boolean }): Promise<number | undefined> {
  const ref = refColumns(category);
  const json = JSON.stringify({ ...row, cat_id: ref.id, cat_name: ref.name, cat_ext: ref.external_id, cat_either: ref.either });
  const { rows } = await fastPutStatement(json, given.publicationStart, given.created).execute(db);
  return rows[0] ? Number(rows[0].id) : undefined;
}
