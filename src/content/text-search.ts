import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import { reusableQuery } from '../db/reusable-query.js';
import { categoryOfResource, SUMMARY_COLUMNS } from './summaries.js';
import {
  compiledSearchStatement,
  inSearchOrder,
  pageBounds,
  positionColumns,
  RESOURCE_COLUMNS,
  SEARCH_SHAPE,
  searchConditions,
  searchOrderTerms,
  searchPosition,
  searchStatement,
  tsQuery,
  whereAll,
  type SearchQuery,
  type TextSearchQuery,
} from './search-statement.js';

/**
 * Text search for rare words as well as common ones. The complete statement (`searchStatement`)
 * walks the sort's index and tests each row's text: a common word's page lies in the first rows, but
 * a rare or absent word crosses the whole table. So a text search runs one or two statements, each
 * exact on its own:
 * 1. the walk over the first rows after the position only (`textWalkStatement`, `textWalkRows` of
 *    them): when they hold the page, it is the answer, and a common word's page is one statement;
 * 2. else, when that walk found `TEXT_WALK_DENSE` matches or more (the word is not rare there), the
 *    complete statement for the rest of the page, after the last match found; otherwise text first
 *    (`textFirstStatement`: the page sorted from the matches read through the GIN index when there
 *    are at most `TEXT_CANDIDATE_BOUND`, else the complete statement).
 * Not one statement with all three: planning the text-first branches beside the walk would cost a
 * common word's page on every request (unnamed statements are planned each time); see
 * bench/README.md, "Rare words".
 */
export async function textSearchPage(db: Kysely<Database>, q: TextSearchQuery) {
  const { rows } = await db.executeQuery(reusableTextWalk(db, { ...q, walkRows: textWalkRows(q) }));
  // The rows keep their `past_bound` column (false): copying each row without it cost about 8 µs a page.
  const walked = rows.filter((r) => !r.past_bound);
  if (walked.length >= q.limit) return walked;
  // No row past the walk's bound: the walk reached the end (a small site), unless an OFFSET skipped that row.
  if (walked.length === rows.length && !q.offset) return walked;
  // At least this many matches were in the walk (an OFFSET page skips `offset` of them).
  const found = walked.length ? q.offset + walked.length : 0;
  if (found < TEXT_WALK_DENSE) return (await db.executeQuery(reusableTextFirst(db, q))).rows;
  // The rest of the page: the walk goes on after the last match it found.
  const after = searchPosition(q.sort, walked.at(-1)!);
  const rest = await db.executeQuery(compiledSearchStatement(db, { ...q, after, offset: 0, limit: q.limit - walked.length }));
  return [...walked, ...rest.rows];
}

/** The rows the first walk crosses at least (see `textSearchPage`). */
export const TEXT_WALK_ROWS = 2000;

/** A walk that found this many matches without filling its page goes on walking (see `textSearchPage`). */
const TEXT_WALK_DENSE = 5;

/** At most this many matches are read and sorted by text first (see `textFirstStatement`). */
export const TEXT_CANDIDATE_BOUND = 5000;

/**
 * The rows the first walk crosses: `TEXT_WALK_ROWS`, doubled until there are 16 for each match the
 * page needs (an OFFSET page needs `offset + limit`). A power of two times the minimum: few shapes.
 */
function textWalkRows(q: Pick<SearchQuery, 'offset' | 'limit'>): number {
  let rows = TEXT_WALK_ROWS;
  while (rows < 16 * (q.offset + q.limit)) rows *= 2;
  return rows;
}

/**
 * The text condition on `r` with the tsquery as a one-time subquery (an InitPlan): the text is
 * parsed once per statement (a generic plan parsed `websearch_to_tsquery($1)` again for each row),
 * and PostgreSQL estimates the matches at a fixed 0.5 % of the rows whatever the text, so reading
 * them is planned as the GIN bitmap. With the parsed text in view, a text of many `or` words could
 * look common enough for a sequential scan that then crossed the table.
 */
const textMatchOnce = (db: Kysely<Database>, text: string) => sql<SqlBool>`r.fts @@ (SELECT ${tsQuery(db, text)})`;

/** A text search with the number of rows its first walk crosses. */
export type TextWalkQuery = TextSearchQuery & { walkRows: number };

