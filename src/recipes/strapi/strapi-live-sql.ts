import { ITEM_SPAN, VOCABULARY } from '../directus/id-scheme.js';
import { ident, literal } from '../directus/sql-text.js';
import { renderSql } from './render-sql.js';
import { snakeColumn, type PlannedRelation, type PlannedType, type PlannedZone, type StrapiPlan } from './strapi-plan.js';
import type { StrapiAttribute } from './strapi-model.js';

/**
 * The Strapi recipe's **live views**, in its private schema (`<recipe>_live`): what Strapi's own tables
 * say the recipe serves now, read by the refresh functions (`strapi-kept-sql.ts`) that keep the recipe's
 * tables, never by the plugin.
 *
 * - `rsc`: one resource per document of a served type, from its **published** rows only (a draft row
 *   is never read); each locale a language version (`{locale: …}` title, summary, body, page URL);
 *   id `k × 10^12 + n(document_id)` (`n` from the md5 of the document id, 1 to 10^12 − 1, so that
 *   publishing, which gives the published row a new id, keeps the resource's); `visibility` public
 *   while the Public role has the type's `find` (and `findOne`), and `closed` when Strapi's stored
 *   model makes a served field private or removes it, or following a write failed.
 * - the body: the cover image, the blocks or Markdown body, then the dynamic zones' components in
 *   their order, rendered by `render-sql.ts`; media URLs on the upload base.
 * - `edge`: the relations between served types, between published rows; `vocabulary` (the
 *   categories and predicates as resources), `category`, `predicate_category`, an empty `medium`.
 * - `broken`: the types whose write could not be followed (closed until the recipe is applied again).
 */
export function liveSql(plan: StrapiPlan, live: string): string {
  const { request } = plan;
  const q = strapiTable(request.strapiSchema);
  const base = request.uploadBase ?? request.siteUrl;
  const baseSql = base ? literal(base.replace(/\/+$/, '')) : 'NULL::text';
  const storeTable = q('strapi_core_store_settings');
  return [
    renderSql(live),
    `CREATE TABLE ${live}.broken (uid text PRIMARY KEY, notice text NOT NULL);

-- A document's number within its type's block of ids: stable across publishing (which gives the row a new id).
CREATE OR REPLACE FUNCTION ${live}.strapi_item(doc text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT 1 + (('x' || substr(md5(doc), 1, 10))::bit(40)::bigint % ${ITEM_SPAN - 1})
$$;

-- A locale the plugin can serve (a language tag); a row in another is left out and noticed.
CREATE OR REPLACE FUNCTION ${live}.strapi_locale_ok(locale text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT locale IS NULL OR (length(locale) <= 35 AND locale ~ '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$')
$$;

-- How a served type stands now: 'closed' when following a write to it failed, or when Strapi's stored model
-- makes a served field private (or a password or email) or no longer has it; 'public' when the users-permissions
-- Public role has every action the type needs, else 'restricted'.
CREATE OR REPLACE FUNCTION ${live}.strapi_type_state(uid text, actions text[], served text[]) RETURNS text LANGUAGE sql STABLE AS $$
  WITH stored AS MATERIALIZED ( -- parsed only when it changed since the generation (the whole model is one JSON text of some 60 kB)
    SELECT m.value::jsonb -> uid AS t FROM ${storeTable} m
    WHERE m.key = 'strapi_content_types_schema'${plan.model.storedModelMd5 ? ` AND md5(m.value) <> ${literal(plan.model.storedModelMd5)}` : ''}
  ), attrs AS MATERIALIZED (
    SELECT coalesce(t -> '__schema__' -> 'attributes', t -> 'attributes') AS a FROM stored WHERE t IS NOT NULL
  )
  SELECT CASE
    WHEN EXISTS (SELECT 1 FROM ${live}.broken b WHERE b.uid = strapi_type_state.uid) THEN 'closed'
    WHEN EXISTS (SELECT 1 FROM attrs, unnest(served) f
      WHERE a -> f IS NULL OR a -> f ->> 'private' = 'true' OR a -> f ->> 'type' IN ('password', 'email')) THEN 'closed'
    WHEN (SELECT count(DISTINCT p.action) FROM ${q('up_permissions')} p
      JOIN ${q('up_permissions_role_lnk')} l ON l.permission_id = p.id JOIN ${q('up_roles')} r ON r.id = l.role_id
      WHERE r.type = 'public' AND p.action = ANY (actions)) = cardinality(actions) THEN 'public'
    ELSE 'restricted'
  END
$$;`,
    ...plan.types.map((t) => bodyFunctionSql(plan, t, live, q, baseSql)),
    `-- Every served document (its published rows), then the vocabulary.
CREATE VIEW ${live}.vocabulary AS
${vocabularySql(plan, live)};
CREATE VIEW ${live}.rsc AS
${[...plan.types.map((t) => rscLeg(plan, t, live)), `SELECT * FROM ${live}.vocabulary`].join('\nUNION ALL\n')};`,
    categorySql(plan, live),
    `CREATE VIEW ${live}.edge AS
${plan.relations.length ? plan.relations.map((r) => edgeLeg(plan, r, live)).join('\nUNION ALL\n') : 'SELECT 0::bigint AS id, 0::bigint AS subject_id, 0::bigint AS predicate_id, 0::bigint AS object_id, 0 AS seq, now() AS created WHERE false'};`,
    `CREATE VIEW ${live}.medium AS
SELECT 0::bigint AS rsc_id, ''::text AS mime, 0 AS width, 0 AS height, 0::bigint AS size, ''::text AS filename WHERE false;`,
  ].join('\n\n');
}

