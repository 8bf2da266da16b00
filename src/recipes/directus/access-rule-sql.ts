import { literal } from './sql-text.js';
import type { RecipeNames } from './recipe-names.js';

/** Directus's tables whose rows make up the Public policy's rules, watched by statement triggers. */
export const RULE_TABLES = ['directus_permissions', 'directus_policies', 'directus_access', 'directus_relations', 'directus_fields', 'directus_settings'] as const;

/**
 * Following the Public policy's rules: each served collection's rule is translated
 * (`directus_filter_sql`) into `<schema>.access_rule`, and every item's `visibility` and publication
 * window computed from it. What starts it:
 *
 * - a write to `directus_permissions`, `directus_policies`, `directus_access`, `directus_relations`,
 *   `directus_fields` or `directus_settings` (the licence: Directus Core ignores filtered rows) (statement triggers): every rule is translated again, and the items of a
 *   collection whose translation changed are computed again (`follow_rules`);
 * - a write to an item (its collection's row trigger, `follow_rule` for that item);
 * - a write to a row a rule reads through a relation (a tag renamed, a tag added to an article): the
 *   items that reach it through the rule's joins are computed again (`follow_dependents`).
 *
 * `$NOW`: an item's answer changes only at the instants its `$NOW` comparisons name, so the rule is
 * evaluated once before the first of them and once at and just after each (`rule_points`); the window
 * of time the item is readable from now on becomes `publication_start`/`publication_end`
 * (`rule_window`), which the plugin compares with the time of each read. Only the first such window is
 * kept: an item readable again after a gap stays hidden until its next write (stricter, never looser).
 *
 * Nothing here raises into Directus's own transaction: a rule that cannot be translated hides its
 * collection (`visibility = 'closed'`, the reason in `<schema>.access_notice`), and so does an error
 * while following one.
 */
