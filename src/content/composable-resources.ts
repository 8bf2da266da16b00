import { sql, type Kysely } from 'kysely';
import type { Block, Database, LocalizedText } from '../db/schema.js';
import { anonymousVisible } from './visibility.js';
import { idValue } from './resource-ref.js';

/** What composition reads of a resource. Only anonymous-visible resources are ever loaded. */
export interface ComposableResource {
  id: number;
  name: string | null;
  category_id: number;
  /** The name of the resource's category. */
  category: string | null;
  language: string[];
  title: Record<string, string>;
  summary: Record<string, string>;
  body: Record<string, string>;
  blocks: Block[];
  props: Record<string, unknown>;
  uri: string | null;
  license: LocalizedText | null;
  attribution: LocalizedText | null;
  /** The CMS's own page URL (the contract's optional `page_url`), when the content supplies it. */
  page_url?: LocalizedText | null;
  /** The resource's own downloadable file, if it has one. */
  medium: ComposableMedium | null;
  /**
   * The names of its category and the category's ancestors (`categoryChains`), when the read that
   * loaded it selected them too (`categoryChainColumn`): composition then needs no query for them.
   */
  category_chain?: string[];
}

/** A resource's medium (its one downloadable file). */
export interface ComposableMedium {
  mime: string;
  filename: string;
  width: number | null;
  height: number | null;
  size: number | null;
}

/** A jsonb object or array column; anything else (a host view with odd data) reads as `fallback`. */
const jsonObject = <T extends object>(value: unknown, fallback: T): T =>
  value !== null && typeof value === 'object' && Array.isArray(value) === Array.isArray(fallback) ? (value as T) : fallback;

/**
 * Loads the anonymous-visible resources among `keys` (ids or unique names), in one query. Missing,
 * private, unpublished and out-of-window resources are simply absent from the result.
 *
 * ```sql
 * select "r"."id", …, "c"."name" as "category" from "rsc" as "r" left join "rsc" as "c" on "c"."id" = "r"."category_id"
 * where ("r"."id" in ($1) or "r"."name" in ($2)) and ("r"."is_published" AND "r"."visibility" = 'public' AND …)
 * ```
 */
export async function loadVisibleResources(
  db: Kysely<Database>,
  keys: readonly (number | string)[],
): Promise<ComposableResource[]> {
  const ids = keys.filter((k): k is number => typeof k === 'number');
  const names = keys.filter((k): k is string => typeof k === 'string');
  if (!ids.length && !names.length) return [];
  const rows = await db
    .selectFrom('rsc as r')
    // The category's name only when the category itself is public: a private category stays unnamed.
    .leftJoin('rsc as c', (join) => join.onRef('c.id', '=', 'r.category_id').on(anonymousVisible('c')))
    .leftJoin('medium as m', 'm.rsc_id', 'r.id')
    .select([
      'r.id', 'r.name', 'r.category_id', 'c.name as category', 'r.language', 'r.title', 'r.summary', 'r.body', 'r.blocks', 'r.props',
      'r.uri', 'r.license', 'r.attribution', 'r.page_url',
      'm.mime as medium_mime', 'm.filename as medium_filename', 'm.width as medium_width', 'm.height as medium_height', 'm.size as medium_size',
    ])
    .where((eb) => eb.or([...(ids.length ? [eb('r.id', 'in', ids.map(idValue))] : []), ...(names.length ? [eb('r.name', 'in', names)] : [])]))
    .where(anonymousVisible('r'))
    .execute();
  return rows.map(toComposable);
}

