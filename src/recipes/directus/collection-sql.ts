import { ITEM_SPAN } from './id-scheme.js';
import type { RecipeNames } from './recipe-names.js';
import type { BodySource, FieldSource, PlannedCollection, PlannedPredicate, RecipePlan } from './recipe-plan.js';
import { ident, literal, objectName } from './sql-text.js';

/** The instant a date field holds, as `timestamptz`: a Datetime without zone is read in the server's zone. */
export function instantSql(alias: string, f: FieldSource, zone: string): string {
  const col = `${alias}.${ident(f.field)}`;
  if (/without time zone$/.test(f.type)) return `(${col} AT TIME ZONE ${literal(zone)})`;
  if (f.type === 'date') return `(${col}::timestamp AT TIME ZONE ${literal(zone)})`;
  return col;
}

/** A field's value as text (`''` when null), from the item `t` or its translation `y`. */
const textOf = (f: FieldSource | undefined): string => (f ? `coalesce(${f.translated ? 'y' : 't'}.${ident(f.field)}::text, '')` : `''`);

/** A body's HTML: Directus's rich text as it is; other text escaped, blank lines making paragraphs. */
export function bodyHtmlSql(body: BodySource, alias: string): string {
  const value = `${alias}.${ident(body.field)}::text`;
  if (body.format === 'html') return `coalesce(${value}, '')`;
  const escaped = `replace(replace(replace(coalesce(${value}, ''), '&', '&amp;'), '<', '&lt;'), '>', '&gt;')`;
  return `'<p>' || replace(${escaped}, E'\\n\\n', '</p><p>') || '</p>'`;
}

/** The page URL of an item (in the language `lang`, an SQL text expression): the pattern with its fields. */
function pageUrlSql(c: PlannedCollection, siteUrl: string | undefined, lang: string): string {
  const parts = c.pattern.split(/(\{[^}]*\})/).filter(Boolean).map((part) => {
    const field = /^\{(.*)\}$/.exec(part)?.[1];
    if (field === undefined) return literal(part);
    if (field === 'lang') return lang;
    const source = c.patternFields.get(field)!;
    return `${source.translated ? 'y' : 't'}.${ident(source.field)}::text`;
  });
  return [...(siteUrl ? [literal(siteUrl.replace(/\/+$/, ''))] : []), ...parts].join(' || ');
}

/** The text search vector: title (A), summary (B), body without tags (C). */
function ftsSql(config: string, title: string, summary: string, body: string): string {
  const cfg = `${literal(config)}::regconfig`;
  return `setweight(to_tsvector(${cfg}, ${title}), 'A') || setweight(to_tsvector(${cfg}, ${summary}), 'B') || ` +
    `setweight(to_tsvector(${cfg}, regexp_replace(${body}, '<[^>]*>', ' ', 'g')), 'C')`;
}

/**
 * A field's text over an item's translations: the translations' texts joined when the field is
 * translated; else the item's own (an aggregate over only the item's columns would belong to the
 * outer query, which PostgreSQL refuses in a FROM clause).
 */
const joined = (f: FieldSource | undefined, text: string): string => (f?.translated ? `coalesce(string_agg(${text}, ' '), '')` : text);

/**
 * The SELECT of a collection's rows of `resource` (every column but the visibility ones, which
 * `follow_rule` computes), for the items `items` (all when NULL). Without translations one language;
 * with them one entry per translation, the default language first.
 */
