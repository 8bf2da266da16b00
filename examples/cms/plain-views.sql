-- Plain views for a CMS of a few hundred rows: no trigger-kept table, everything computed per read.
-- Shown over Directus's `articles` (status, title, slug, summary, body, date_published, date_updated);
-- rename the table and columns for your CMS, and write your CMS's rule for anonymous readers in
-- `visibility` and `publication_start` (here: published, and dated at or before now, in UTC).
-- Apply: psql -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -f plain-views.sql; connect with search_path=agent,public.
CREATE SCHEMA IF NOT EXISTS agent;

CREATE OR REPLACE VIEW agent.rsc AS
SELECT a.id, NULL::text AS name, 2147483604 AS category_id, true AS is_published,
  CASE WHEN a.status = 'published' THEN 'public' ELSE 'private' END AS visibility,
  coalesce(a.date_published AT TIME ZONE 'UTC', 'infinity') AS publication_start, NULL::timestamptz AS publication_end,
  coalesce(a.date_published AT TIME ZONE 'UTC', a.date_updated, 'epoch') AS created,
  coalesce(a.date_updated, a.date_published AT TIME ZONE 'UTC', 'epoch') AS modified,
  ARRAY['en'] AS language, jsonb_build_object('en', coalesce(a.title, '')) AS title,
  jsonb_build_object('en', coalesce(a.summary, '')) AS summary, jsonb_build_object('en', coalesce(a.body, '')) AS body,
  '[]'::jsonb AS blocks, '{}'::jsonb AS props, false AS seo_noindex, NULL AS uri, NULL::jsonb AS license, NULL::jsonb AS attribution,
  to_tsvector('english', concat_ws(' ', a.title, a.summary, regexp_replace(a.body, '<[^>]*>', ' ', 'g'))) AS fts,
  to_jsonb('/articles/' || a.slug) AS page_url
FROM public.articles a
UNION ALL -- the vocabulary: `meta` with `category` and `predicate` under it, and the one category of the content
SELECT v.id, v.name, 2147483602, true, 'public', 'epoch', NULL, 'epoch', 'epoch', ARRAY['en'], jsonb_build_object('en', v.title),
  '{}', '{}', '[]', '{}', false, NULL, NULL, NULL, ''::tsvector, NULL
FROM (VALUES (2147483601, 'meta', 'Vocabulary'), (2147483602, 'category', 'Categories'),
  (2147483603, 'predicate', 'Relations'), (2147483604, 'articles', 'Articles')) AS v (id, name, title);

CREATE OR REPLACE VIEW agent.category AS
SELECT * FROM (VALUES (2147483601, NULL::integer, false), (2147483602, 2147483601, false),
  (2147483603, 2147483601, false), (2147483604, NULL, false)) AS c (id, parent_id, is_noindex);

-- No relations served: empty edges, predicate constraints and media, with the contract's columns.
CREATE OR REPLACE VIEW agent.edge AS
SELECT 0 AS id, 0 AS subject_id, 0 AS predicate_id, 0 AS object_id, 0 AS seq, now() AS created WHERE false;
CREATE OR REPLACE VIEW agent.predicate_category AS SELECT 0 AS predicate_id, true AS is_subject, 0 AS category_id WHERE false;
CREATE OR REPLACE VIEW agent.medium AS
SELECT 0 AS rsc_id, ''::text AS mime, 0 AS width, 0 AS height, 0 AS size, ''::text AS filename WHERE false;
