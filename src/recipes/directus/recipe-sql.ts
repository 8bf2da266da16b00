import { accessRuleSql, ruleTriggersSql } from './access-rule-sql.js';
import { bodySql, collectionSql, junctionSql } from './collection-sql.js';
import { filterCompilerSql } from './filter-compiler-sql.js';
import { ITEM_SPAN, VOCABULARY, VOCABULARY_BASE } from './id-scheme.js';
import { recipeNames, type RecipeNames } from './recipe-names.js';
import type { RecipePlan } from './recipe-plan.js';
import { schemaSql } from './schema-sql.js';
import { applyRolledBack, type Queryable } from './directus-model.js';
import { ident, literal, objectName } from './sql-text.js';

/**
 * The whole recipe as one SQL script, applied in one transaction (`psql -v ON_ERROR_STOP=1 -f`); it
 * can be applied again (after a change of the model, or to upgrade), which recomputes every row. In
 * order: the recipe's tables; the filter translator and the rule following; the collections' numbers
 * and the vocabulary; per collection its refresh function and triggers; the many-to-many edges; the
 * watch on every collection table a rule may read; `rsc`; the initial fill; the indexes; `ANALYZE`.
 *
 * ```ts
 * const sql = recipeSql(planRecipe(model, request)) // BEGIN; CREATE SCHEMA IF NOT EXISTS "agent"; … COMMIT;
 * ```
 */
export function recipeSql(plan: RecipePlan, header = '', { trial = false } = {}): string {
  const { request } = plan;
  const names = recipeNames(request.recipeSchema, request.directusSchema, request.timeZone);
  const { s, directusIdent: d } = names;
  return [
    header,
    'SET client_min_messages = warning;',
    trial ? '' : 'BEGIN;',
    schemaSql(names),
    filterCompilerSql(names),
    commonSql(names),
    accessRuleSql(names),
    dropOwnTriggersSql(names),
    ruleTriggersSql(names),
    registrySql(plan, names),
    vocabularySql(plan, names),
    ...plan.collections.map((c) => collectionSql(plan, names, c)),
    `-- A rule may read any collection through a relation: a write to one computes again the items whose rule reads it.
${plan.watched.map((t) => `CREATE TRIGGER agent_related AFTER INSERT OR UPDATE OR DELETE ON ${d}.${ident(t)} FOR EACH ROW EXECUTE FUNCTION ${s}.on_related_write();
CREATE TRIGGER agent_related_truncate AFTER TRUNCATE ON ${d}.${ident(t)} FOR EACH STATEMENT EXECUTE FUNCTION ${s}.on_related_truncate();`).join('\n')}`,
    bodySql(plan, names),
    rscSql(names),
    trial ? '' : relationIndexSql(plan, names),
    fillSql(plan, names, trial),
    ...plan.predicates.filter((p) => p.junction).map((p) => junctionSql(plan, names, p)),
    trial ? '' : indexSql(plan, names),
    trial ? '' : 'COMMIT;',
    '',
  ].join('\n\n');
}

/**
 * Applies the recipe in a transaction that is rolled back, every statement of it planned and run
 * over no item (the fill refreshes an empty list): an SQL text the generator writes applies, or
 * the generator says why not instead of writing it. Directus's tables are locked only for that short
 * transaction (its triggers are created and dropped again); nothing is indexed or filled.
 */
export async function tryRecipe(db: Queryable, plan: RecipePlan): Promise<void> {
  await applyRolledBack(db, recipeSql(plan, '', { trial: true }));
}

/** Forgetting deleted items, with their edges. */
function commonSql({ s }: RecipeNames): string {
  return `CREATE OR REPLACE FUNCTION ${s}.forget_items(k integer, items bigint[]) RETURNS void LANGUAGE sql AS $$
  DELETE FROM ${s}.edge WHERE subject_id IN (SELECT k::bigint * ${ITEM_SPAN} + i FROM unnest(items) i)
    OR object_id IN (SELECT k::bigint * ${ITEM_SPAN} + i FROM unnest(items) i);
  DELETE FROM ${s}.resource WHERE collection_no = k AND item = ANY (items);
$$;

-- A served table emptied at once (TRUNCATE): its items, or a junction's edges, go with it.
CREATE OR REPLACE FUNCTION ${s}.on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_ARGV[0] = 'items' THEN
    PERFORM ${s}.forget_items(TG_ARGV[1]::integer, ARRAY(SELECT item FROM ${s}.resource WHERE collection_no = TG_ARGV[1]::integer));
  ELSE
    DELETE FROM ${s}.edge WHERE predicate_id = TG_ARGV[1]::bigint;
  END IF;
  RETURN NULL;
END
$$;`;
}

