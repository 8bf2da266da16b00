-- Wiki.js 2.x recipe, step 5: the plugin's `rsc` relation, and fresh statistics.
--
-- `agent.rsc` is `agent.resource` (steps 1 and 3) plus the columns the recipe does not copy there: the
-- body comes from `public.pages` through a scalar subquery by primary key, evaluated only for the rows
-- a statement returns (a read, a Markdown document), never for the rows a search walks past. The
-- view reads one table, so PostgreSQL merges it into every statement as that table, with its
-- statistics and indexes. (A UNION ALL of pages and vocabulary, or a branch joining pages, loses
-- both: the planner has no statistics for the union's id and misestimates every join on it by orders
-- of magnitude; at 100,000 pages per locale a resource read then crossed the JIT threshold: 43 ms.)
-- The other contract relations are tables: category, predicate_category, medium (step 1), edge (step 4).
CREATE OR REPLACE VIEW agent.rsc AS
SELECT
  r.id,
  r.name,
  r.category_id,
  r.is_published,
  r.visibility,
  r.publication_start,
  r.publication_end,
  r.created,
  r.modified,
  r.language,
  r.title,
  r.summary,
  coalesce((SELECT jsonb_build_object(r.language[1], coalesce(p.render, '')) FROM public.pages p WHERE p.id = r.id), '{}') AS body,
  '[]'::jsonb AS blocks,
  '{}'::jsonb AS props,
  false AS seo_noindex,
  NULL::text AS uri,
  NULL::jsonb AS license,
  NULL::jsonb AS attribution,
  r.fts,
  r.page_url
FROM agent.resource r;

ANALYZE public.pages;
ANALYZE public."pageLinks";
ANALYZE public."pageTags";
ANALYZE agent.resource;
ANALYZE agent.edge;
ANALYZE agent.category;
ANALYZE agent.predicate_category;