function rowsSelect(plan: RecipePlan, names: RecipeNames, c: PlannedCollection, some: boolean): string {
  const { request, language } = plan;
  const d = names.directusIdent;
  const k = c.number;
  const lang = literal(language);
  const pk = `t.${ident(c.primaryKey)}`;
  const dated = c.date ? instantSql(c.date.translated ? 'y' : 't', c.date, names.zone) : `'1970-01-01T00:00:00Z'::timestamptz`;
  const body = c.body ? bodyHtmlSql(c.body, c.body.translated ? 'y' : 't') : `''`;
  const instantOf = (f: FieldSource | undefined | null) => (f && !f.translated ? instantSql('t', f, names.zone) : undefined);
  const created = instantOf(c.created) ?? instantOf(c.date) ?? 'NULL::timestamptz';
  // A never-edited item (Directus leaves date_updated null) was last modified when it was created.
  const modifiedSources = [instantOf(c.modified), instantOf(c.created) ?? instantOf(c.date)].filter((x): x is string => x !== undefined);
  const modified = modifiedSources.length > 1 ? `coalesce(${modifiedSources.join(', ')})` : modifiedSources[0] ?? 'NULL::timestamptz';
  const from = `FROM ${d}.${ident(c.name)} t`;
  const where = `WHERE ${some ? `${pk} = ANY (items) AND ` : ''}${pk} BETWEEN 1 AND ${ITEM_SPAN - 1}`;
  const head = `SELECT ${k}::bigint * ${ITEM_SPAN} + ${pk}, ${k}, ${pk}, ${c.categoryId}`;
  if (!c.translations) {
    return `${head}, ${dated}, ${created}, ${modified}, ARRAY[${lang}],
    jsonb_build_object(${lang}, ${textOf(c.title)}), jsonb_build_object(${lang}, ${textOf(c.summary)}),
    ${ftsSql(request.textSearch, textOf(c.title), textOf(c.summary), body)},
    to_jsonb(${pageUrlSql(c, request.siteUrl, lang)})
  ${from}
  ${where}`;
  }
  const tr = c.translations;
  const code = `lower(y.${ident(tr.languageField)}::text)`;
  return `${head}, ${c.date?.translated ? 'x.dated' : dated}, ${created}, ${modified},
    coalesce(x.language, ARRAY[${lang}]),
    coalesce(x.title, jsonb_build_object(${lang}, ${c.title.translated ? `''` : textOf(c.title)})),
    coalesce(x.summary, jsonb_build_object(${lang}, ${c.summary?.translated ? `''` : textOf(c.summary)})),
    coalesce(x.fts, ''::tsvector),
    x.page_url
  ${from}
  LEFT JOIN LATERAL (
    SELECT array_agg(${code} ORDER BY ${code} = ${lang} DESC, ${code}) AS language,
      jsonb_object_agg(${code}, ${textOf(c.title)}) AS title,
      jsonb_object_agg(${code}, ${textOf(c.summary)}) AS summary,
      jsonb_object_agg(${code}, ${pageUrlSql(c, request.siteUrl, code)}) AS page_url,
      ${ftsSql(request.textSearch, joined(c.title, textOf(c.title)), joined(c.summary, textOf(c.summary)), joined(c.body, body))} AS fts,
      min(${c.date?.translated ? instantSql('y', c.date, names.zone) : 'NULL::timestamptz'}) AS dated
    FROM ${d}.${ident(tr.collection)} y
    WHERE y.${ident(tr.itemField)} = ${pk} AND y.${ident(tr.languageField)} IS NOT NULL
  ) x ON true
  ${where}`;
}

/** The edges of a many-to-one predicate whose subjects are the items `items` of `c` (`some`), or all its items. */
function manyToOneEdgesSql(names: RecipeNames, plan: RecipePlan, c: PlannedCollection, p: PlannedPredicate, some: boolean): string {
  const object = plan.collections.find((o) => o.name === p.object)!;
  const fk = `t.${ident(p.field)}`;
  const pk = `t.${ident(c.primaryKey)}`;
  const subjects = some
    ? `e.subject_id = ANY (ARRAY(SELECT ${c.number}::bigint * ${ITEM_SPAN} + i FROM unnest(items) i))`
    : `e.subject_id BETWEEN ${c.number}::bigint * ${ITEM_SPAN} AND ${c.number + 1}::bigint * ${ITEM_SPAN} - 1`;
  return `    DELETE FROM ${names.s}.edge e WHERE e.predicate_id = ${p.id} AND ${subjects};
    INSERT INTO ${names.s}.edge (subject_id, predicate_id, object_id)
    SELECT ${c.number}::bigint * ${ITEM_SPAN} + ${pk}, ${p.id}, ${object.number}::bigint * ${ITEM_SPAN} + ${fk}
    FROM ${names.directusIdent}.${ident(c.name)} t
    WHERE ${some ? `${pk} = ANY (items) AND ` : ''}${pk} BETWEEN 1 AND ${ITEM_SPAN - 1} AND ${fk} BETWEEN 1 AND ${ITEM_SPAN - 1}
    ON CONFLICT DO NOTHING;`;
}

/**
 * A collection's rows of `resource` written from its table: the items `items` (`some`, after a write
 * to them), or all (the fill). An item without any date field is modified by the write (`now()`); the
 * fill keeps the `modified` it had, so that applying the recipe again changes no item's.
 */