/** `schema.table` of Strapi's tables. */
export const strapiTable = (schema: string) => (table: string): string => `${ident(schema)}.${ident(table)}`;

type Q = (table: string) => string;

const stateOf = (s: string, t: PlannedType) =>
  `${s}.strapi_type_state(${literal(t.uid)}, ARRAY[${t.actions.map(literal).join(', ')}]::text[], ARRAY[${t.served.map(literal).join(', ')}]::text[])`;

/** The published rows of a type, readable: published, with a document id, in a locale that is a language tag. */
function publishedRows(s: string, alias: string): string {
  return `${alias}.published_at IS NOT NULL AND ${alias}.document_id IS NOT NULL AND ${s}.strapi_locale_ok(${alias}.locale)`;
}

const col = (alias: string, attribute: string) => `${alias}.${ident(snakeColumn(attribute))}`;

/** The language of a row: its locale in lower case, the default language where i18n is off. */
const langOf = (plan: StrapiPlan, alias: string) => `lower(coalesce(${alias}.locale, ${literal(plan.language)}))`;

function pageUrlSql(plan: StrapiPlan, t: PlannedType, alias: string): string {
  const parts = t.pattern.split(/(\{[^}]*\})/).filter(Boolean).map((part) => {
    if (part === '{locale}') return `coalesce(${alias}.locale, ${literal(plan.model.defaultLocale)})`;
    if (part === '{slug}') return `coalesce(${col(alias, t.slug!)}::text, '')`;
    if (part === '{documentId}') return `${alias}.document_id`;
    return literal(part);
  });
  return [...(plan.request.siteUrl ? [literal(plan.request.siteUrl.replace(/\/+$/, ''))] : []), ...parts].join(' || ');
}

/** A media field's first file as a figure (`files_related_mph`), or ''. */
function mediaSql(s: string, q: Q, relatedType: string, field: string, id: string, baseSql: string, caption?: string): string {
  return `coalesce((SELECT ${s}.strapi_figure(f.url, coalesce(f.alternative_text, ''), ${caption ?? 'f.caption'}, ${baseSql})
    FROM ${q('files_related_mph')} m JOIN ${q('files')} f ON f.id = m.file_id
    WHERE m.related_id = ${id} AND m.related_type = ${literal(relatedType)} AND m.field = ${literal(field)} ORDER BY m."order", m.id LIMIT 1), '')`;
}

/** The HTML of a text field by its editor. */
function fieldHtml(s: string, a: StrapiAttribute, value: string, baseSql: string): string | undefined {
  if (a.type === 'blocks') return `${s}.strapi_blocks_html(${value}, ${baseSql})`;
  if (a.type === 'richtext') return `${s}.strapi_markdown_html(${value}, ${baseSql})`;
  if (a.type === 'string' || a.type === 'text') return `CASE WHEN coalesce(btrim(${value}), '') <> '' THEN '<p>' || ${s}.strapi_escape(${value}) || '</p>' ELSE '' END`;
  return undefined;
}

/**
 * A component's HTML, its fields in the model's order: text as paragraphs (a `quote` field makes a
 * quotation, its other text fields its attribution), rich text and blocks rendered, media as a
 * figure (captioned by the component's `caption` field when it has one). Other field types are not
 * rendered (the report names them).
 */
