-- Wiki.js 2.x recipe, step 4: edges `links_to` from Wiki.js's pageLinks, kept by triggers.
SET client_min_messages = warning;
--
-- pageLinks holds (pageId, localeCode, path): the linking page and the target's address. An edge
-- needs the target's id, resolved by (localeCode, path); a link to a missing page is no edge. A view
-- resolving it per read cannot walk the contract's unique indexes (subject, predicate, object) and
-- (object, predicate, subject) in order, so the related read would sort all of a popular page's
-- links; the recipe keeps `agent.edge` as a table instead, with exactly those indexes.
-- Edge id = pageLinks.id; `created` = when the link was recorded (the linking page's updatedAt
-- for links that existed when the recipe was applied).

-- Resolving a link target by address.
CREATE INDEX IF NOT EXISTS agent_pages_locale_path_idx ON public.pages ("localeCode", path);

-- (Its foreign keys and indexes come after the initial fill: checking them row by row would triple its time.)
CREATE TABLE IF NOT EXISTS agent.edge (
  id integer PRIMARY KEY,                            -- pageLinks.id
  subject_id integer NOT NULL,                       -- pageLinks."pageId"
  predicate_id integer NOT NULL DEFAULT 2147483605,  -- `links_to` (step 1)
  object_id integer NOT NULL,                        -- the page at (pageLinks."localeCode", pageLinks.path)
  seq integer NOT NULL DEFAULT 0,
  created timestamptz NOT NULL DEFAULT now()
);

-- A pageLinks row written: (re)resolve its target. A second link from the same page to the same
-- target is no second edge (ON CONFLICT DO NOTHING).
CREATE OR REPLACE FUNCTION agent.on_page_link_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN DELETE FROM agent.edge WHERE id = OLD.id; END IF;
  INSERT INTO agent.edge (id, subject_id, object_id)
  SELECT NEW.id, NEW."pageId", t.id FROM public.pages t
  WHERE t."localeCode" = NEW."localeCode" AND t.path = NEW.path AND NEW."pageId" IS NOT NULL
  ORDER BY t.id LIMIT 1
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

-- A page created or moved: the links to its old address lose their target, the links to its new
-- address gain it. (Deleted pages and links cascade through the foreign keys.)
CREATE OR REPLACE FUNCTION agent.on_page_address_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF (OLD.path, OLD."localeCode") IS NOT DISTINCT FROM (NEW.path, NEW."localeCode") THEN RETURN NULL; END IF;
    DELETE FROM agent.edge WHERE object_id = NEW.id;
  END IF;
  INSERT INTO agent.edge (id, subject_id, object_id)
  SELECT l.id, l."pageId", NEW.id FROM public."pageLinks" l
  WHERE l."localeCode" = NEW."localeCode" AND l.path = NEW.path AND l."pageId" IS NOT NULL
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS agent_edge ON public."pageLinks";
CREATE TRIGGER agent_edge AFTER INSERT OR UPDATE ON public."pageLinks"
  FOR EACH ROW EXECUTE FUNCTION agent.on_page_link_write();

DROP TRIGGER IF EXISTS agent_edge ON public.pages;
CREATE TRIGGER agent_edge AFTER INSERT OR UPDATE OF path, "localeCode" ON public.pages
  FOR EACH ROW EXECUTE FUNCTION agent.on_page_address_write();

-- The initial fill.
INSERT INTO agent.edge (id, subject_id, object_id, created)
SELECT DISTINCT ON (l."pageId", t.id) l.id, l."pageId", t.id, coalesce(s.modified, now())
FROM public."pageLinks" l
JOIN public.pages t ON t."localeCode" = l."localeCode" AND t.path = l.path
LEFT JOIN agent.resource s ON s.id = l."pageId"
WHERE l."pageId" IS NOT NULL
ORDER BY l."pageId", t.id, l.id
ON CONFLICT DO NOTHING;

CREATE UNIQUE INDEX IF NOT EXISTS edge_subject_predicate_object_key ON agent.edge (subject_id, predicate_id, object_id);
CREATE UNIQUE INDEX IF NOT EXISTS edge_object_predicate_subject_key ON agent.edge (object_id, predicate_id, subject_id);
CREATE INDEX IF NOT EXISTS edge_subject_predicate_seq_idx ON agent.edge (subject_id, predicate_id, seq, id);
CREATE INDEX IF NOT EXISTS edge_object_predicate_seq_idx ON agent.edge (object_id, predicate_id, seq, id);

-- Deleted links and pages take their edges with them.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'agent.edge'::regclass AND contype = 'f') THEN
    ALTER TABLE agent.edge
      ADD CONSTRAINT edge_link_fk FOREIGN KEY (id) REFERENCES public."pageLinks" (id) ON DELETE CASCADE,
      ADD CONSTRAINT edge_subject_fk FOREIGN KEY (subject_id) REFERENCES public.pages (id) ON DELETE CASCADE,
      ADD CONSTRAINT edge_object_fk FOREIGN KEY (object_id) REFERENCES public.pages (id) ON DELETE CASCADE;
  END IF;
END
$$;