function upsertSql(plan: RecipePlan, names: RecipeNames, c: PlannedCollection, some: boolean): string {
  const { s } = names;
  return `    INSERT INTO ${s}.resource AS r (id, collection_no, item, category_id, dated, created, modified, language, title, summary, fts, page_url,
      visibility, publication_start)
    SELECT v.id, v.collection_no, v.item, v.category_id, v.dated,
      coalesce(v.created, (SELECT x.created FROM ${s}.resource x WHERE x.id = v.id), now()),
      coalesce(v.modified, v.created, ${some ? '' : `(SELECT x.modified FROM ${s}.resource x WHERE x.id = v.id), `}now()),
      v.language, v.title, v.summary, v.fts, v.page_url, 'closed', coalesce(v.dated, now())
    FROM (
    ${rowsSelect(plan, names, c, some)}
    ) AS v (id, collection_no, item, category_id, dated, created, modified, language, title, summary, fts, page_url)
    ON CONFLICT (id) DO UPDATE SET dated = EXCLUDED.dated, created = EXCLUDED.created, modified = EXCLUDED.modified,
      language = EXCLUDED.language, title = EXCLUDED.title, summary = EXCLUDED.summary, fts = EXCLUDED.fts, page_url = EXCLUDED.page_url;`;
}

/**
 * A served collection: `refresh_<collection>(items)` writes its rows of `resource` and its
 * many-to-one edges and follows its rule for them; the row trigger on its table calls it (and
 * forgets a deleted item); its translations' table, when it has one, refreshes their item.
 */
export function collectionSql(plan: RecipePlan, names: RecipeNames, c: PlannedCollection): string {
  const { s, directusIdent: d } = names;
  const refresh = `${s}.${ident(objectName('refresh_', c.name, c.number))}`;
  const onWrite = `${s}.${ident(objectName('on_item_', c.name, c.number))}`;
  const pk = ident(c.primaryKey);
  const table = `${d}.${ident(c.name)}`;
  const m2o = plan.predicates.filter((p) => p.subject === c.name && !p.junction);
  const out = [`-- Collection ${c.name} (k = ${c.number}: resource ids ${c.number} * 10^12 + ${c.primaryKey}), category ${c.categoryName}, pages at ${c.pattern}.
CREATE OR REPLACE FUNCTION ${refresh}(items bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- Two statements, not one with \`items IS NULL OR …\`: each keeps its own plan, an item's through the primary key.
  IF items IS NULL THEN
${upsertSql(plan, names, c, false)}
${m2o.map((p) => manyToOneEdgesSql(names, plan, c, p, false)).join('\n')}
  ELSE
${upsertSql(plan, names, c, true)}
${m2o.map((p) => manyToOneEdgesSql(names, plan, c, p, true)).join('\n')}
  END IF;
  PERFORM ${s}.follow_rule(${literal(c.name)}, items);
END
$$;

CREATE OR REPLACE FUNCTION ${onWrite}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    IF TG_OP = 'DELETE' THEN
      PERFORM ${s}.forget_items(${c.number}, ARRAY[OLD.${pk}]::bigint[]);
    ELSE
      IF TG_OP = 'UPDATE' THEN
        IF OLD.${pk} IS DISTINCT FROM NEW.${pk} THEN PERFORM ${s}.forget_items(${c.number}, ARRAY[OLD.${pk}]::bigint[]); END IF;
      END IF;
      PERFORM ${refresh}(ARRAY[NEW.${pk}]::bigint[]);
    END IF;
  EXCEPTION WHEN others THEN
    PERFORM ${s}.close_collection(${literal(c.name)}, format('following a write to %s failed: %s (apply the recipe again after changing the model)', TG_TABLE_NAME, SQLERRM));
  END;
  RETURN NULL;
END
$$;
CREATE TRIGGER agent_item AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${onWrite}();
CREATE TRIGGER agent_item_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${s}.on_truncate('items', '${c.number}');`];
  if (c.translations) {
    const tr = c.translations;
    const onTranslation = `${s}.${ident(objectName('on_translation_', c.name, c.number))}`;
    const fk = ident(tr.itemField);
    out.push(`CREATE OR REPLACE FUNCTION ${onTranslation}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM ${refresh}(ARRAY[OLD.${fk}]::bigint[]); END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM ${refresh}(ARRAY[NEW.${fk}]::bigint[]); END IF;
  EXCEPTION WHEN others THEN
    PERFORM ${s}.close_collection(${literal(c.name)}, format('following a write to %s failed: %s (apply the recipe again after changing the model)', TG_TABLE_NAME, SQLERRM));
  END;
  RETURN NULL;
END
$$;
CREATE TRIGGER agent_translation AFTER INSERT OR UPDATE OR DELETE ON ${d}.${ident(tr.collection)} FOR EACH ROW EXECUTE FUNCTION ${onTranslation}();`);
  }
  return out.join('\n');
}

