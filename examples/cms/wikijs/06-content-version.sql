-- Wiki.js 2.x recipe, step 6: every write that changes what a guest can read bumps the plugin's
-- content version, so the plugin may keep what it builds from the content (llms.txt, llms-full.txt,
-- composed Markdown) until the next write (host.mjs sets `cache: { contentVersioned: true }`).
--
-- The writes reach the recipe's tables (agent.resource, agent.edge, …) through the triggers of steps
-- 3 and 4, and a page's body is read from public.pages by the view of step 5: a statement trigger on
-- each calls the plugin's `agent_discovery_content_changed()` once per statement, in the writing
-- transaction. That function is created by the plugin's `migrate` (run after these files, by host.mjs
-- with `migrate: true`): until it exists the trigger does nothing, so Wiki.js's own writes never fail
-- because of the recipe. It is called schema-qualified, since Wiki.js's own sessions search `public`.
CREATE OR REPLACE FUNCTION agent.content_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF to_regprocedure('agent.agent_discovery_content_changed()') IS NOT NULL THEN
    PERFORM agent.agent_discovery_content_changed();
  END IF;
  RETURN NULL;
END
$$;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['agent.resource', 'agent.edge', 'agent.category', 'agent.predicate_category', 'agent.medium', 'public.pages'] LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS agent_content_version ON %s', t);
    EXECUTE format('CREATE TRIGGER agent_content_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s
      FOR EACH STATEMENT EXECUTE FUNCTION agent.content_changed()', t);
  END LOOP;
END
$$;
