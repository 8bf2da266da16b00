import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * The content version as a statement selects it beside its own columns (one primary-key read, once
 * per statement): see migration 0010. Text, since it is a bigint.
 *
 * ```sql
 * (SELECT v.version::text FROM agent_discovery_content_version v WHERE v.id)
 * ```
 */
export function contentVersionColumn(): RawBuilder<string | null> {
  return sql<string | null>`(SELECT v.version::text FROM agent_discovery_content_version v WHERE v.id)`;
}

/** What a statement saw of the content: its version and the database's clock. */
export interface ContentSeen {
  /** The content version (null: the database has no version table). */
  readonly version: string | null;
  /** The database's `now()` of that statement. */
  readonly now: Date;
}

/**
 * Keys of the content for the build cache. What a reader can see changes with a write (the content
 * version, bumped in the write's transaction) and with time alone: a resource's publication window
 * starts or ends without a write. So the key of the content is its version and the window of time up
 * to the next publication start or end after it (read once per version, from the content itself).
 * Reads that saw the same version, before the same next boundary, share a key; a later boundary, a
 * new version, or a version read that went backwards (a restored backup) makes another key.
 */
export class ContentClock {
  readonly #db: Kysely<Database>;
  readonly #enabled: boolean;
  #version: string | undefined;
  /** The next publication start or end after the version was read (ms since 1970; Infinity: none). */
  #until = -Infinity;
  #reading: Promise<void> | undefined;

  /** `enabled`: the content version is bumped by every write (the plugin's own tables, or a host that says so). */
  constructor(db: Kysely<Database>, enabled: boolean) {
    this.#db = db;
    this.#enabled = enabled;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  /** The server start the reads have seen (`pg_postmaster_start_time()`), for `serverChanged`. */
  #serverStarted: string | undefined;

  /**
   * Whether `started` (`pg_postmaster_start_time()` as a read saw it) differs from the one seen
   * before: the database server was restarted, which a restored backup and a failover both imply. Exact
   * keys of compositions are row versions, which a physical restore brings back and later writes reuse
   * (as a promoted replica may, having missed the old primary's last transactions), so the caller drops
   * what it kept. Reads spread over several replicas say so often: that costs the cache, never an answer.
   */
  serverChanged(started: string | null): boolean {
    if (started === null || started === this.#serverStarted) return false;
    const changed = this.#serverStarted !== undefined;
    this.#serverStarted = started;
    return changed;
  }

  /**
   * The key of the content a statement saw, or undefined when builds from it cannot be kept (the
   * version is not kept by every write, the database has no version, or it changed while the next
   * boundary was being read).
   */
  async key(seen: ContentSeen): Promise<string | undefined> {
    if (!this.#enabled || seen.version === null) return undefined;
    const now = seen.now.getTime();
    if (seen.version !== this.#version || now >= this.#until) {
      this.#reading ??= this.#readBoundary().finally(() => (this.#reading = undefined));
      await this.#reading;
    }
    if (seen.version !== this.#version || now >= this.#until) return undefined;
    return `${seen.version}@${this.#until}`;
  }

  /**
   * The version now and the next publication boundary after now, in one statement.
   *
   * ```sql
   * SELECT (SELECT version::text …) AS version, extract(epoch FROM least(min(publication_start) FILTER (WHERE publication_start > now()),
   *   min(publication_end) FILTER (WHERE publication_end > now()))) * 1000 AS until FROM rsc
   * ```
   */
  async #readBoundary(): Promise<void> {
    const { rows } = await sql<{ version: string | null; until: string | number | null }>`
      SELECT ${contentVersionColumn()} AS "version",
        extract(epoch FROM least(
          min(r.publication_start) FILTER (WHERE r.publication_start > now()),
          min(r.publication_end) FILTER (WHERE r.publication_end > now()))) * 1000 AS "until"
      FROM rsc r`.execute(this.#db);
    const row = rows[0];
    this.#version = row?.version ?? undefined;
    this.#until = row?.until === null || row?.until === undefined ? Infinity : Number(row.until);
  }
}
