import { sql, type Kysely } from 'kysely';
import type { z } from 'zod';
import { describeRef, type PushDatabase } from './external-ids.js';
import { languageMap, resourceLanguages } from './localized-columns.js';
import { modelCategoryIds } from './model-vocabulary.js';
import { ContentPushError, type ContentPushErrorCode } from './push-error.js';
import { RefKeys, resolvedRefs } from './ref-keys.js';
import { MAX_HOST_ID, type resourceInput } from './resource-input.js';
import { freeId, NEXT_ID, reservedIdProblem, reserveIds } from './surrogate-ids.js';

/** A resource after validation. */
export type ParsedResource = z.output<typeof resourceInput>;

/** A resource of a batch and its position in what the caller passed (undefined for `put`'s one resource). */
export interface BatchResource {
  readonly index: number | undefined;
  readonly resource: ParsedResource;
}

/** A row of the statement's JSON: the `rsc` columns, the id as given, and the key of its category. */
export interface ResourceRow {
  ord: number;
  id: number | null;
  external_id: string | null;
  alloc: number | null;
  category: number;
  name: string | null;
  is_published: boolean;
  visibility: string;
  publication_start: string | null;
  publication_end: string | null;
  modified: string | null;
  created: string | null;
  language: string[];
  title: Record<string, string>;
  summary: Record<string, string>;
  body: Record<string, string>;
  blocks: unknown[];
  props: Record<string, unknown>;
  seo_noindex: boolean;
  uri: string | null;
  license: unknown;
  attribution: unknown;
  page_url: unknown;
}

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);
const localizedOrNull = (value: ParsedResource['license'], languages: string[]) => (value === null || value === undefined ? null : typeof value === 'string' ? value : languageMap(value, languages));

/** The statement's row of a resource (its languages settled, its text as per-language maps). */
export function resourceRow(call: string, ord: number, r: ParsedResource, category: number, defaultLanguage: string): ResourceRow {
  const languages = resourceLanguages(call, r.language, { title: r.title, summary: r.summary, body: r.body }, defaultLanguage);
  return {
    ord,
    id: typeof r.id === 'number' ? r.id : null,
    external_id: typeof r.id === 'string' ? r.id : null,
    alloc: null,
    category,
    name: r.name ?? null,
    is_published: r.is_published,
    visibility: r.visibility,
    publication_start: iso(r.publication_start),
    publication_end: iso(r.publication_end),
    modified: iso(r.modified),
    created: iso(r.created),
    language: languages,
    title: languageMap(r.title, languages),
    summary: languageMap(r.summary, languages),
    body: languageMap(r.body, languages),
    blocks: r.blocks ?? [],
    props: r.props ?? {},
    seo_noindex: r.seo_noindex,
    uri: r.uri ?? null,
    license: localizedOrNull(r.license, languages),
    attribution: localizedOrNull(r.attribution, languages),
    page_url: r.page_url ?? null,
  };
}

/** A row of the statement's answer: a problem of an input row, or what became of it. */
interface Outcome {
  ord: number | null;
  outcome: string;
  detail: string | null;
  id: string | number | null;
}