function componentHtml(s: string, q: Q, c: PlannedZone['components'][number], baseSql: string): string {
  const attrs = new Map(c.attributes);
  const hasCaption = attrs.get('caption')?.type === 'string' || attrs.get('caption')?.type === 'text';
  const hasMedia = c.attributes.some(([, a]) => a.type === 'media');
  if (attrs.has('quote')) {
    const others = c.attributes.filter(([n, a]) => n !== 'quote' && (a.type === 'string' || a.type === 'text'));
    return `'<blockquote><p>' || ${s}.strapi_escape(y.${ident('quote')}) || '</p>'${others.map(([n]) => ` || CASE WHEN coalesce(btrim(y.${ident(snakeColumn(n))}), '') <> '' THEN '<p>— ' || ${s}.strapi_escape(y.${ident(snakeColumn(n))}) || '</p>' ELSE '' END`).join('')} || '</blockquote>'`;
  }
  const parts = c.attributes.flatMap(([n, a]) => {
    if (a.type === 'media') return [mediaSql(s, q, c.uid, n, 'y.id', baseSql, hasCaption ? `coalesce(nullif(btrim(y.${ident('caption')}), ''), f.caption)` : undefined)];
    if (n === 'caption' && hasCaption && hasMedia) return [];
    const html = fieldHtml(s, a, `y.${ident(snakeColumn(n))}`, baseSql);
    return html ? [html] : [];
  });
  return parts.length ? parts.join(' || ') : `''`;
}

function zoneSql(s: string, q: Q, z: PlannedZone, baseSql: string): string {
  const branches = z.components.map((c) =>
    `WHEN ${literal(c.uid)} THEN coalesce((SELECT ${componentHtml(s, q, c, baseSql)} FROM ${q(c.table)} y WHERE y.id = c.cmp_id), '')`);
  return `coalesce((SELECT string_agg(CASE c.component_type ${branches.join(' ')} ELSE '' END, '' ORDER BY c."order", c.id)
    FROM ${q(z.table)} c WHERE c.entity_id = x.id AND c.field = ${literal(z.field)}), '')`;
}

/** `strapi_body_<k>(document)`: the body HTML of each published locale, read only for the rows a statement returns. */
function bodyFunctionSql(plan: StrapiPlan, t: PlannedType, s: string, q: Q, baseSql: string): string {
  const parts = [
    ...(t.cover ? [mediaSql(s, q, t.uid, t.cover, 'x.id', baseSql)] : []),
    ...(t.body ? [fieldHtml(s, t.type.attributes.get(t.body.field)!, col('x', t.body.field), baseSql)!] : []),
    ...t.zones.map((z) => zoneSql(s, q, z, baseSql)),
  ];
  return `-- The body of a ${t.uid} document, per published locale.
CREATE OR REPLACE FUNCTION ${s}.${ident(`strapi_body_${t.number}`)}(doc text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_object_agg(${langOf(plan, 'x')}, ${parts.length ? parts.join('\n    || ') : `''`}), '{}'::jsonb)
  FROM ${q(t.type.table)} x WHERE x.document_id = doc AND ${publishedRows(s, 'x')}
$$;`;
}

/** The columns of `rsc` the recipe keeps, in order. */
export const RSC_COLUMNS = ['id', 'name', 'category_id', 'is_published', 'visibility', 'publication_start', 'publication_end', 'created', 'modified',
  'language', 'title', 'summary', 'body', 'blocks', 'props', 'seo_noindex', 'uri', 'license', 'attribution', 'fts', 'page_url'] as const;

/** The columns of `edge`, in order. */
export const EDGE_COLUMNS = ['id', 'subject_id', 'predicate_id', 'object_id', 'seq', 'created'] as const;

/**
 * The rows of `rsc` of a served type: one per document with a published row, or only the documents
 * `filter` names (an SQL condition on the row `x`, e.g. `x.document_id = ANY (docs)`). The type's state
 * is computed once per statement.
 */
