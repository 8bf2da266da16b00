-- Wiki.js 2.x recipe, step 3: the pages' rows of `agent.resource`, kept exact by triggers.
SET client_min_messages = warning;

-- The row of each page, computed from Wiki.js's tables: one definition, used by the initial fill and
-- by every trigger.
--
-- Visibility: `isPrivate` -> 'private'; the Guests group's page rules (step 2) -> 'public' or
-- 'restricted'; `isPublished` is the contract's is_published.
--
-- Publishing window, as Wiki.js's page view checks it: a non-empty publishStartDate must be at or
-- before now, a non-empty publishEndDate at or after now (moment(...).isSameOrBefore/After). Without a
-- start date the page is public since its creation (createdAt). An unparsable date hides the page
-- (moment's invalid date compares false): start 'infinity', end '-infinity'. A date without a zone
-- ('2024-05-01', as Wiki.js's date picker stores it) is local time on the Wiki.js server, whose zone
-- the database does not know: the recipe takes the latest possible start (UTC-12, +12 h) and the
-- earliest possible end (UTC+14, -14 h), so a page is never public earlier or longer than in Wiki.js.
--
-- Full text: English stemming (ferries ~ ferry), weights title A, description B, body C; the body is
-- Wiki.js's rendered HTML with the tags stripped.
CREATE OR REPLACE VIEW agent.page_source AS
SELECT
  p.id,
  NULL::text AS name,
  2147483604 AS category_id,                          -- the `wiki` category (step 1)
  p."isPublished" AS is_published,
  CASE
    WHEN p."isPrivate" THEN 'private'
    WHEN agent.guest_may_read(g, p.id, p."localeCode", p.path) THEN 'public'
    ELSE 'restricted'
  END AS visibility,
  CASE
    WHEN coalesce(btrim(p."publishStartDate"), '') = '' THEN coalesce(c.created, 'infinity')
    ELSE coalesce(agent.wiki_instant(p."publishStartDate", interval '12 hours'), 'infinity')
  END AS publication_start,
  CASE
    WHEN coalesce(btrim(p."publishEndDate"), '') = '' THEN NULL
    ELSE coalesce(agent.wiki_instant(p."publishEndDate", interval '-14 hours'), '-infinity')
  END AS publication_end,
  coalesce(c.created, 'epoch') AS created,
  coalesce(agent.wiki_instant(p."updatedAt"), c.created, 'epoch') AS modified,
  ARRAY[c.locale] AS language,
  jsonb_build_object(c.locale, p.title) AS title,
  jsonb_build_object(c.locale, coalesce(p.description, '')) AS summary,
  setweight(to_tsvector('english', coalesce(p.title, '')), 'A') ||
  setweight(to_tsvector('english', coalesce(p.description, '')), 'B') ||
  setweight(to_tsvector('english', regexp_replace(coalesce(p.render, ''), '<[^>]*>', ' ', 'g')), 'C') AS fts,
  jsonb_build_object(c.locale, '/' || c.locale || '/' || p.path) AS page_url
FROM public.pages p
LEFT JOIN public.groups g ON g.id = 2                   -- Wiki.js's Guests group
CROSS JOIN LATERAL (SELECT agent.wiki_instant(p."createdAt") AS created, coalesce(p."localeCode", 'en')::text AS locale) c;

-- Recompute the rows of some pages (all of a row, or only its visibility), or drop a deleted page's row.
CREATE OR REPLACE FUNCTION agent.refresh_pages(page_ids integer[])
RETURNS void LANGUAGE sql AS $$
  INSERT INTO agent.resource AS r SELECT * FROM agent.page_source WHERE id = ANY (page_ids)
  ON CONFLICT (id) DO UPDATE SET
    category_id = EXCLUDED.category_id, is_published = EXCLUDED.is_published, visibility = EXCLUDED.visibility,
    publication_start = EXCLUDED.publication_start, publication_end = EXCLUDED.publication_end,
    created = EXCLUDED.created, modified = EXCLUDED.modified, language = EXCLUDED.language,
    title = EXCLUDED.title, summary = EXCLUDED.summary, fts = EXCLUDED.fts, page_url = EXCLUDED.page_url
$$;

CREATE OR REPLACE FUNCTION agent.refresh_page_visibility(page_ids integer[])
RETURNS void LANGUAGE sql AS $$
  UPDATE agent.resource r
  SET visibility = CASE
    WHEN p."isPrivate" THEN 'private'
    WHEN agent.guest_may_read(g, p.id, p."localeCode", p.path) THEN 'public'
    ELSE 'restricted'
  END
  FROM public.pages p LEFT JOIN public.groups g ON g.id = 2
  WHERE p.id = r.id AND r.id = ANY (page_ids)
$$;

-- Triggers. pages: any change of what the row is made of recomputes it; a deleted page loses it.
-- pageTags and tags: TAG rules may change the visibility of the pages concerned. groups: a change
-- of the Guests group recomputes every page's visibility.
CREATE OR REPLACE FUNCTION agent.on_page_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM agent.resource WHERE id = OLD.id;
  ELSE
    PERFORM agent.refresh_pages(ARRAY[NEW.id]);
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION agent.on_page_tag_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM agent.refresh_page_visibility(ARRAY[OLD."pageId"]); END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM agent.refresh_page_visibility(ARRAY[NEW."pageId"]); END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION agent.on_tag_rename() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM agent.refresh_page_visibility(ARRAY(SELECT "pageId" FROM public."pageTags" WHERE "tagId" = NEW.id));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION agent.on_guests_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM agent.refresh_page_visibility(ARRAY(SELECT id FROM public.pages));
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS agent_resource ON public.pages;
CREATE TRIGGER agent_resource AFTER INSERT OR UPDATE OF
  title, description, render, path, "localeCode", "isPrivate", "isPublished", "publishStartDate", "publishEndDate", "createdAt", "updatedAt"
  ON public.pages FOR EACH ROW EXECUTE FUNCTION agent.on_page_write();
DROP TRIGGER IF EXISTS agent_resource_delete ON public.pages;
CREATE TRIGGER agent_resource_delete AFTER DELETE ON public.pages
  FOR EACH ROW EXECUTE FUNCTION agent.on_page_write();

DROP TRIGGER IF EXISTS agent_resource ON public."pageTags";
CREATE TRIGGER agent_resource AFTER INSERT OR UPDATE OR DELETE ON public."pageTags"
  FOR EACH ROW EXECUTE FUNCTION agent.on_page_tag_write();

DROP TRIGGER IF EXISTS agent_resource ON public.tags;
CREATE TRIGGER agent_resource AFTER UPDATE OF tag ON public.tags
  FOR EACH ROW EXECUTE FUNCTION agent.on_tag_rename();

DROP TRIGGER IF EXISTS agent_resource_update ON public.groups;
CREATE TRIGGER agent_resource_update AFTER UPDATE ON public.groups
  FOR EACH ROW WHEN (OLD.id = 2 OR NEW.id = 2) EXECUTE FUNCTION agent.on_guests_change();
DROP TRIGGER IF EXISTS agent_resource_insert ON public.groups;
CREATE TRIGGER agent_resource_insert AFTER INSERT ON public.groups
  FOR EACH ROW WHEN (NEW.id = 2) EXECUTE FUNCTION agent.on_guests_change();
DROP TRIGGER IF EXISTS agent_resource_delete ON public.groups;
CREATE TRIGGER agent_resource_delete AFTER DELETE ON public.groups
  FOR EACH ROW WHEN (OLD.id = 2) EXECUTE FUNCTION agent.on_guests_change();

-- Indexes the triggers and TAG rules need on Wiki.js's tables (Wiki.js creates none on pageTags).
CREATE INDEX IF NOT EXISTS agent_pagetags_pageid_idx ON public."pageTags" ("pageId");
CREATE INDEX IF NOT EXISTS agent_pagetags_tagid_idx ON public."pageTags" ("tagId");

-- The initial fill (re-running this file recomputes every page's row, and drops rows of pages that
-- are gone), about 0.7 ms per page, mostly the text vector.
DELETE FROM agent.resource r WHERE r.id < 2147483000 AND NOT EXISTS (SELECT 1 FROM public.pages p WHERE p.id = r.id);
INSERT INTO agent.resource AS r SELECT * FROM agent.page_source
ON CONFLICT (id) DO UPDATE SET
  category_id = EXCLUDED.category_id, is_published = EXCLUDED.is_published, visibility = EXCLUDED.visibility,
  publication_start = EXCLUDED.publication_start, publication_end = EXCLUDED.publication_end,
  created = EXCLUDED.created, modified = EXCLUDED.modified, language = EXCLUDED.language,
  title = EXCLUDED.title, summary = EXCLUDED.summary, fts = EXCLUDED.fts, page_url = EXCLUDED.page_url;

-- One index per hot statement of the plugin: the search sorts (each with id ascending as the
-- tie-breaker), the category filter, the text search. (The id and the name have theirs already.)
CREATE INDEX IF NOT EXISTS resource_publication_start_desc_idx ON agent.resource (publication_start DESC, id);
CREATE INDEX IF NOT EXISTS resource_publication_start_asc_idx ON agent.resource (publication_start, id);
CREATE INDEX IF NOT EXISTS resource_modified_desc_idx ON agent.resource (modified DESC, id);
CREATE INDEX IF NOT EXISTS resource_category_idx ON agent.resource (category_id, id);
CREATE INDEX IF NOT EXISTS resource_fts_idx ON agent.resource USING gin (fts);