/** Drops the triggers an earlier application left on Directus's tables (every one calling a function of the recipe's schema). */
function dropOwnTriggersSql({ s, recipe, directus }: RecipeNames): string {
  return `DO $$
DECLARE t record;
BEGIN
  FOR t IN SELECT tg.tgname, c.relname FROM pg_trigger tg
    JOIN pg_class c ON c.oid = tg.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_proc p ON p.oid = tg.tgfoid JOIN pg_namespace pn ON pn.oid = p.pronamespace
    WHERE n.nspname = ${literal(directus)} AND pn.nspname = ${literal(recipe)} AND NOT tg.tgisinternal LOOP
    EXECUTE format('DROP TRIGGER %I ON %I.%I', t.tgname, ${literal(directus)}, t.relname);
  END LOOP;
END
$$;
-- ${s} is applied again: what failed before is retried.
UPDATE ${s}.collection SET broken = NULL;`;
}

/** The collections' numbers and served fields, the predicates' fields, the settings the host reads; what is no longer served goes. */
function registrySql(plan: RecipePlan, { s }: RecipeNames): string {
  const { request } = plan;
  const collections = plan.collections.map((c) => `(${literal(c.name)}, ${c.number}, ARRAY[${c.served.map(literal).join(', ')}]::text[])`);
  const predicates = plan.predicates.map((p) =>
    `(${p.id}, ${p.number}, ${literal(p.subject)}, ${literal(p.field)}, ${p.junction ? `${literal(p.junction.collection)}, ${literal(p.junction.subjectField)}, ${literal(p.junction.objectField)}` : 'NULL, NULL, NULL'})`,
  );
  const numbers = plan.collections.map((c) => c.number).join(', ');
  return `DELETE FROM ${s}.resource WHERE collection_no IS NOT NULL AND collection_no NOT IN (${numbers});
DELETE FROM ${s}.collection WHERE number NOT IN (${numbers});
INSERT INTO ${s}.collection (collection, number, served_fields) VALUES
  ${collections.join(',\n  ')}
ON CONFLICT (collection) DO UPDATE SET number = EXCLUDED.number, served_fields = EXCLUDED.served_fields;
DELETE FROM ${s}.predicate_field;
${predicates.length ? `INSERT INTO ${s}.predicate_field (id, number, collection, field, junction, junction_subject, junction_object) VALUES
  ${predicates.join(',\n  ')};` : ''}
DELETE FROM ${s}.edge WHERE predicate_id NOT IN (SELECT id FROM ${s}.predicate_field);
INSERT INTO ${s}.recipe (language, text_search, site_url, time_zone, generated_at)
VALUES (${literal(plan.language)}, ${literal(request.textSearch)}, ${request.siteUrl ? literal(request.siteUrl) : 'NULL'}, ${literal(request.timeZone)}, now())
ON CONFLICT (one) DO UPDATE SET language = EXCLUDED.language, text_search = EXCLUDED.text_search, site_url = EXCLUDED.site_url,
  time_zone = EXCLUDED.time_zone, generated_at = EXCLUDED.generated_at;`;
}

const title = (name: string) => name.replace(/_/g, ' ').replace(/^./, (ch) => ch.toUpperCase());

/** The vocabulary: `meta` with `category` and `predicate` under it, a category per collection, a predicate per relation field. */
function vocabularySql(plan: RecipePlan, { s }: RecipeNames): string {
  const lang = literal(plan.language);
  const row = (id: number, name: string, category: number, text: string, summary: string) =>
    `(${id}, ${literal(name)}, ${category}, jsonb_build_object(${lang}, ${literal(text)}), jsonb_build_object(${lang}, ${literal(summary)}))`;
  const rows = [
    row(VOCABULARY.meta, 'meta', VOCABULARY.category, 'Vocabulary', 'The categories and relations of this site.'),
    row(VOCABULARY.category, 'category', VOCABULARY.category, 'Categories', 'The categories items belong to: one per Directus collection.'),
    row(VOCABULARY.predicate, 'predicate', VOCABULARY.category, 'Relations', 'The kinds of relation between items.'),
    ...plan.collections.map((c) => row(c.categoryId, c.categoryName, VOCABULARY.category, title(c.name), `Every item of the Directus collection ${c.name}.`)),
    ...plan.predicates.map((p) => row(p.id, p.name, VOCABULARY.predicate, title(p.field), `${p.subject}.${p.field} → ${p.object} (a ${p.junction ? 'many-to-many' : 'many-to-one'} field).`)),
  ];
  const ids = rows.length ? [VOCABULARY.meta, VOCABULARY.category, VOCABULARY.predicate, ...plan.collections.map((c) => c.categoryId), ...plan.predicates.map((p) => p.id)] : [];
  const categories = [
    `(${VOCABULARY.meta}, NULL)`, `(${VOCABULARY.category}, ${VOCABULARY.meta})`, `(${VOCABULARY.predicate}, ${VOCABULARY.meta})`,
    ...plan.collections.map((c) => `(${c.categoryId}, NULL)`),
  ];
  const categoryOf = (name: string) => plan.collections.find((c) => c.name === name)!.categoryId;
  const constraints = plan.predicates.flatMap((p) => [`(${p.id}, true, ${categoryOf(p.subject)})`, `(${p.id}, false, ${categoryOf(p.object)})`]);
  return `-- The vocabulary (ids from ${VOCABULARY_BASE}, above every collection's block).
DELETE FROM ${s}.resource WHERE collection_no IS NULL AND id NOT IN (${ids.join(', ')});
INSERT INTO ${s}.resource AS r (id, name, category_id, title, summary, visibility, publication_start, created, modified, language, fts)
SELECT v.id, v.name, v.category_id, v.title, v.summary, 'public', '2000-01-01T00:00:00Z', '2000-01-01T00:00:00Z', '2000-01-01T00:00:00Z', ARRAY[${lang}], ''::tsvector
FROM (VALUES
  ${rows.join(',\n  ')}
) AS v (id, name, category_id, title, summary)
ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, category_id = EXCLUDED.category_id, title = EXCLUDED.title, summary = EXCLUDED.summary,
  language = EXCLUDED.language;
INSERT INTO ${s}.category (id, parent_id) VALUES ${categories.join(', ')}
ON CONFLICT (id) DO UPDATE SET parent_id = EXCLUDED.parent_id;
DELETE FROM ${s}.predicate_category;
${constraints.length ? `INSERT INTO ${s}.predicate_category (predicate_id, is_subject, category_id) VALUES ${constraints.join(', ')};` : ''}`;
}