/**
 * The page among the first `walkRows` listable rows after the position, in the sort's order: exact
 * when it is a whole page, since every row beyond them comes later in the order. PostgreSQL cannot
 * move the text test below the inner LIMIT, so the plan is the sort's index walk, stopped by the
 * outer LIMIT as soon as the page is full. When the page is not full, the row just past the bound
 * comes last, matching or not (`past_bound`, not a result): without it (and with no OFFSET, which
 * could skip it), the walk reached the end.
 *
 * ```sql
 * SELECT r.id, ..., cat.name, ..., r.walk_row > 2000 AS past_bound
 * FROM (SELECT r.id, ..., r.fts, row_number() OVER (ORDER BY r.id) AS walk_row
 *       FROM rsc r WHERE <listable> AND <position> ORDER BY r.id LIMIT 2001) r
 * LEFT JOIN rsc cat ON cat.id = r.category_id AND <anonymous-visible cat>
 * WHERE (r.fts @@ (SELECT websearch_to_tsquery('simple', $1)) OR r.walk_row > 2000) ORDER BY r.id LIMIT $2
 * ```
 */
export function textWalkStatement(db: Kysely<Database>, q: TextWalkQuery) {
  const walkRow = sql<number>`row_number() OVER (ORDER BY ${sql.join(searchOrderTerms(q.sort))})`;
  const rows = whereAll(db.selectFrom('rsc as r').select([...RESOURCE_COLUMNS, 'r.fts', walkRow.as('walk_row')]), searchConditions(db, q, false));
  const walk = inSearchOrder(rows, q.sort).limit(sql.lit(q.walkRows + 1));
  const pastBound = sql<boolean>`r.walk_row > ${sql.lit(q.walkRows)}`;
  const page = db
    .selectFrom(walk.as('r'))
    .leftJoin('rsc as cat', categoryOfResource)
    .select(SUMMARY_COLUMNS)
    .select([pastBound.as('past_bound'), ...positionColumns(q.sort)])
    .where(sql<SqlBool>`(${textMatchOnce(db, q.text)} OR ${pastBound})`);
  return inSearchOrder(page, q.sort).$call(pageBounds(q));
}

/**
 * Text first, exact for any word: the listable matches after the position are read through the GIN
 * index, at most `TEXT_CANDIDATE_BOUND` + 1 of them; when there are at most the bound, the page is
 * sorted from them, else it is the complete statement's. Each branch is guarded by that count (a
 * one-time filter), so PostgreSQL runs only one. The count is taken of the candidates themselves: a
 * bare `count(*)` of the word's matches was planned as a sequential scan on a small table (its cost
 * estimate for the GIN bitmap is fixed, so a table of 20,000 rows was scanned whole for an absent word),
 * while the candidates' listable conditions keep the bitmap the cheaper plan at every size.
 *
 * ```sql
 * WITH candidates AS MATERIALIZED (SELECT r.id, ... FROM rsc r
 *     WHERE <listable> AND <position> AND r.fts @@ (SELECT websearch_to_tsquery('simple', $1)) LIMIT 5001)
 * SELECT * FROM (
 *   SELECT * FROM (SELECT r.id, ... FROM candidates r LEFT JOIN rsc cat ON ...
 *     WHERE (SELECT count(*) FROM candidates) <= 5000 ORDER BY r.id LIMIT $n) a
 *   UNION ALL
 *   SELECT * FROM (<searchStatement> AND (SELECT count(*) FROM candidates) > 5000) b
 * ) r ORDER BY r.id
 * ```
 */
export function textFirstStatement(db: Kysely<Database>, q: TextSearchQuery) {
  const candidates = whereAll(db.selectFrom('rsc as r').select(RESOURCE_COLUMNS), searchConditions(db, q, false))
    .where(textMatchOnce(db, q.text))
    .limit(sql.lit(TEXT_CANDIDATE_BOUND + 1));
  const matchCount = sql<number>`(SELECT count(*) FROM candidates)`;
  const bound = sql.lit(TEXT_CANDIDATE_BOUND);
  const walk = searchStatement(db, q).where(sql<SqlBool>`${matchCount} > ${bound}`);
  const page = db
    .with((cte) => cte('candidates').materialized(), () => candidates)
    .selectFrom((eb) => {
      const sorted = eb.selectFrom('candidates as r').leftJoin('rsc as cat', categoryOfResource).select(SUMMARY_COLUMNS).select(positionColumns(q.sort));
      const few = inSearchOrder(sorted.where(sql<SqlBool>`${matchCount} <= ${bound}`), q.sort).$call(pageBounds(q));
      return eb.selectFrom(few.as('a')).selectAll().unionAll(eb.selectFrom(walk.as('b')).selectAll()).as('r');
    })
    .selectAll();
  return inSearchOrder(page, q.sort);
}

const reusableTextWalk = reusableQuery(textWalkStatement, [...SEARCH_SHAPE, 'walkRows']);
const reusableTextFirst = reusableQuery(textFirstStatement, [...SEARCH_SHAPE]);

/** The text-first statement a rare or absent word runs (`textFirstStatement`), compiled as the route compiles it (for the plan doctor). */
export const compiledTextFirst = reusableTextFirst;