export function rscLeg(plan: StrapiPlan, t: PlannedType, s: string, filter?: string): string {
  const q = strapiTable(plan.request.strapiSchema);
  const cfg = `${literal(plan.request.textSearch)}::regconfig`;
  const lang = literal(plan.language);
  const l = langOf(plan, 'x');
  const text = (field: string | undefined) => (field ? `coalesce(${col('x', field)}::text, '')` : `''`);
  const bodyText = t.body?.format === 'blocks' ? `${s}.strapi_blocks_text(${col('x', t.body.field)})` : text(t.body?.field);
  return `SELECT ${t.number}::bigint * ${ITEM_SPAN} + ${s}.strapi_item(x.document_id) AS id, NULL::text AS name, ${t.categoryId}::bigint AS category_id,
  true AS is_published, (SELECT ${stateOf(s, t)}) AS visibility,
  min(x.published_at) AT TIME ZONE 'UTC' AS publication_start, NULL::timestamptz AS publication_end,
  min(x.created_at) AT TIME ZONE 'UTC' AS created, max(coalesce(x.updated_at, x.created_at)) AT TIME ZONE 'UTC' AS modified,
  array_agg(${l} ORDER BY ${l} = ${lang} DESC, ${l}) AS language,
  jsonb_object_agg(${l}, ${text(t.title)}) AS title, jsonb_object_agg(${l}, ${text(t.summary)}) AS summary,
  ${s}.${ident(`strapi_body_${t.number}`)}(x.document_id) AS body,
  '[]'::jsonb AS blocks, '{}'::jsonb AS props, false AS seo_noindex, NULL::text AS uri, NULL::jsonb AS license, NULL::jsonb AS attribution,
  to_tsvector(${cfg}, string_agg(concat_ws(' ', ${text(t.title)}, ${text(t.summary)}, ${bodyText}), ' ' ORDER BY ${l}, x.id)) AS fts,
  jsonb_object_agg(${l}, ${pageUrlSql(plan, t, 'x')}) AS page_url
FROM ${q(t.type.table)} x WHERE ${publishedRows(s, 'x')}${filter ? ` AND ${filter}` : ''}
GROUP BY x.document_id`;
}

/** The vocabulary as resources: the roots, a category per served type, a predicate per relation (public while both its types are). */
function vocabularySql(plan: StrapiPlan, s: string): string {
  const lang = literal(plan.language);
  const vocab = [
    [VOCABULARY.meta, 'meta', 'Vocabulary', `'public'`],
    [VOCABULARY.category, 'category', 'Categories', `'public'`],
    [VOCABULARY.predicate, 'predicate', 'Relations', `'public'`],
    ...plan.types.map((t) => [t.categoryId, t.categoryName, t.type.displayName, stateOf(s, t)] as const),
    ...plan.relations.map((r) => [r.id, r.name, `${r.subject.type.displayName} ${r.field}`,
      `CASE WHEN ${stateOf(s, r.subject)} = 'public' AND ${stateOf(s, r.object)} = 'public' THEN 'public' ELSE 'restricted' END`] as const),
  ];
  const categoryOf = (id: number) => (id === VOCABULARY.meta || id === VOCABULARY.category || id === VOCABULARY.predicate || plan.types.some((t) => t.categoryId === id)
    ? VOCABULARY.category : VOCABULARY.predicate);
  const legs = vocab.map(([id, name, title, visibility]) => `SELECT ${id}::bigint, ${literal(String(name))}, ${categoryOf(Number(id))}::bigint, true, ${visibility},
  '2000-01-01T00:00:00Z'::timestamptz, NULL::timestamptz, '2000-01-01T00:00:00Z'::timestamptz, '2000-01-01T00:00:00Z'::timestamptz, ARRAY[${lang}],
  jsonb_build_object(${lang}, ${literal(String(title))}), '{}'::jsonb, '{}'::jsonb, '[]'::jsonb, '{}'::jsonb, false, NULL::text, NULL::jsonb, NULL::jsonb,
  ''::tsvector, NULL::jsonb`);
  return `SELECT * FROM (
${legs.join('\nUNION ALL\n')}
) AS v (${RSC_COLUMNS.join(', ')})`;
}

function categorySql(plan: StrapiPlan, s: string): string {
  const rows = [
    `(${VOCABULARY.meta}::bigint, NULL::bigint, false)`, `(${VOCABULARY.category}, ${VOCABULARY.meta}, false)`, `(${VOCABULARY.predicate}, ${VOCABULARY.meta}, false)`,
    ...plan.types.map((t) => `(${t.categoryId}, NULL, false)`),
  ];
  const constraints = plan.relations.flatMap((r) => [`(${r.id}::bigint, true, ${r.subject.categoryId}::bigint)`, `(${r.id}, false, ${r.object.categoryId})`]);
  return `CREATE VIEW ${s}.category AS SELECT * FROM (VALUES ${rows.join(', ')}) AS c (id, parent_id, is_noindex);
CREATE VIEW ${s}.predicate_category AS ${constraints.length
    ? `SELECT * FROM (VALUES ${constraints.join(', ')}) AS p (predicate_id, is_subject, category_id)`
    : 'SELECT 0::bigint AS predicate_id, true AS is_subject, 0::bigint AS category_id WHERE false'};`;
}

/**
 * The edges of a relation between published rows of served types, one per pair of documents; or only
 * those `filter` names (an SQL condition on the subject row `a`, the link `l` or the object row `b`).
 */
