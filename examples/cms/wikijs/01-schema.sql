-- Wiki.js 2.x recipe, step 1: the `agent` schema, Wiki.js date parsing, the resource table and the
-- minimal vocabulary.
SET client_min_messages = warning;
--
-- Everything of the recipe lives in schema `agent`; Wiki.js's own tables (schema `public`) keep their
-- columns (the recipe only adds indexes and triggers to them). The plugin connects with
-- `search_path=agent,public` and finds its contract relations here: rsc (step 5), category,
-- predicate_category, medium (this file) and edge (step 4). If your Wiki.js tables live in another
-- schema than `public`, replace `public.` in these files.

CREATE SCHEMA IF NOT EXISTS agent;

-- Wiki.js stores dates as varchar ISO strings ('' or NULL = none). A varchar -> timestamptz cast is only
-- STABLE (a string without a zone depends on the TimeZone setting), so it cannot feed an index; this
-- wrapper is IMMUTABLE because it never consults TimeZone: a string with a zone is exact, a string
-- without one is read as UTC and moved by `zoneless_shift`. It never raises (a trigger that raised
-- would fail Wiki.js's own write): NULL for empty or unparsable values, the caller decides what that means.
CREATE OR REPLACE FUNCTION agent.wiki_instant(value text, zoneless_shift interval DEFAULT interval '0')
RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF value IS NULL OR btrim(value) = '' THEN
    RETURN NULL;
  ELSIF value ~ '^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?\s*(Z|z|[+-]\d\d(:?\d\d)?)$' THEN
    RETURN value::timestamptz;                                  -- explicit zone: TimeZone plays no part
  ELSIF value ~ '^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?)?$' THEN
    RETURN (value::timestamp AT TIME ZONE 'UTC') + zoneless_shift;
  END IF;
  RETURN NULL;
EXCEPTION WHEN others THEN                                      -- e.g. '2024-13-45'
  RETURN NULL;
END
$$;

-- One row per resource the plugin serves: every Wiki.js page (kept by the triggers of step 3) and the
-- vocabulary below. It holds what the plugin filters, sorts, searches and lists, computed once per
-- write instead of per read: visibility, the publication window as timestamptz, the dates, the
-- full-text vector, and the short localized columns of a list item. One real table (not a UNION of
-- pages and vocabulary) gives the planner true statistics for every column the plugin joins and
-- filters on. `agent.rsc` (step 5) adds the page's body from `public.pages` by primary key.
CREATE TABLE IF NOT EXISTS agent.resource (
  id integer PRIMARY KEY,                            -- pages.id; vocabulary ids near the top of int4
  name text UNIQUE CHECK (name ~ '^[a-z][a-z0-9_]*$'), -- NULL for pages
  category_id integer NOT NULL,
  is_published boolean NOT NULL,                     -- pages."isPublished"
  visibility text NOT NULL,                          -- 'public' | 'private' (isPrivate) | 'restricted' (Guests' page rules)
  publication_start timestamptz NOT NULL,
  publication_end timestamptz,
  created timestamptz NOT NULL,
  modified timestamptz NOT NULL,
  language text[] NOT NULL,                          -- {pages."localeCode"}
  title jsonb NOT NULL,                              -- {locale: pages.title}
  summary jsonb NOT NULL,                            -- {locale: pages.description}
  fts tsvector NOT NULL,
  page_url jsonb                                     -- {locale: "/<locale>/<path>"}: the Wiki.js page URL
);

-- The minimal vocabulary. Wiki.js has no categories or typed relations, so the recipe supplies the
-- plugin's convention: `meta` with `category` and `predicate` under it (vocabulary, never listed by
-- search), one content category `wiki` for every page, and one predicate `links_to` whose edges come
-- from Wiki.js's `pageLinks`. Their ids sit just below the top of int4 (2^31 - 1 = 2147483647), far
-- above anything Wiki.js's `pages_id_seq` hands out, so they never collide with a page id.
INSERT INTO agent.resource (id, name, category_id, is_published, visibility, publication_start, created, modified,
  language, title, summary, fts)
SELECT v.id, v.name, v.category_id, true, 'public', '2019-01-01T00:00:00Z', '2019-01-01T00:00:00Z', '2019-01-01T00:00:00Z',
  '{en,de}', v.title::jsonb, v.summary::jsonb, ''::tsvector
FROM (VALUES
  (2147483601, 'meta', 2147483602, '{"en": "Vocabulary", "de": "Vokabular"}',
    '{"en": "The categories and relations of this wiki.", "de": "Die Kategorien und Beziehungen dieses Wikis."}'),
  (2147483602, 'category', 2147483602, '{"en": "Categories", "de": "Kategorien"}',
    '{"en": "The categories pages belong to.", "de": "Die Kategorien der Seiten."}'),
  (2147483603, 'predicate', 2147483602, '{"en": "Relations", "de": "Beziehungen"}',
    '{"en": "The kinds of links between pages.", "de": "Die Arten von Verweisen zwischen Seiten."}'),
  (2147483604, 'wiki', 2147483602, '{"en": "Wiki pages", "de": "Wiki-Seiten"}',
    '{"en": "Every page of the wiki.", "de": "Alle Seiten des Wikis."}'),
  (2147483605, 'links_to', 2147483603, '{"en": "Links to", "de": "Verweist auf"}',
    '{"en": "The page links to the other page in its text.", "de": "Die Seite verweist in ihrem Text auf die andere Seite."}')
) AS v (id, name, category_id, title, summary)
ON CONFLICT (id) DO NOTHING;

-- The contract's `category` and `predicate_category` are plain tables of the recipe.
CREATE TABLE IF NOT EXISTS agent.category (
  id integer PRIMARY KEY REFERENCES agent.resource (id),
  parent_id integer REFERENCES agent.category (id),
  is_noindex boolean NOT NULL DEFAULT false
);
CREATE INDEX IF NOT EXISTS category_parent_idx ON agent.category (parent_id);

CREATE TABLE IF NOT EXISTS agent.predicate_category (
  predicate_id integer NOT NULL REFERENCES agent.resource (id),
  is_subject boolean NOT NULL,
  category_id integer NOT NULL REFERENCES agent.category (id),
  PRIMARY KEY (predicate_id, is_subject, category_id)
);

INSERT INTO agent.category (id, parent_id) VALUES
  (2147483601, NULL), (2147483602, 2147483601), (2147483603, 2147483601), (2147483604, NULL)
ON CONFLICT (id) DO NOTHING;

INSERT INTO agent.predicate_category (predicate_id, is_subject, category_id) VALUES
  (2147483605, true, 2147483604), (2147483605, false, 2147483604)
ON CONFLICT DO NOTHING;

-- Wiki.js has no per-page downloadable file: the contract's `medium` is an empty table.
CREATE TABLE IF NOT EXISTS agent.medium (
  rsc_id integer PRIMARY KEY,
  mime text NOT NULL,
  width integer,
  height integer,
  size bigint,
  filename text NOT NULL DEFAULT ''
);