export function accessRuleSql(n: RecipeNames): string {
  const { s } = n;
  const d = literal(n.directus);
  return `-- Following the Public policy's rules.

-- The instants at which an item's $NOW comparisons may change their answer, and one before them all.
CREATE OR REPLACE FUNCTION ${s}.rule_points(instants timestamptz[]) RETURNS SETOF timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT DISTINCT p FROM (
    SELECT '-infinity'::timestamptz
    UNION ALL SELECT i FROM unnest(instants) i WHERE i IS NOT NULL
    UNION ALL SELECT i + interval '1 microsecond' FROM unnest(instants) i WHERE isfinite(i)
  ) AS x (p)
$$;

-- The window of time an item is readable from \`at\` on: points[i] starts the i-th interval, truth[i]
-- is the rule's answer in it. The interval holding \`at\` if the rule holds there, else the next one
-- where it does, merged with its neighbours where it holds too; none: not readable.
CREATE OR REPLACE FUNCTION ${s}.rule_window(points timestamptz[], truth boolean[], at timestamptz,
  OUT visible boolean, OUT starts timestamptz, OUT ends timestamptz) LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  n int := coalesce(array_length(points, 1), 0);
  i int := 1;
  lo int;
  hi int;
BEGIN
  visible := false;
  FOR j IN 1..n LOOP
    EXIT WHEN points[j] > at;
    i := j;
  END LOOP;
  FOR j IN i..n LOOP
    IF truth[j] THEN lo := j; EXIT; END IF;
  END LOOP;
  IF lo IS NULL OR NOT isfinite(points[lo]) AND points[lo] > at THEN
    RETURN;
  END IF;
  WHILE lo > 1 AND truth[lo - 1] LOOP lo := lo - 1; END LOOP;
  hi := lo;
  WHILE hi < n AND truth[hi + 1] LOOP hi := hi + 1; END LOOP;
  visible := true;
  starts := points[lo];
  ends := CASE WHEN hi < n AND isfinite(points[hi + 1]) THEN points[hi + 1] END;
END
$$;

-- Whether every read permission of the Public policy on \`coll\` lets it read \`field\` (there is one at least).
CREATE OR REPLACE FUNCTION ${s}.directus_public_covers(coll text, field text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT count(*) > 0 AND bool_and('*' = ANY (coalesce(r.fields, '{}')) OR field = ANY (r.fields)) FROM ${s}.directus_public_reads(coll) r
$$;

-- The Public policy's read rule of a served collection, translated. \`served\`: the fields the recipe
-- serves (\`field\`, or \`collection.field\` of a translations collection), which the policy must be
-- allowed to read. Never raises: what cannot be followed is a \`problem\` (the collection is hidden).
CREATE OR REPLACE FUNCTION ${s}.directus_compile_rule(coll text, served text[],
  OUT filter jsonb, OUT predicate text, OUT instants text, OUT dependencies jsonb, OUT problem text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  total int;
  unfiltered boolean;
  filters jsonb;
  missing text;
  compiled jsonb;
BEGIN
  dependencies := '[]';
  SELECT count(*), coalesce(bool_or(r.filter IS NULL OR r.filter IN ('{}'::jsonb, 'null'::jsonb)), false),
    coalesce(jsonb_agg(r.filter) FILTER (WHERE NOT (r.filter IS NULL OR r.filter IN ('{}'::jsonb, 'null'::jsonb))), '[]')
  INTO total, unfiltered, filters FROM ${s}.directus_public_reads(coll) r;
  IF total = 0 THEN
    IF EXISTS (SELECT 1 FROM ${s}.directus_public_permissions(coll) p WHERE NOT p.enforced) THEN
      problem := format('no Directus licence is stored (directus_settings.license_key and license_token are empty): Directus Core ignores '
        'the Public policy''s filtered read rule on %s and answers anonymous reads 403, so nothing is served; a licensed Directus '
        'enforces the rule, and the recipe follows it as soon as the licence is stored', coll);
    END IF;
    RETURN; -- the Public policy may not read the collection: hidden, and that is the rule
  END IF;
  filter := CASE WHEN unfiltered THEN '{}'::jsonb WHEN total = 1 THEN filters -> 0 ELSE jsonb_build_object('_or', filters) END;
  SELECT string_agg(f, ', ' ORDER BY f) INTO missing FROM unnest(served) f
  WHERE NOT CASE WHEN f LIKE '%.%' THEN ${s}.directus_public_reads_field(split_part(f, '.', 1), split_part(f, '.', 2))
    ELSE ${s}.directus_public_covers(coll, f) END;
  IF missing IS NOT NULL THEN
    problem := format('the Public policy may not read %s, which the recipe serves', missing);
    RETURN;
  END IF;
  compiled := ${s}.directus_filter_sql(coll, filter, 't', 's', '[]');
  predicate := compiled ->> 'sql';
  instants := format('ARRAY[%s]::timestamptz[]', (SELECT string_agg(e, ', ') FROM jsonb_array_elements_text(compiled -> 'instants') e));
  -- A literal PostgreSQL cannot read as its column's type fails here, at parse time, without reading a row.
  EXECUTE format('SELECT 1 FROM %I.%I t, (SELECT now() AS p_at) p WHERE %s AND cardinality(%s) >= 0 AND false', ${d}, coll, predicate, instants);
  SELECT coalesce(jsonb_agg(jsonb_build_object('collection', e ->> 'collection', 'sql', ${s}.directus_affected_sql(coll, e -> 'chain'))), '[]')
  INTO dependencies FROM jsonb_array_elements(compiled -> 'deps') e;
EXCEPTION WHEN others THEN
  predicate := NULL;
  instants := NULL;
  dependencies := '[]';
  problem := SQLERRM;
END
$$;

-- Computes again the visibility and publication window of some items of a collection (all: NULL);
-- only the rows whose answer changes are written. A row not readable keeps its own date as its start.
CREATE OR REPLACE FUNCTION ${s}.follow_rule(coll text, items bigint[] DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  c ${s}.collection;
  r ${s}.access_rule;
  hidden text;
BEGIN
  SELECT * INTO c FROM ${s}.collection WHERE collection = coll;
  SELECT * INTO r FROM ${s}.access_rule WHERE collection = coll;
  IF c.number IS NULL THEN
    RETURN;
  END IF;
  IF c.broken IS NOT NULL OR r.predicate IS NULL THEN
    hidden := CASE WHEN c.broken IS NULL AND r.problem IS NULL THEN 'restricted' ELSE 'closed' END;
    IF items IS NULL THEN
      UPDATE ${s}.resource SET visibility = hidden, publication_start = coalesce(dated, 'epoch'), publication_end = NULL
      WHERE collection_no = c.number AND visibility IS DISTINCT FROM hidden;
    ELSE
      UPDATE ${s}.resource SET visibility = hidden, publication_start = coalesce(dated, 'epoch'), publication_end = NULL
      WHERE collection_no = c.number AND item = ANY (items) AND visibility IS DISTINCT FROM hidden;
    END IF;
    RETURN;
  END IF;
  EXECUTE format($f$
    UPDATE %1$s.resource r SET visibility = n.visibility, publication_start = n.starts, publication_end = n.ends
    FROM (
      SELECT x.id, CASE WHEN w.visible THEN 'public' ELSE 'restricted' END AS visibility,
        CASE WHEN NOT w.visible THEN coalesce(x.dated, 'epoch') WHEN w.starts > '-infinity' THEN w.starts
          ELSE least(coalesce(x.dated, now()), now()) END AS starts,
        CASE WHEN w.visible THEN w.ends END AS ends
      FROM %3$I.%4$I t
      JOIN %1$s.resource x ON x.collection_no = $1 AND x.item = t.%2$I
      CROSS JOIN LATERAL (
        SELECT array_agg(pts.p_at ORDER BY pts.p_at) AS points, array_agg(coalesce(%5$s, false) ORDER BY pts.p_at) AS truth
        FROM %1$s.rule_points(%6$s) AS pts (p_at)) e
      CROSS JOIN LATERAL %1$s.rule_window(e.points, e.truth, now()) w
      WHERE $2 IS NULL OR t.%2$I = ANY ($2)
    ) n
    WHERE r.id = n.id AND (r.visibility, r.publication_start, r.publication_end) IS DISTINCT FROM (n.visibility, n.starts, n.ends)
  $f$, ${literal(n.s)}, ${s}.directus_pk(coll), ${d}, coll, r.predicate, r.instants) USING c.number, items;
END
$$;

-- Translates every served collection's rule again; computes again the items of those whose
-- translation changed (all of them when \`force\`), and the visibility of the predicates.
CREATE OR REPLACE FUNCTION ${s}.follow_rules(force boolean DEFAULT false) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  c record;
  changed boolean;
BEGIN
  FOR c IN SELECT x.collection, x.served_fields, rule.* FROM ${s}.collection x,
    LATERAL ${s}.directus_compile_rule(x.collection, x.served_fields) rule ORDER BY x.number LOOP
    changed := false;
    INSERT INTO ${s}.access_rule AS a (collection, filter, predicate, instants, dependencies, problem, translated_at)
    VALUES (c.collection, c.filter, c.predicate, c.instants, c.dependencies, c.problem, now())
    ON CONFLICT (collection) DO UPDATE SET filter = EXCLUDED.filter, predicate = EXCLUDED.predicate, instants = EXCLUDED.instants,
      dependencies = EXCLUDED.dependencies, problem = EXCLUDED.problem, translated_at = EXCLUDED.translated_at
    WHERE (a.filter, a.predicate, a.instants, a.dependencies, a.problem)
      IS DISTINCT FROM (EXCLUDED.filter, EXCLUDED.predicate, EXCLUDED.instants, EXCLUDED.dependencies, EXCLUDED.problem)
    RETURNING true INTO changed;
    IF force OR coalesce(changed, false) THEN
      PERFORM ${s}.follow_rule(c.collection);
    END IF;
  END LOOP;
  UPDATE ${s}.resource r SET visibility = v.visibility
  FROM (SELECT p.id, CASE WHEN ${s}.directus_public_covers(p.collection, p.field)
      AND (p.junction IS NULL OR ${s}.directus_public_reads_field(p.junction, p.junction_subject) AND ${s}.directus_public_reads_field(p.junction, p.junction_object))
      THEN 'public' ELSE 'restricted' END AS visibility
    FROM ${s}.predicate_field p) v
  WHERE r.id = v.id AND r.visibility IS DISTINCT FROM v.visibility;
END
$$;

-- A row of a related table was written (\`changed\`, a row of table \`coll\`): computes again the items
-- whose rule reads it through a relation.
CREATE OR REPLACE FUNCTION ${s}.follow_dependents(coll text, changed anyelement) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  dep record;
  ids bigint[];
BEGIN
  FOR dep IN SELECT a.collection AS root, e ->> 'sql' AS sql FROM ${s}.access_rule a, jsonb_array_elements(a.dependencies) e
    WHERE a.predicate IS NOT NULL AND e ->> 'collection' = coll LOOP
    EXECUTE format('SELECT array_agg(DISTINCT x) FROM (%s) AS s (x)', dep.sql) INTO ids USING changed;
    IF ids IS NOT NULL THEN
      PERFORM ${s}.follow_rule(dep.root, ids);
    END IF;
  END LOOP;
END
$$;

-- Something failed while following: hide what it concerns and say why (never fail Directus's write).
CREATE OR REPLACE FUNCTION ${s}.close_collection(coll text, reason text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ${s}.collection SET broken = left(reason, 2000) WHERE coll IS NULL OR collection = coll;
  UPDATE ${s}.resource SET visibility = 'closed'
  WHERE collection_no IN (SELECT number FROM ${s}.collection WHERE coll IS NULL OR collection = coll);
END
$$;

CREATE OR REPLACE FUNCTION ${s}.on_rules_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    PERFORM ${s}.follow_rules();
  EXCEPTION WHEN others THEN
    PERFORM ${s}.close_collection(NULL, format('following the rules after a change of %s failed: %s', TG_TABLE_NAME, SQLERRM));
  END;
  RETURN NULL;
END
$$;

-- A table a rule reads emptied at once (TRUNCATE): every item of the rules reading it is computed again.
CREATE OR REPLACE FUNCTION ${s}.on_related_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ${s}.follow_rule(a.collection) FROM ${s}.access_rule a
  WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(a.dependencies) e WHERE e ->> 'collection' = TG_TABLE_NAME::text);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION ${s}.on_related_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM ${s}.follow_dependents(TG_TABLE_NAME::text, OLD); END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM ${s}.follow_dependents(TG_TABLE_NAME::text, NEW); END IF;
  EXCEPTION WHEN others THEN
    PERFORM ${s}.close_collection(a.collection, format('following a write to %s failed: %s', TG_TABLE_NAME, SQLERRM))
    FROM ${s}.access_rule a, jsonb_array_elements(a.dependencies) e WHERE e ->> 'collection' = TG_TABLE_NAME::text;
  END;
  RETURN NULL;
END
$$;
`;
}

/** The statement triggers on the tables of Directus's rules (applied after the earlier triggers are dropped). */
export function ruleTriggersSql({ s, directusIdent: di }: RecipeNames): string {
  return RULE_TABLES.map(
    (t) => `CREATE TRIGGER agent_follow_rules AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${di}.${t}
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.on_rules_change();`,
  ).join('\n');
}
