-- Wiki.js 2.x recipe, step 2: may an anonymous visitor (Wiki.js's guest) read a page?
--
-- Wiki.js's WIKI.auth.checkAccess(guest, ['read:pages'], page) for the Guests group (id 2): the group
-- must hold the global permission `read:pages`, then its `pageRules` that name the `read:pages` role
-- and apply to the page's locale are matched against the page. Wiki.js keeps the most specific
-- matching rule (longest path, then EXACT > TAG > REGEX > END > START); the page is readable when that
-- rule allows. The recipe simplifies conservatively: **deny wins**. A page is readable when at least
-- one rule allows it and no rule denies it. Where no deny rule matches this is exactly Wiki.js's
-- answer; where one does, Wiki.js may still allow (a longer allow rule), the recipe never does.
--
-- Match kinds, as Wiki.js evaluates them (`path` is the page path without the locale):
--   START  '/' || path starts with '/' || rule.path
--   END    path ends with rule.path
--   EXACT  path = rule.path
--   TAG    the page has a tag whose `tag` is rule.path
--   REGEX  JavaScript's new RegExp(rule.path).test(path). PostgreSQL's `~` agrees with it on the plain
--          subset (letters, digits, / . - _ space and ^ $ . * + ? | ( ) [ ]); a pattern outside
--          that subset (backslash escapes, (?…) groups, {…} bounds, POSIX classes) is treated as
--          a deny that matches every page, and so is one PostgreSQL cannot compile: JavaScript may read
--          it differently, or throw (which makes Wiki.js refuse the page).
-- Unknown match kinds are ignored, as in Wiki.js. A deny rule without a path matches every page; an
-- allow rule without one matches none. `isPrivate` pages and the publishing state are handled in
-- step 3 (they are columns of the page, not rules).

-- Does a REGEX page rule's pattern match the path? NULL when the pattern is outside the plain subset
-- or PostgreSQL cannot compile it (never raises: it runs inside Wiki.js's writes).
CREATE OR REPLACE FUNCTION agent.plain_regex_matches(path text, pattern text)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF pattern IS NULL OR pattern !~ '^[A-Za-z0-9/._ ^$*+?|()\[\]-]*$' OR pattern ~ '\(\?|\[\[|\[\]|\[\^\]' THEN
    RETURN NULL;
  END IF;
  RETURN path ~ pattern;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$;

-- Does one page rule match the page? `deny` decides what an undecidable REGEX counts as.
-- (PL/pgSQL rather than SQL functions: their plans are cached, about ten times faster per page.)
CREATE OR REPLACE FUNCTION agent.page_rule_matches(rule jsonb, deny boolean, page_id integer, path text)
RETURNS boolean LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  rule_path text := rule ->> 'path';
BEGIN
  IF jsonb_typeof(rule -> 'path') IS DISTINCT FROM 'string' THEN RETURN deny; END IF;
  CASE rule ->> 'match'
    WHEN 'START' THEN RETURN starts_with('/' || path, '/' || rule_path);
    WHEN 'END' THEN RETURN right(path, length(rule_path)) = rule_path;
    WHEN 'EXACT' THEN RETURN path = rule_path;
    WHEN 'REGEX' THEN RETURN coalesce(agent.plain_regex_matches(path, rule_path), deny);
    WHEN 'TAG' THEN RETURN EXISTS (
      SELECT 1 FROM public."pageTags" pt JOIN public.tags t ON t.id = pt."tagId"
      WHERE pt."pageId" = page_id AND t.tag = rule_path);
    ELSE RETURN false;
  END CASE;
END
$$;

-- May the guest read the page? `guests` is the Guests group's row (NULL when it is missing: nobody reads).
CREATE OR REPLACE FUNCTION agent.guest_may_read(guests public.groups, page_id integer, locale text, path text)
RETURNS boolean LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  rules jsonb := guests."pageRules"::jsonb;
  rule jsonb;
  deny boolean;
  allowed boolean := false;
BEGIN
  IF NOT coalesce(guests.permissions::jsonb @> '["read:pages"]', false) OR jsonb_typeof(rules) IS DISTINCT FROM 'array' THEN
    RETURN false;
  END IF;
  FOR rule IN SELECT jsonb_array_elements(rules) LOOP
    CONTINUE WHEN jsonb_typeof(rule) <> 'object' OR NOT coalesce(rule -> 'roles' @> '["read:pages"]', false);
    CONTINUE WHEN jsonb_typeof(rule -> 'locales') = 'array' AND jsonb_array_length(rule -> 'locales') > 0
      AND NOT (rule -> 'locales' @> to_jsonb(ARRAY[locale]));
    deny := coalesce(rule -> 'deny', 'false') NOT IN ('false', 'null', '0', '""');
    IF agent.page_rule_matches(rule, deny, page_id, path) THEN
      IF deny THEN RETURN false; END IF;   -- deny wins
      allowed := true;
    END IF;
  END LOOP;
  RETURN allowed;
END
$$;
