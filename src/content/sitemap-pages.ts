import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { fromResourcesWithCategory } from './summaries.js';
import { listable, type SiteNoindex } from './visibility.js';

/** A listable resource as the sitemap needs it: what builds its page URLs, its languages and its last change. */
export interface SitemapRow {
  id: number;
  name: string | null;
  language: unknown;
  page_url: unknown;
  lastmod: Date;
  category_name: string | null;
}

/**
 * The listable resources (search's rule: anonymous-visible, indexable, not vocabulary) from id `from`
 * on, by id, at most `limit`: one part of the sitemap, walked on the primary key.
 *
 * ```sql
 * SELECT r.id, r.name, r.language, r.page_url, greatest(r.modified, r.publication_start) AS lastmod, cat.name
 * FROM rsc r LEFT JOIN rsc cat ON <r's public category>
 * WHERE <listable r> AND r.id >= $from ORDER BY r.id LIMIT $n
 * ```
 */
export async function sitemapRows(db: Kysely<Database>, siteNoindex: SiteNoindex, from: number, limit: number): Promise<SitemapRow[]> {
  const rows = await fromResourcesWithCategory(db)
    .select(['r.id', 'r.name', 'r.language', 'r.page_url', 'cat.name as category_name'])
    .select(sql<Date>`greatest(r.modified, r.publication_start)`.as('lastmod'))
    .where(listable(siteNoindex, 'r'))
    .where('r.id', '>=', from)
    .orderBy('r.id')
    .limit(limit)
    .execute();
  return rows as SitemapRow[];
}

/** One part of a sitemap index: the id its resources start at, and the latest change among them. */
export interface SitemapPart {
  from: number;
  lastmod: Date;
}

/**
 * The parts of the sitemap index: the listable resources by id in runs of `perPart`, each as its first
 * id and its latest change. One pass over the listable ids (the primary key in order).
 *
 * ```sql
 * SELECT min(id) AS from, max(lastmod) AS lastmod FROM (
 *   SELECT r.id, greatest(r.modified, r.publication_start) AS lastmod, (row_number() OVER (ORDER BY r.id) - 1) / $per AS part
 *   FROM rsc r WHERE <listable r>) p
 * GROUP BY part ORDER BY part
 * ```
 */
export async function sitemapParts(db: Kysely<Database>, siteNoindex: SiteNoindex, perPart: number): Promise<SitemapPart[]> {
  const { rows } = await sql<{ from: string | number; lastmod: Date }>`
    SELECT min(p.id) AS "from", max(p.lastmod) AS "lastmod" FROM (
      SELECT r.id, greatest(r.modified, r.publication_start) AS lastmod, (row_number() OVER (ORDER BY r.id) - 1) / ${perPart} AS part
      FROM rsc r WHERE ${listable(siteNoindex, 'r')}
    ) p GROUP BY p.part ORDER BY p.part`.execute(db);
  return rows.map((r) => ({ from: Number(r.from), lastmod: r.lastmod }));
}

/**
 * Which of `ids` are listable now (search's rule), for a submission of changed pages to search engines.
 *
 * ```sql
 * SELECT r.id FROM rsc r WHERE r.id = ANY($ids) AND <listable r>
 * ```
 */
export async function listableAmong(db: Kysely<Database>, siteNoindex: SiteNoindex, ids: readonly number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db
    .selectFrom('rsc as r')
    .select('r.id')
    .where(sql<boolean>`r.id = ANY(${[...ids]}::bigint[])`)
    .where(listable(siteNoindex, 'r'))
    .execute();
  return new Set(rows.map((r) => Number(r.id)));
}
