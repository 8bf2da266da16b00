import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database, LocalizedText } from '../db/schema.js';
import { fromEpoch, runtimeValue } from './keyset.js';
import { anonymousVisible, notMeta } from './visibility.js';
import { optionalColumn } from '../db/content-binding.js';

/** What an entry of the change feed is: a public resource that changed, or an id that stopped being public. */
export const CHANGE_KIND = { changed: 0, removed: 1 } as const;

/**
 * A place in the change feed, in its order: the entry's time (whole seconds since the epoch and the
 * microseconds within the second, exact at PostgreSQL's precision), its kind, its id.
 */
export type ChangePosition = readonly [seconds: number, micros: number, kind: number, id: number];

export interface ChangesQuery {
  /** Entries after this position (a `since` instant is `[s, us, -1, 0]`: everything at it or later). */
  after: ChangePosition;
  offset: number;
  limit: number;
}

/** One entry as read: a removal has only its id and time; a change the resource's fields for its item. */
export interface ChangeRow {
  kind: number;
  id: number;
  at: Date;
  at_s: number | string;
  at_us: number | string;
  name: string | null;
  language: unknown;
  modified: Date | null;
  page_url: LocalizedText | null;
  category_name: string | null;
}

/**
 * Expired after having been public: published, public, its window ended, and its latest change before
 * that end (so it was listed as changed before it ended). The feed lists it as removed at
 * `publication_end`, a change no write shows. The same rule as migration 0009's trigger.
 *
 * ```sql
 * (r.is_published AND r.visibility = 'public' AND r.publication_end <= now()
 *   AND greatest(r.modified, r.publication_start) < r.publication_end)
 * ```
 */
export function expiredAfterPublic(alias: string): RawBuilder<SqlBool> {
  const col = (c: string) => sql.ref(`${alias}.${c}`);
  return sql<SqlBool>`(${col('is_published')} AND ${col('visibility')} = 'public' AND ${col('publication_end')} <= now()
    AND greatest(${col('modified')}, ${col('publication_start')}) < ${col('publication_end')})`;
}

/** The time of a resource's latest change the content shows: its `modified`, or its publication start when later. */
const changedAt = (alias: string) => sql`greatest(${sql.ref(`${alias}.modified`)}, ${sql.ref(`${alias}.publication_start`)})`;

/**
 * One page of the change feed after a position, in the feed's order (time, kind, id): every public
 * resource that has a page (not vocabulary: categories and predicates are `meta`, as search and the
 * sitemap leave them out) once, at its latest change (`greatest(modified, publication_start)`, or the time the
 * visibility log says it became public or changed again, when that is later); every id whose latest
 * logged change is that it stopped being public; every resource that expired after having been
 * public, at its end. A removal carries nothing of the resource but its id (the row is not even joined).
 *
 * ```sql
 * SELECT e.kind, e.id, e.at, <at as seconds, microseconds>, r.name, r.language, r.modified, r.page_url, cat.name
 * FROM (
 *   SELECT 0 AS kind, r.id, greatest(r.modified, r.publication_start) AS at FROM rsc r WHERE <anonymous-visible r> AND <not meta r> AND <no later public log entry>
 *   UNION ALL SELECT 0, l.id, l.at FROM agent_discovery_visibility_log l JOIN rsc r ON r.id = l.id WHERE l.public AND <anonymous-visible r> AND <not meta r> AND l.at > <r's change>
 *   UNION ALL SELECT 1, l.id, l.at FROM agent_discovery_visibility_log l WHERE NOT l.public
 *   UNION ALL SELECT 1, r.id, r.publication_end FROM rsc r WHERE <expired after public r>
 * ) e  -- each part also bounded by at >= $t and (at, kind, id) > ($t, $kind, $id), in that order, cut at offset + limit
 * LEFT JOIN rsc r ON e.kind = 0 AND r.id = e.id LEFT JOIN rsc cat ON <r's public category>
 * ORDER BY e.at, e.kind, e.id LIMIT $n
 * ```
 */
export async function readChanges(db: Kysely<Database>, q: ChangesQuery): Promise<ChangeRow[]> {
  const [seconds, micros, kind, id] = q.after;
  const t = fromEpoch(seconds, micros);
  const log = sql.table('agent_discovery_visibility_log');
  const changed = sql.lit(CHANGE_KIND.changed);
  const removed = sql.lit(CHANGE_KIND.removed);
  // Each part read in the feed's order and cut at the page's end (offset and limit): a page of the feed
  // reads about a page of each part through its index (rsc_changed_idx, the log's (at, id),
  // rsc_publication_end_idx), never the whole content; the union of the parts' first rows holds the
  // feed's first rows.
  const after = sql`(${t}, ${runtimeValue(kind)}::int, ${runtimeValue(id)})`;
  const cut = sql.lit(q.offset + q.limit);
  const statement = sql<ChangeRow>`
    SELECT e.kind AS "kind", e.id AS "id", e.at AS "at",
      floor(extract(epoch FROM e.at))::bigint AS "at_s",
      ((extract(epoch FROM e.at) - floor(extract(epoch FROM e.at))) * 1000000)::bigint AS "at_us",
      r.name AS "name", r.language AS "language", r.modified AS "modified", ${optionalColumn(db, 'r', 'page_url')} AS "page_url", cat.name AS "category_name"
    FROM (
      (SELECT ${changed} AS kind, c.id, ${changedAt('c')} AS at FROM rsc c
        WHERE ${anonymousVisible('c')} AND ${notMeta('c')} AND ${changedAt('c')} >= ${t}
          AND NOT EXISTS (SELECT 1 FROM ${log} l WHERE l.id = c.id AND l.public AND l.at > ${changedAt('c')})
          AND (${changedAt('c')}, ${changed}, c.id) > ${after}
        ORDER BY ${changedAt('c')}, c.id LIMIT ${cut})
      UNION ALL
      (SELECT ${changed}, l.id, l.at FROM ${log} l JOIN rsc c ON c.id = l.id
        WHERE l.public AND ${anonymousVisible('c')} AND ${notMeta('c')} AND l.at >= ${t} AND l.at > ${changedAt('c')}
          AND (l.at, ${changed}, l.id) > ${after}
        ORDER BY l.at, l.id LIMIT ${cut})
      UNION ALL
      (SELECT ${removed}, l.id, l.at FROM ${log} l WHERE NOT l.public AND l.at >= ${t}
          AND (l.at, ${removed}, l.id) > ${after}
        ORDER BY l.at, l.id LIMIT ${cut})
      UNION ALL
      (SELECT ${removed}, c.id, c.publication_end FROM rsc c
        WHERE ${expiredAfterPublic('c')} AND c.publication_end >= ${t}
          AND (c.publication_end, ${removed}, c.id) > ${after}
        ORDER BY c.publication_end, c.id LIMIT ${cut})
    ) e
    LEFT JOIN rsc r ON e.kind = ${changed} AND r.id = e.id
    LEFT JOIN rsc cat ON cat.id = r.category_id AND ${anonymousVisible('cat')}
    ORDER BY e.at, e.kind, e.id
    LIMIT ${q.limit}${q.offset ? sql` OFFSET ${q.offset}` : sql``}`;
  return (await statement.execute(db)).rows;
}