/**
 * The one statement that writes a batch of resources, or nothing when any of them is refused.
 * Every check reads the rows as they are; the writes run only when no row has a problem:
 *
 * ```sql
 * WITH input AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(ord int, id bigint, external_id text, …)),
 *   category_of AS (…each distinct category reference resolved…),
 *   fresh AS (SELECT external_id, 1000000000000000 - nextval(pg_get_serial_sequence('rsc', 'id')) AS id …new string ids…),
 *   target AS (SELECT i.*, coalesce(i.id, m.rsc_id, f.id) AS target_id, <stored?>, <category found?>, …),
 *   problems AS (SELECT ord, CASE WHEN <category missing> THEN 'category_missing' … WHEN <name taken> THEN 'name_taken' END …
 *     -- the first of: category missing, ambiguous, not a category, vocabulary; a new id above the host's
 *     -- ids (or one of the writer's own there); id a category or another
 *     -- string id's; a fresh id taken; publication_end before the start given or stored; name taken),
 *   writes AS (SELECT DISTINCT ON (target_id) * FROM target WHERE NOT EXISTS (SELECT 1 FROM problems) ORDER BY target_id, ord DESC),
 *   mapped AS (INSERT INTO agent_discovery_external_id … ON CONFLICT (external_id) DO NOTHING RETURNING external_id),
 *   updated AS (UPDATE rsc SET … FROM writes w WHERE rsc.id = w.target_id AND w.stored RETURNING rsc.id),
 *   inserted AS (INSERT INTO rsc (…) SELECT … FROM writes w WHERE NOT w.stored AND <its mapping was made> RETURNING id)
 * SELECT <problems> UNION ALL SELECT ord, 'written' | 'lost', target_id …
 * ```
 *
 * A row is `lost` only when another writer got in between (it mapped the same new string id, or
 * removed the resource being updated); the caller runs those rows again.
 */
