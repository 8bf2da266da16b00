import { sql, type Kysely } from 'kysely';

/** Something a views-road recipe hides because it cannot follow the CMS's access rule for it. */
export interface AccessNotice {
  /** What is hidden (a collection, a content type). */
  readonly subject: string;
  /** Why. */
  readonly notice: string;
}

/**
 * The notices of the optional relation `access_notice (subject, notice)` on the search path: a
 * views-road recipe that computes visibility from the CMS's own access rules lists there what it hides
 * because a rule is outside what it can translate (fail closed), so `doctor` and the admin's query
 * plans page can say so. None when the relation does not exist.
 *
 * ```sql
 * SELECT subject::text, notice::text FROM access_notice ORDER BY 1  -- when to_regclass('access_notice') is not null
 * ```
 */
export async function readAccessNotices(db: Kysely<any>): Promise<AccessNotice[]> {
  const { rows } = await sql<{ present: boolean }>`SELECT to_regclass('access_notice') IS NOT NULL AS present`.execute(db);
  if (!rows[0]?.present) return [];
  const notices = await sql<AccessNotice>`SELECT subject::text AS subject, notice::text AS notice FROM access_notice ORDER BY 1`.execute(db);
  return notices.rows;
}