export function edgeLeg(plan: StrapiPlan, r: PlannedRelation, s: string, filter?: string): string {
  const q = strapiTable(plan.request.strapiSchema);
  const i = plan.relations.indexOf(r);
  return `SELECT ${i + 1}::bigint * ${ITEM_SPAN} + min(l.id) AS id,
  ${r.subject.number}::bigint * ${ITEM_SPAN} + ${s}.strapi_item(a.document_id) AS subject_id, ${r.id}::bigint AS predicate_id,
  ${r.object.number}::bigint * ${ITEM_SPAN} + ${s}.strapi_item(b.document_id) AS object_id,
  ${r.link.order ? `coalesce(min(l.${ident(r.link.order)}), 0)::integer` : '0'} AS seq, min(a.created_at) AT TIME ZONE 'UTC' AS created
FROM ${q(r.subject.type.table)} a JOIN ${q(r.link.table)} l ON l.${ident(r.link.source)} = a.id JOIN ${q(r.object.type.table)} b ON b.id = l.${ident(r.link.target)}
WHERE ${publishedRows(s, 'a')} AND ${publishedRows(s, 'b')}${filter ? ` AND ${filter}` : ''}
GROUP BY a.document_id, b.document_id`;
}

/**
 * What is served without a part, or hidden, and why: the plugin's `access_notice` (doctor, the admin
 * page), a view in the recipe's schema `s` read live (from Strapi's tables and the live schema).
 */
export function noticeSql(plan: StrapiPlan, recipe: string, s: string): string {
  const q = strapiTable(plan.request.strapiSchema);
  const legs = plan.types.flatMap((t) => {
    const table = q(t.type.table);
    const out = [
      `SELECT ${literal(t.uid)}, format('the model Strapi stored no longer lets the Public role read every field the recipe serves (%s): hidden until the recipe is generated again', ${literal(t.served.join(', '))})
WHERE ${stateOf(s, t)} = 'closed' AND NOT EXISTS (SELECT 1 FROM ${s}.broken b WHERE b.uid = ${literal(t.uid)})`,
      `SELECT ${literal(t.uid)}, format('row %s (document %s): the locale "%s" is not a language tag; that version is not served', x.id, x.document_id, x.locale)
FROM ${table} x WHERE x.published_at IS NOT NULL AND NOT ${s}.strapi_locale_ok(x.locale)`,
    ];
    if (t.body?.format === 'blocks') {
      out.push(`SELECT ${literal(t.uid)}, format('row %s (document %s, locale %s), field ${t.body.field}: %s; the rest is served', x.id, x.document_id, coalesce(x.locale, '-'), ${s}.strapi_blocks_problems(${col('x', t.body.field)}))
FROM ${table} x WHERE ${publishedRows(s, 'x')} AND ${s}.strapi_blocks_problems(${col('x', t.body.field)}) IS NOT NULL`);
    }
    for (const z of t.zones) {
      out.push(`SELECT ${literal(t.uid)}, format('row %s (document %s, locale %s), dynamic zone ${z.field}: the component %s is not in the model the recipe was generated from, left out (generate the recipe again)', x.id, x.document_id, coalesce(x.locale, '-'), c.component_type)
FROM ${table} x JOIN ${q(z.table)} c ON c.entity_id = x.id AND c.field = ${literal(z.field)}
WHERE ${publishedRows(s, 'x')} AND c.component_type NOT IN (${z.components.map((c) => literal(c.uid)).join(', ') || `''`})`);
      for (const c of z.components) {
        for (const [n, a] of c.attributes) {
          if (a.type !== 'blocks') continue;
          out.push(`SELECT ${literal(t.uid)}, format('row %s (document %s), component ${c.uid} %s, field ${n}: %s; the rest is served', x.id, x.document_id, y.id, ${s}.strapi_blocks_problems(y.${ident(snakeColumn(n))}))
FROM ${table} x JOIN ${q(z.table)} c ON c.entity_id = x.id AND c.field = ${literal(z.field)} AND c.component_type = ${literal(c.uid)} JOIN ${q(c.table)} y ON y.id = c.cmp_id
WHERE ${publishedRows(s, 'x')} AND ${s}.strapi_blocks_problems(y.${ident(snakeColumn(n))}) IS NOT NULL`);
        }
      }
    }
    return out;
  });
  return `CREATE VIEW ${recipe}.access_notice AS
SELECT subject::text, notice::text FROM (
${[`SELECT uid, notice FROM ${s}.broken`, ...legs].join('\nUNION ALL\n')}
) AS n (subject, notice);`;
}

