import { literal } from './sql-text.js';
import type { RecipeNames } from './recipe-names.js';

/**
 * The translator of Directus's filter language into SQL, as PL/pgSQL functions of the recipe's
 * schema: the database itself translates the Public policy's rule, so a rule changed in Directus is
 * translated again by the trigger that sees the change (no generator run in between).
 *
 * `<schema>.directus_filter_sql(collection, filter, alias, slot, chain)` returns
 * `{"sql": …, "instants": […], "deps": […]}`: a boolean SQL expression over the row `alias` of the
 * collection's table and `p_at`, the instant `$NOW` stands for; the SQL of the instants at which a
 * `$NOW` comparison of the row changes its answer; and, for each related collection the rule reads,
 * the join chain from the root item to that collection's row (to find the items a write there affects).
 * It raises on anything outside the subset; the caller turns that into a hidden collection.
 *
 * The subset, with Directus's own semantics (`api/src/database/run-ast/lib/apply-query/filter/`):
 *
 * | filter | SQL |
 * |---|---|
 * | `{"status": {"_eq": "published"}}` (or `{"status": "published"}`) | `t."status" = 'published'` |
 * | `_neq` | `NOT (t."status" = 'draft')` |
 * | `_eq: null` / `_neq: null` | `IS NULL` / `IS NOT NULL` |
 * | `_null` (`false`: not null), `_nnull` (`false`: null) | `IS NULL` / `IS NOT NULL` |
 * | `_lt`, `_lte`, `_gt`, `_gte` | `<`, `<=`, `>`, `>=`; `"$NOW"` is `p_at` in the field's zone |
 * | `_in`, `_nin` (an array, or a comma-separated string; `[]` is false / true) | `IN (…)`, `NOT IN (…)` |
 * | `_and`, `_or` (an `_or` holding `{}` matches every item) | `AND`, `OR` |
 * | a many-to-one field: `{"author": {"slug": {"_eq": "ada"}}}` | the condition on the joined row (a left join: no author reads as nulls) |
 * | a one-to-many or many-to-many field: `{"tags": {"_some": {…}}}`, `_none`, or implicit `_some` | `EXISTS` / `NOT EXISTS` over the related rows |
 *
 * Outside it (raised): any other operator (`_contains`, `_between`, `_icontains`, …), dynamic variables
 * other than `$NOW` in a comparison (`$CURRENT_USER`, `$NOW(-1 day)`), a field object with more than one
 * key (Directus reads only the first), the same implicit one-to-many field twice in one group (Directus
 * merges them), many-to-any fields, `$NOW` on a related collection's field, a related collection the
 * Public policy may not read in full, and a literal PostgreSQL cannot read as the field's type.
 */