function batchStatement(rowsJson: string, refsJson: string) {
  return sql<Outcome>`
    WITH input AS MATERIALIZED (
      SELECT * FROM jsonb_to_recordset(${rowsJson}::jsonb) AS x(
        ord int, id bigint, external_id text, alloc bigint, category int, name text, is_published boolean, visibility text,
        publication_start timestamptz, publication_end timestamptz, modified timestamptz, created timestamptz,
        language text[], title jsonb, summary jsonb, body jsonb, blocks jsonb, props jsonb, seo_noindex boolean,
        uri text, license jsonb, attribution jsonb, page_url jsonb)
    ),
    model AS MATERIALIZED (SELECT id FROM ${modelCategoryIds()} m),
    category_of AS MATERIALIZED (
      SELECT k.key, k.found, k.id, EXISTS (SELECT 1 FROM category c WHERE c.id = k.id) AS is_category, k.id IN (SELECT id FROM model) AS is_model
      FROM (${resolvedRefs(refsJson)}) k
    ),
    fresh AS MATERIALIZED (
      SELECT n.external_id, coalesce(n.alloc, ${NEXT_ID}) AS id
      FROM (SELECT DISTINCT ON (i.external_id) i.external_id, i.alloc FROM input i
            WHERE i.external_id IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM agent_discovery_external_id m WHERE m.external_id = i.external_id)
            ORDER BY i.external_id, i.alloc NULLS LAST) n
    ),
    target AS MATERIALIZED (
      SELECT i.*, coalesce(i.id, m.rsc_id, f.id) AS target_id, f.id IS NOT NULL AS is_new_mapping,
        s.id IS NOT NULL AS stored, s.category_id IN (SELECT id FROM model) AS stored_model, s.publication_start AS stored_start,
        c.found AS category_found, c.id AS category_id, c.is_category, c.is_model,
        (SELECT o.external_id FROM agent_discovery_external_id o WHERE o.rsc_id = i.id) AS surrogate_of
      FROM input i
      LEFT JOIN agent_discovery_external_id m ON m.external_id = i.external_id
      LEFT JOIN fresh f ON f.external_id = i.external_id
      LEFT JOIN rsc s ON s.id = coalesce(i.id, m.rsc_id, f.id)
      JOIN category_of c ON c.key = i.category
    ),
    duplicate_names AS (
      SELECT name, min(ord) AS first_ord, (array_agg(target_id ORDER BY ord))[1] AS first_target
      FROM target WHERE name IS NOT NULL GROUP BY name HAVING count(DISTINCT target_id) > 1
    ),
    problems AS (
      SELECT p.ord, p.problem, CASE
          WHEN p.problem IN ('category_not_category', 'category_model') THEN p.category_id::text
          WHEN p.problem IN ('id_model', 'id_reserved') THEN p.target_id::text
          WHEN p.problem = 'id_surrogate' THEN p.surrogate_of
          WHEN p.problem = 'alloc' THEN p.external_id
          WHEN p.problem = 'window' THEN to_char(coalesce(p.publication_start, p.stored_start, now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          ELSE p.name
        END AS detail
      FROM (
        SELECT t.*, CASE
            WHEN t.category_found = 0 THEN 'category_missing'
            WHEN t.category_found > 1 THEN 'category_ambiguous'
            WHEN NOT t.is_category THEN 'category_not_category'
            WHEN t.is_model THEN 'category_model'
            WHEN t.id > ${MAX_HOST_ID} AND NOT t.stored THEN 'id_reserved'
            WHEN t.stored_model AND NOT t.is_new_mapping THEN 'id_model'
            WHEN t.surrogate_of IS NOT NULL THEN 'id_surrogate'
            WHEN t.is_new_mapping AND (t.stored OR NOT ${freeId(sql`t.target_id`)} OR t.target_id IN (SELECT id FROM input WHERE id IS NOT NULL)) THEN 'alloc'
            WHEN t.publication_end < coalesce(t.publication_start, t.stored_start, now()) THEN 'window'
            WHEN t.name IS NOT NULL AND (
                (d.first_ord < t.ord AND d.first_target <> t.target_id)
                OR EXISTS (SELECT 1 FROM rsc r WHERE r.name = t.name AND r.id <> t.target_id AND r.id NOT IN (SELECT target_id FROM target)))
              THEN 'name_taken'
          END AS problem
        FROM target t LEFT JOIN duplicate_names d ON d.name = t.name
      ) p
      WHERE p.problem IS NOT NULL
    ),
    writes AS MATERIALIZED (
      SELECT DISTINCT ON (t.target_id) t.* FROM target t
      WHERE NOT EXISTS (SELECT 1 FROM problems)
      ORDER BY t.target_id, t.ord DESC
    ),
    mapped AS (
      INSERT INTO agent_discovery_external_id (external_id, rsc_id)
      SELECT w.external_id, w.target_id FROM writes w WHERE w.is_new_mapping
      ON CONFLICT (external_id) DO NOTHING
      RETURNING external_id
    ),
    updated AS (
      UPDATE rsc SET name = w.name, category_id = w.category_id, is_published = w.is_published, visibility = w.visibility,
        publication_start = coalesce(w.publication_start, rsc.publication_start), publication_end = w.publication_end,
        created = coalesce(w.created, rsc.created), modified = coalesce(w.modified, now()), language = w.language,
        title = w.title, summary = w.summary, body = w.body, blocks = w.blocks, props = w.props, seo_noindex = w.seo_noindex,
        uri = w.uri, license = w.license, attribution = w.attribution, page_url = w.page_url
      FROM writes w WHERE rsc.id = w.target_id AND w.stored
      RETURNING rsc.id
    ),
    inserted AS (
      INSERT INTO rsc (id, name, category_id, is_published, visibility, publication_start, publication_end, created, modified,
        language, title, summary, body, blocks, props, seo_noindex, uri, license, attribution, page_url)
      SELECT w.target_id, w.name, w.category_id, w.is_published, w.visibility, coalesce(w.publication_start, now()), w.publication_end,
        coalesce(w.created, now()), coalesce(w.modified, now()), w.language, w.title, w.summary, w.body, w.blocks, w.props,
        w.seo_noindex, w.uri, w.license, w.attribution, w.page_url
      FROM writes w
      WHERE NOT w.stored AND (NOT w.is_new_mapping OR w.external_id IN (SELECT external_id FROM mapped))
      RETURNING id
    )
    SELECT p.ord, p.problem AS outcome, p.detail, NULL::bigint AS id FROM problems p
    UNION ALL
    SELECT t.ord, CASE WHEN t.target_id IN (SELECT id FROM updated UNION ALL SELECT id FROM inserted) THEN 'written' ELSE 'lost' END, NULL, t.target_id
    FROM target t WHERE NOT EXISTS (SELECT 1 FROM problems)`;
}