/** A row of `rsc` (with its visible category's name as `category`) as composition reads it. */
export function toComposable(r: {
  id: number;
  name: string | null;
  category_id: number;
  category: string | null;
  language: unknown;
  title: unknown;
  summary: unknown;
  body: unknown;
  blocks: unknown;
  props: unknown;
  uri: string | null;
  license: LocalizedText | null;
  attribution: LocalizedText | null;
  page_url?: LocalizedText | null;
  medium_mime?: string | null;
  medium_filename?: string | null;
  medium_width?: number | null;
  medium_height?: number | null;
  medium_size?: number | string | null;
  category_chain?: unknown;
}): ComposableResource {
  const chain = Array.isArray(r.category_chain) ? r.category_chain.filter((n): n is string => typeof n === 'string') : undefined;
  return {
    ...(chain ? { category_chain: chain } : {}),
    id: Number(r.id),
    name: r.name,
    category_id: Number(r.category_id),
    category: r.category ?? null,
    language: Array.isArray(r.language) ? r.language : [],
    title: jsonObject(r.title, {}),
    summary: jsonObject(r.summary, {}),
    body: jsonObject(r.body, {}),
    blocks: jsonObject<Block[]>(r.blocks, []).filter((b) => b !== null && typeof b === 'object'),
    props: jsonObject(r.props, {}),
    uri: r.uri,
    // jsonb arrives parsed: a license given as one string for all languages is a JSON string value.
    license: r.license ?? null,
    attribution: r.attribution ?? null,
    page_url: r.page_url ?? null,
    medium: r.medium_mime && r.medium_filename
      ? {
          mime: r.medium_mime,
          filename: r.medium_filename,
          width: r.medium_width ?? null,
          height: r.medium_height ?? null,
          size: r.medium_size === null || r.medium_size === undefined ? null : Number(r.medium_size),
        }
      : null,
  };
}

/** How far up the category tree template selection looks (a cycle in `parent_id` stops here too). */
export const MAX_CATEGORY_DEPTH = 32;

/**
 * The category names from each given category up to the root: the category's own name first, then
 * each ancestor's. One recursive query for all of them.
 *
 * ```sql
 * WITH RECURSIVE chain(start_id, id, depth) AS (SELECT id, id, 0 FROM category WHERE id IN (…)
 *   UNION ALL SELECT chain.start_id, c.parent_id, chain.depth + 1 FROM chain JOIN category c ON c.id = chain.id
 *   WHERE c.parent_id IS NOT NULL AND chain.depth < 32)
 * SELECT chain.start_id, r.name FROM chain JOIN rsc r ON r.id = chain.id ORDER BY chain.start_id, chain.depth
 * ```
 */
/**
 * `categoryChains` for the category of `rsc as <alias>`, as a column of the read itself (a correlated
 * subquery: one round trip fewer for a read that composes Markdown).
 *
 * ```sql
 * (WITH RECURSIVE chain(id, depth) AS (SELECT c.id, 0 FROM category c WHERE c.id = "r"."category_id" UNION ALL …)
 *  SELECT coalesce(array_agg(n.name ORDER BY chain.depth) FILTER (WHERE n.name IS NOT NULL), '{}') FROM chain JOIN rsc n ON n.id = chain.id)
 * ```
 */
export function categoryChainColumn(alias: string) {
  return sql<string[]>`(WITH RECURSIVE chain(id, depth) AS (
      SELECT c.id, 0 FROM category c WHERE c.id = ${sql.ref(`${alias}.category_id`)}
      UNION ALL
      SELECT c.parent_id, chain.depth + 1 FROM chain JOIN category c ON c.id = chain.id
      WHERE c.parent_id IS NOT NULL AND chain.depth < ${sql.lit(MAX_CATEGORY_DEPTH)}
    )
    SELECT coalesce(array_agg(n.name ORDER BY chain.depth) FILTER (WHERE n.name IS NOT NULL), '{}') FROM chain JOIN rsc n ON n.id = chain.id)`;
}

export async function categoryChains(db: Kysely<Database>, categoryIds: readonly number[]): Promise<Map<number, string[]>> {
  const chains = new Map<number, string[]>();
  const unique = [...new Set(categoryIds)];
  if (!unique.length) return chains;
  const result = await sql<{ start_id: number | string; name: string | null }>`
    WITH RECURSIVE chain(start_id, id, depth) AS (
      SELECT c.id, c.id, 0 FROM category c WHERE c.id IN (${sql.join(unique.map((id) => sql`${id}::bigint`))})
      UNION ALL
      SELECT chain.start_id, c.parent_id, chain.depth + 1 FROM chain JOIN category c ON c.id = chain.id
      WHERE c.parent_id IS NOT NULL AND chain.depth < ${MAX_CATEGORY_DEPTH}
    )
    SELECT chain.start_id, r.name FROM chain JOIN rsc r ON r.id = chain.id ORDER BY chain.start_id, chain.depth`.execute(db);
  for (const id of unique) chains.set(id, []);
  for (const row of result.rows) {
    if (row.name) chains.get(Number(row.start_id))?.push(row.name);
  }
  return chains;
}