export function filterCompilerSql(n: RecipeNames): string {
  const { s, directus, zone } = n;
  const d = literal(directus);
  const z = literal(zone);
  return `-- The translator of Directus's filter language (see the guide: docs/guides/directus.md).

-- The single-column primary key of a collection's table.
CREATE OR REPLACE FUNCTION ${s}.directus_pk(coll text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT a.attname::text FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
  WHERE i.indrelid = to_regclass(format('%I.%I', ${d}, coll)) AND i.indisprimary AND i.indnatts = 1
$$;

-- The type of a column (format_type), NULL when the table or the column does not exist.
CREATE OR REPLACE FUNCTION ${s}.directus_column_type(coll text, field text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
  WHERE a.attrelid = to_regclass(format('%I.%I', ${d}, coll)) AND a.attname = field AND a.attnum > 0 AND NOT a.attisdropped
$$;

-- Whether Directus enforces filtered permission rows. Directus 12 Core (no licence) ignores a row with a
-- filter (custom permission rules are a licensed feature); a database reader sees only whether a licence
-- is stored (license_key and license_token). A Directus without these columns (before 12) enforces them.
CREATE OR REPLACE FUNCTION ${s}.directus_filters_enforced() RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE
  licensed boolean;
BEGIN
  IF (SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass(format('%I.directus_settings', ${d}))
      AND attname IN ('license_key', 'license_token') AND NOT attisdropped) < 2 THEN
    RETURN true;
  END IF;
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.directus_settings WHERE coalesce(btrim(license_key), %L) <> %L AND coalesce(btrim(license_token), %L) <> %L)',
    ${d}, '', '', '', '') INTO licensed;
  RETURN licensed;
END
$$;

-- The read permissions of the Public policy (the policies attached with no role and no user; a policy
-- limited to some IP addresses does not count: agents come from anywhere), every one, with whether
-- Directus enforces it (a filtered row is ignored by an unlicensed Directus).
CREATE OR REPLACE FUNCTION ${s}.directus_public_permissions(coll text)
RETURNS TABLE (filter jsonb, fields text[], enforced boolean) LANGUAGE sql STABLE AS $$
  SELECT p.permissions::jsonb, string_to_array(replace(p.fields, ' ', ''), ','),
    p.permissions IS NULL OR p.permissions::jsonb IN ('{}'::jsonb, 'null'::jsonb) OR ${s}.directus_filters_enforced()
  FROM ${n.directusIdent}.directus_permissions p JOIN ${n.directusIdent}.directus_policies pol ON pol.id = p.policy
  WHERE p.collection = coll AND p.action = 'read'
    AND coalesce(btrim(pol.ip_access), '') = ''
    AND EXISTS (SELECT 1 FROM ${n.directusIdent}.directus_access a WHERE a.policy = pol.id AND a.role IS NULL AND a."user" IS NULL)
$$;

-- The read permissions of the Public policy that Directus enforces: what it answers anonymous reads with.
CREATE OR REPLACE FUNCTION ${s}.directus_public_reads(coll text)
RETURNS TABLE (filter jsonb, fields text[]) LANGUAGE sql STABLE AS $$
  SELECT p.filter, p.fields FROM ${s}.directus_public_permissions(coll) p WHERE p.enforced
$$;

-- Whether the Public policy may read field \`field\` of every item of \`coll\` (a permission without a filter).
CREATE OR REPLACE FUNCTION ${s}.directus_public_reads_field(coll text, field text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM ${s}.directus_public_reads(coll) r
    WHERE (r.filter IS NULL OR r.filter IN ('{}'::jsonb, 'null'::jsonb)) AND ('*' = ANY (r.fields) OR field = ANY (r.fields)))
$$;

-- A JSON scalar of a filter as an SQL literal; PostgreSQL reads it as the compared column's type.
CREATE OR REPLACE FUNCTION ${s}.directus_literal(value jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF jsonb_typeof(value) = 'string' THEN
    IF (value #>> '{}') ~ '^\\$(NOW|CURRENT_)' THEN
      RAISE EXCEPTION 'the dynamic variable % is outside the subset the recipe follows', value #>> '{}';
    END IF;
    RETURN quote_literal(value #>> '{}');
  ELSIF jsonb_typeof(value) IN ('number', 'boolean') THEN
    RETURN quote_literal(value::text);
  ELSIF jsonb_typeof(value) = 'null' THEN
    RETURN 'NULL';
  END IF;
  RAISE EXCEPTION 'a compared value must be a string, a number or a boolean, found %', value;
END
$$;

-- One condition on a column: \`field\` of \`coll\` (row \`alias\`), operator \`op\`, value \`arg\`.
CREATE OR REPLACE FUNCTION ${s}.directus_condition_sql(coll text, field text, op text, arg jsonb, alias text, related boolean)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
  ctype text := ${s}.directus_column_type(coll, field);
  col text := format('%I.%I', alias, field);
  items jsonb;
  at text;
BEGIN
  IF ctype IS NULL THEN
    RAISE EXCEPTION 'the field % does not exist in %', field, coll;
  END IF;
  IF related AND NOT ${s}.directus_public_reads_field(coll, field) THEN
    RAISE EXCEPTION 'the rule reads %.%, which the Public policy may not read in full', coll, field;
  END IF;
  IF op = '_null' THEN
    RETURN jsonb_build_object('sql', format('(%s IS %sNULL)', col, CASE WHEN arg = 'false'::jsonb THEN 'NOT ' ELSE '' END));
  ELSIF op = '_nnull' THEN
    RETURN jsonb_build_object('sql', format('(%s IS %sNULL)', col, CASE WHEN arg = 'false'::jsonb THEN '' ELSE 'NOT ' END));
  ELSIF op IN ('_eq', '_neq') AND jsonb_typeof(arg) = 'null' THEN
    RETURN jsonb_build_object('sql', format('(%s IS %sNULL)', col, CASE WHEN op = '_neq' THEN 'NOT ' ELSE '' END));
  ELSIF op = '_eq' THEN
    RETURN jsonb_build_object('sql', format('(%s = %s)', col, ${s}.directus_literal(arg)));
  ELSIF op = '_neq' THEN
    RETURN jsonb_build_object('sql', format('(NOT (%s = %s))', col, ${s}.directus_literal(arg)));
  ELSIF op IN ('_lt', '_lte', '_gt', '_gte') THEN
    IF arg = '"$NOW"'::jsonb THEN
      IF related THEN
        RAISE EXCEPTION '$NOW on a field of a related collection (%.%) is outside the subset the recipe follows', coll, field;
      ELSIF ctype ~ '^timestamp(\\(\\d\\))? without time zone$' THEN
        at := format('(p_at AT TIME ZONE %L)', ${z});
        items := jsonb_build_array(format('(%s AT TIME ZONE %L)', col, ${z}));
      ELSIF ctype ~ '^timestamp(\\(\\d\\))? with time zone$' THEN
        at := 'p_at';
        items := jsonb_build_array(col);
      ELSIF ctype = 'date' THEN
        at := format('(p_at AT TIME ZONE %L)::date', ${z});
        items := jsonb_build_array(format('(%s::timestamp AT TIME ZONE %L)', col, ${z}), format('((%s + 1)::timestamp AT TIME ZONE %L)', col, ${z}));
      ELSE
        RAISE EXCEPTION '$NOW compared with %.%, of type %', coll, field, ctype;
      END IF;
      RETURN jsonb_build_object('sql', format('(%s %s %s)', col, CASE op WHEN '_lt' THEN '<' WHEN '_lte' THEN '<=' WHEN '_gt' THEN '>' ELSE '>=' END, at),
        'instants', items);
    END IF;
    IF jsonb_typeof(arg) = 'null' THEN
      RAISE EXCEPTION 'null compared with % on %.%', op, coll, field;
    END IF;
    RETURN jsonb_build_object('sql', format('(%s %s %s)', col, CASE op WHEN '_lt' THEN '<' WHEN '_lte' THEN '<=' WHEN '_gt' THEN '>' ELSE '>=' END,
      ${s}.directus_literal(arg)));
  ELSIF op IN ('_in', '_nin') THEN
    IF jsonb_typeof(arg) = 'string' THEN
      arg := to_jsonb(string_to_array(arg #>> '{}', ','));
    ELSIF jsonb_typeof(arg) IS DISTINCT FROM 'array' THEN
      RAISE EXCEPTION '% on %.% needs an array of values', op, coll, field;
    END IF;
    IF jsonb_array_length(arg) = 0 THEN
      RETURN jsonb_build_object('sql', CASE op WHEN '_in' THEN 'FALSE' ELSE 'TRUE' END);
    END IF;
    RETURN jsonb_build_object('sql', format('(%s %sIN (%s))', col, CASE op WHEN '_nin' THEN 'NOT ' ELSE '' END,
      (SELECT string_agg(${s}.directus_literal(e), ', ' ORDER BY i) FROM jsonb_array_elements(arg) WITH ORDINALITY AS x (e, i))));
  END IF;
  RAISE EXCEPTION 'the operator % (on %.%) is outside the subset the recipe follows', op, coll, field;
END
$$;

-- A filter object of \`coll\` over the row \`alias\`. \`slot\` names this node's place in the filter (it
-- makes the aliases of joined rows unique); \`chain\` is the join chain from the root item to \`alias\`.
CREATE OR REPLACE FUNCTION ${s}.directus_filter_sql(coll text, node jsonb, alias text, slot text, chain jsonb)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
  parts text[] := '{}';
  instants jsonb := '[]';
  deps jsonb := '[]';
  key text;
  val jsonb;
  op text;
  arg jsonb;
  sub jsonb;
  r jsonb;
  i int;
  group_parts text[];
  rel record;
  other text;
  target text;
  cond text;
  step jsonb;
  j int := 0;
BEGIN
  IF length(slot) > 40 THEN
    RAISE EXCEPTION 'the filter nests too deep';
  END IF;
  IF jsonb_typeof(node) IS DISTINCT FROM 'object' THEN
    RAISE EXCEPTION 'a filter must be a JSON object, found %', coalesce(jsonb_typeof(node), 'nothing');
  END IF;
  FOR key, val IN SELECT e.key, e.value FROM jsonb_each(node) e ORDER BY e.key LOOP
    j := j + 1;
    IF key IN ('_and', '_or') THEN
      IF jsonb_typeof(val) IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION '% needs an array of filters', key;
      END IF;
      IF key = '_or' AND EXISTS (SELECT 1 FROM jsonb_array_elements(val) e WHERE e = '{}'::jsonb) THEN
        CONTINUE; -- Directus: an _or holding {} matches every item
      END IF;
      -- Directus merges the implicit conditions on one one-to-many field of a group into one EXISTS.
      IF EXISTS (
        SELECT 1 FROM jsonb_array_elements(val) e, jsonb_each(CASE jsonb_typeof(e) WHEN 'object' THEN e ELSE '{}' END) f
        JOIN ${n.directusIdent}.directus_relations dr ON dr.one_collection = coll AND dr.one_field = f.key
        WHERE jsonb_typeof(f.value) = 'object' AND NOT f.value ?| ARRAY['_some', '_none']
        GROUP BY f.key HAVING count(*) > 1
      ) THEN
        RAISE EXCEPTION 'a group of % names the same one-to-many field twice without _some or _none (Directus merges them): write them with _some', key;
      END IF;
      group_parts := '{}';
      i := 0;
      FOR sub IN SELECT e FROM jsonb_array_elements(val) e LOOP
        i := i + 1;
        r := ${s}.directus_filter_sql(coll, sub, alias, format('%s%s%s', slot, left(key, 2), i), chain);
        group_parts := group_parts || (r ->> 'sql');
        instants := instants || (r -> 'instants');
        deps := deps || (r -> 'deps');
      END LOOP;
      IF array_length(group_parts, 1) IS NOT NULL THEN
        parts := parts || ('(' || array_to_string(group_parts, CASE key WHEN '_and' THEN ' AND ' ELSE ' OR ' END) || ')');
      END IF;
      CONTINUE;
    ELSIF left(key, 1) = '_' THEN
      RAISE EXCEPTION 'the logical operator % is outside the subset the recipe follows', key;
    END IF;

    IF jsonb_typeof(val) IN ('string', 'number', 'boolean') THEN
      val := jsonb_build_object('_eq', val); -- Directus: a bare value is _eq
    ELSIF jsonb_typeof(val) IS DISTINCT FROM 'object' THEN
      RAISE EXCEPTION 'the condition on %.% must be an object, found %', coll, key, jsonb_typeof(val);
    END IF;
    IF (SELECT count(*) FROM jsonb_object_keys(val)) <> 1 THEN
      RAISE EXCEPTION 'the condition on %.% must hold exactly one operator or field (Directus reads only the first): split it with _and', coll, key;
    END IF;
    SELECT e.key, e.value INTO op, arg FROM jsonb_each(val) e;

    IF left(op, 1) = '_' AND op NOT IN ('_some', '_none') THEN
      r := ${s}.directus_condition_sql(coll, key, op, arg, alias, chain <> '[]'::jsonb);
      parts := parts || (r ->> 'sql');
      instants := instants || coalesce(r -> 'instants', '[]');
      CONTINUE;
    END IF;

    other := format('x_%s_%s', slot, j);
    SELECT dr.many_collection, dr.many_field, dr.one_allowed_collections INTO rel
    FROM ${n.directusIdent}.directus_relations dr WHERE dr.one_collection = coll AND dr.one_field = key ORDER BY dr.id LIMIT 1;
    IF FOUND THEN -- one-to-many (a many-to-many goes through its junction's one-to-many)
      IF ${s}.directus_pk(coll) IS NULL OR ${s}.directus_column_type(rel.many_collection, rel.many_field) IS NULL THEN
        RAISE EXCEPTION 'the relation %.% cannot be followed: its tables or keys are missing', coll, key;
      END IF;
      IF NOT EXISTS (SELECT 1 FROM ${s}.directus_public_reads(rel.many_collection) p WHERE p.filter IS NULL OR p.filter IN ('{}'::jsonb, 'null'::jsonb)) THEN
        RAISE EXCEPTION 'the rule reads %, which the Public policy may not read in full', rel.many_collection;
      END IF;
      cond := format('%I.%I = %I.%I', other, rel.many_field, alias, ${s}.directus_pk(coll));
      step := jsonb_build_object('collection', rel.many_collection, 'alias', other, 'on', cond);
      sub := CASE WHEN op IN ('_some', '_none') THEN arg ELSE val END;
      r := ${s}.directus_filter_sql(rel.many_collection, sub, other, format('%s_%s', slot, j), chain || step);
      IF r -> 'instants' <> '[]'::jsonb THEN
        RAISE EXCEPTION '$NOW on a field of a related collection (%) is outside the subset the recipe follows', rel.many_collection;
      END IF;
      parts := parts || format('(%sEXISTS (SELECT 1 FROM %I.%I %I WHERE %s AND %s))', CASE op WHEN '_none' THEN 'NOT ' ELSE '' END,
        ${d}, rel.many_collection, other, cond, r ->> 'sql');
      deps := deps || jsonb_build_array(jsonb_build_object('collection', rel.many_collection, 'chain', chain || step)) || (r -> 'deps');
      CONTINUE;
    END IF;

    SELECT dr.one_collection INTO target FROM ${n.directusIdent}.directus_relations dr
    WHERE dr.many_collection = coll AND dr.many_field = key AND dr.one_collection IS NOT NULL ORDER BY dr.id LIMIT 1;
    IF NOT FOUND THEN
      IF ${s}.directus_column_type(coll, key) IS NULL AND NOT EXISTS (SELECT 1 FROM ${n.directusIdent}.directus_fields f WHERE f.collection = coll AND f.field = key) THEN
        RAISE EXCEPTION 'the field % does not exist in %', key, coll;
      END IF;
      RAISE EXCEPTION 'the field %.% is not a relation the recipe can follow (% needs a many-to-one, one-to-many or many-to-many field)', coll, key, op;
    END IF;
    IF op IN ('_some', '_none') THEN
      RAISE EXCEPTION '% on %.%: _some and _none apply to one-to-many and many-to-many fields only', op, coll, key;
    END IF;
    -- many-to-one: the condition on the joined row; Directus LEFT JOINs it, so no related row reads as nulls
    IF ${s}.directus_pk(target) IS NULL THEN
      RAISE EXCEPTION 'the relation %.% cannot be followed: % has no single-column primary key', coll, key, target;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM ${s}.directus_public_reads(target) p WHERE p.filter IS NULL OR p.filter IN ('{}'::jsonb, 'null'::jsonb)) THEN
      RAISE EXCEPTION 'the rule reads %, which the Public policy may not read in full', target;
    END IF;
    cond := format('%I.%I = %I.%I', other, ${s}.directus_pk(target), alias, key);
    step := jsonb_build_object('collection', target, 'alias', other, 'on', cond);
    r := ${s}.directus_filter_sql(target, val, other, format('%s_%s', slot, j), chain || step);
    IF r -> 'instants' <> '[]'::jsonb THEN
      RAISE EXCEPTION '$NOW on a field of a related collection (%) is outside the subset the recipe follows', target;
    END IF;
    parts := parts || format('(SELECT %s FROM (SELECT 1) AS %I LEFT JOIN %I.%I %I ON %s)', r ->> 'sql', 'o' || other, ${d}, target, other, cond);
    deps := deps || jsonb_build_array(jsonb_build_object('collection', target, 'chain', chain || step)) || (r -> 'deps');
  END LOOP;
  RETURN jsonb_build_object(
    'sql', CASE WHEN array_length(parts, 1) IS NULL THEN 'TRUE' ELSE '(' || array_to_string(parts, ' AND ') || ')' END,
    'instants', instants,
    'deps', deps);
END
$$;

-- The statement that finds the root items a write to a related row affects: the join chain from the
-- root's table to the changed row, given as $1 (a row of the related table).
CREATE OR REPLACE FUNCTION ${s}.directus_affected_sql(root text, chain jsonb) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  sql text := format('SELECT t.%I FROM %I.%I t', ${s}.directus_pk(root), ${d}, root);
  n int := jsonb_array_length(chain);
  step jsonb;
  i int := 0;
BEGIN
  FOR step IN SELECT e FROM jsonb_array_elements(chain) e LOOP
    i := i + 1;
    sql := sql || CASE WHEN i = n
      THEN format(' JOIN (SELECT ($1).*) %I ON %s', step ->> 'alias', step ->> 'on')
      ELSE format(' JOIN %I.%I %I ON %s', ${d}, step ->> 'collection', step ->> 'alias', step ->> 'on') END;
  END LOOP;
  RETURN sql;
END
$$;
`;
}