/** A problem the statement found, as the push error that names it. */
function problemError(call: string, problem: string, detail: string | null, item: BatchResource): ContentPushError {
  const r = item.resource;
  const refuse = (code: ContentPushErrorCode, field: string, message: string) => new ContentPushError(call, code, field, message, { index: item.index });
  switch (problem) {
    case 'category_missing':
      return refuse('not_found', 'category', `no resource has ${describeRef(r.category)}`);
    case 'category_ambiguous':
      return refuse('conflict', 'category', `${describeRef(r.category)} is one resource's name and another's string id: say { name } or { externalId }`);
    case 'category_not_category':
      return refuse('not_found', 'category', `resource ${detail} is not a category`);
    case 'category_model':
      return refuse('not_allowed', 'category', `category ${detail} holds vocabulary: use putCategory or putPredicate`);
    case 'id_reserved':
      return refuse('invalid_input', 'id', reservedIdProblem(r.id as number) ?? `${String(r.id)} is one of the ids the writer chooses`);
    case 'id_model':
      return refuse('not_allowed', 'id', `${String(r.id)} is a category or predicate: write it with putCategory or putPredicate${typeof r.id === 'number' && reservedIdProblem(r.id) ? ` (${reservedIdProblem(r.id)})` : ''}`);
    case 'id_surrogate':
      return refuse('conflict', 'id', `${String(r.id)} is the numeric id of the string id '${detail}': put it by that string id`);
    case 'window':
      return refuse('invalid_input', 'publication_end', `must not be before publication_start (${detail})`);
    default:
      return refuse('conflict', 'name', `'${detail ?? ''}' is already the name of another resource`);
  }
}

/**
 * Writes a batch of resources in one statement (see `batchStatement`): all of them, or none and the
 * push error of the first item refused. Returns the `rsc` id of each, in order. Runs again only for
 * what another writer got in between (`lost`), and after reserving ids when new string ids met ids
 * in use (`alloc`): the first run wrote nothing of those rows.
 */
export async function putResources(db: Kysely<PushDatabase>, call: string, items: readonly BatchResource[], defaultLanguage: string): Promise<number[]> {
  const refs = new RefKeys();
  const rows = items.map((item, ord) => {
    try {
      return resourceRow(call, ord, item.resource, refs.key(item.resource.category), defaultLanguage);
    } catch (error) {
      throw error instanceof ContentPushError && item.index !== undefined ? error.atIndex(item.index) : error;
    }
  });
  const ids: number[] = new Array<number>(items.length);
  let pending = rows;
  for (let round = 0; pending.length; round++) {
    if (round > 5) throw new ContentPushError(call, 'conflict', undefined, 'other writers kept changing the same resources: retry', { retryable: true, index: items[pending[0]!.ord]!.index });
    const { rows: outcomes } = await batchStatement(JSON.stringify(pending), refs.json()).execute(db);
    const problems = outcomes.filter((o) => o.outcome !== 'written' && o.outcome !== 'lost');
    const refused = problems.filter((p) => p.outcome !== 'alloc').sort((a, b) => a.ord! - b.ord!);
    if (refused[0]) throw problemError(call, refused[0].outcome, refused[0].detail, items[refused[0].ord!]!);
    if (problems.length) {
      const clashing = [...new Set(problems.map((p) => p.detail!))];
      const exclude = pending.flatMap((r) => (r.id === null ? [] : [r.id]));
      const fresh = await reserveIds(db, clashing.length, exclude);
      for (const [i, externalId] of clashing.entries()) for (const row of pending) if (row.external_id === externalId) row.alloc = fresh[i]!;
      continue;
    }
    for (const o of outcomes) if (o.outcome === 'written') ids[o.ord!] = Number(o.id);
    const lost = new Set(outcomes.filter((o) => o.outcome === 'lost').map((o) => o.ord!));
    pending = pending.filter((r) => lost.has(r.ord));
  }
  return ids;
}