/** `rsc`: `resource` plus the body, fetched only for the rows a statement returns. */
function rscSql({ s }: RecipeNames): string {
  return `CREATE OR REPLACE VIEW ${s}.rsc AS
SELECT r.id, r.name, r.category_id, r.is_published, r.visibility, r.publication_start, r.publication_end, r.created, r.modified,
  r.language, r.title, r.summary,
  CASE WHEN r.collection_no IS NULL THEN '{}'::jsonb ELSE coalesce(${s}.body_of(r.collection_no, r.item, r.language), '{}'::jsonb) END AS body,
  '[]'::jsonb AS blocks, '{}'::jsonb AS props, false AS seo_noindex, NULL::text AS uri, NULL::jsonb AS license, NULL::jsonb AS attribution,
  r.fts, r.page_url
FROM ${s}.resource r;`;
}

/**
 * Directus indexes no foreign key: an index on the many side of every relation, which the rules' joins
 * (a `_none` over tags reads `articles_tags` per article), the triggers and the edges go through.
 * Before the fill, which evaluates every rule once.
 */
function relationIndexSql(plan: RecipePlan, { directusIdent: d }: RecipeNames): string {
  return plan.relationKeys
    .map((k) => `CREATE INDEX IF NOT EXISTS ${ident(`agent_${k.collection}_${k.field}_idx`.slice(0, 63))} ON ${d}.${ident(k.collection)} (${ident(k.field)});`)
    .join('\n');
}

/** The initial fill: the rules translated, every item's row (items gone since are forgotten), then its visibility. */
function fillSql(plan: RecipePlan, names: RecipeNames, trial = false): string {
  const { s, directusIdent: d } = names;
  if (trial) {
    return `DO $$
BEGIN
  PERFORM ${s}.follow_rules();
${plan.collections.map((c) => `  PERFORM ${s}.${ident(objectName('refresh_', c.name, c.number))}(ARRAY[]::bigint[]);`).join('\n')}
END
$$;`;
  }
  return `-- The initial fill (about 1 ms per item, mostly the text vectors).
DO $$
BEGIN
  PERFORM ${s}.follow_rules(true);
${plan.collections.map((c) => `  PERFORM ${s}.forget_items(${c.number}, ARRAY(SELECT r.item FROM ${s}.resource r WHERE r.collection_no = ${c.number}
    AND NOT EXISTS (SELECT 1 FROM ${d}.${ident(c.name)} t WHERE t.${ident(c.primaryKey)} = r.item)));
  PERFORM ${s}.${ident(objectName('refresh_', c.name, c.number))}(NULL);`).join('\n')}
END
$$;`;
}

/** One index per hot statement of the plugin (the id and the name have theirs), then fresh statistics. */
function indexSql(plan: RecipePlan, { s, directusIdent: d }: RecipeNames): string {
  return `CREATE INDEX IF NOT EXISTS resource_publication_start_desc_idx ON ${s}.resource (publication_start DESC, id);
CREATE INDEX IF NOT EXISTS resource_publication_start_asc_idx ON ${s}.resource (publication_start, id);
CREATE INDEX IF NOT EXISTS resource_modified_desc_idx ON ${s}.resource (modified DESC, id);
CREATE INDEX IF NOT EXISTS resource_category_idx ON ${s}.resource (category_id, id);
CREATE INDEX IF NOT EXISTS resource_fts_idx ON ${s}.resource USING gin (fts);
${plan.watched.map((t) => `ANALYZE ${d}.${ident(t)};`).join('\n')}
ANALYZE ${s}.resource;
ANALYZE ${s}.edge;
ANALYZE ${s}.category;
ANALYZE ${s}.predicate_category;`;
}