/**
 * A many-to-many predicate: its edges from the junction's rows (one edge per pair, however many
 * junction rows name it), kept by a row trigger on the junction (whose two fields the recipe indexes,
 * with every relation's, in `relationIndexSql`).
 */
export function junctionSql(plan: RecipePlan, names: RecipeNames, p: PlannedPredicate): string {
  const { s, directusIdent: d } = names;
  const j = p.junction!;
  const subject = plan.collections.find((c) => c.name === p.subject)!;
  const object = plan.collections.find((c) => c.name === p.object)!;
  const table = `${d}.${ident(j.collection)}`;
  const [a, b] = [ident(j.subjectField), ident(j.objectField)];
  const id = (k: number, col: string) => `${k}::bigint * ${ITEM_SPAN} + ${col}`;
  const inRange = (col: string) => `${col} BETWEEN 1 AND ${ITEM_SPAN - 1}`;
  const fn = `${s}.${ident(objectName('on_edge_', `${p.subject}_${p.field}`, p.number))}`;
  return `-- Predicate ${p.name} (${p.subject}.${p.field} → ${p.object}, many-to-many through ${j.collection}).
CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM ${s}.edge e WHERE e.predicate_id = ${p.id} AND e.subject_id = ${id(subject.number, `OLD.${a}`)} AND e.object_id = ${id(object.number, `OLD.${b}`)}
      AND NOT EXISTS (SELECT 1 FROM ${table} x WHERE x.${a} = OLD.${a} AND x.${b} = OLD.${b});
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND ${inRange(`NEW.${a}`)} AND ${inRange(`NEW.${b}`)} THEN
    INSERT INTO ${s}.edge (subject_id, predicate_id, object_id) VALUES (${id(subject.number, `NEW.${a}`)}, ${p.id}, ${id(object.number, `NEW.${b}`)})
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER ${ident(objectName('agent_edge_', p.name, p.number))} AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}();
CREATE TRIGGER ${ident(objectName('agent_edge_truncate_', p.name, p.number))} AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${s}.on_truncate('edges', '${p.id}');
DELETE FROM ${s}.edge WHERE predicate_id = ${p.id};
INSERT INTO ${s}.edge (subject_id, predicate_id, object_id)
SELECT DISTINCT ${id(subject.number, `x.${a}`)}, ${p.id}, ${id(object.number, `x.${b}`)} FROM ${table} x
WHERE ${inRange(`x.${a}`)} AND ${inRange(`x.${b}`)}
ON CONFLICT DO NOTHING;`;
}

/** The body of a row of `rsc`, fetched from Directus's table by primary key for the rows a statement returns. */
export function bodySql(plan: RecipePlan, names: RecipeNames): string {
  const d = names.directusIdent;
  const branches = plan.collections.map((c) => {
    if (!c.body) return `    WHEN ${c.number} THEN '{}'::jsonb`;
    const pk = ident(c.primaryKey);
    if (c.body.translated) {
      const tr = c.translations!;
      return `    WHEN ${c.number} THEN (SELECT jsonb_object_agg(lower(y.${ident(tr.languageField)}::text), ${bodyHtmlSql(c.body, 'y')})
      FROM ${d}.${ident(tr.collection)} y WHERE y.${ident(tr.itemField)} = item AND y.${ident(tr.languageField)} IS NOT NULL)`;
    }
    // Untranslated: the same body in each of the item's languages.
    return `    WHEN ${c.number} THEN (SELECT jsonb_object_agg(l, ${bodyHtmlSql(c.body, 't')}) FROM ${d}.${ident(c.name)} t, unnest(language) l WHERE t.${pk} = item)`;
  });
  return `-- A served item's body, by collection and primary key (a function, so that Directus can still alter its tables).
CREATE OR REPLACE FUNCTION ${names.s}.body_of(collection_no integer, item bigint, language text[]) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE collection_no
${branches.join('\n')}
  END
$$;`;
}
