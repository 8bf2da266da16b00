import type { AgentContext } from '../context.js';
import { CHANGE_KIND, readChanges, type ChangePosition, type ChangeRow } from '../content/changes.js';
import { listableAmong } from '../content/sitemap-pages.js';
import { fixedBody } from '../http/representation.js';
import { absoluteUrl } from '../http/urls.js';
import type { ResolvedIndexNow } from '../options.js';
import { PATHS } from '../paths.js';
import { siteNoindexForQuery } from '../settings/effective-settings.js';
import { documentRoute } from './document-route.js';
import { pageVersions } from './sitemap.js';
import { deadlineSignal } from '../http/deadline.js';

/** Change-feed entries read per statement. */
const READ_PAGE = 500;
/** How far back each read starts again (a change committed late is not missed): the change feed's settle time. */
const SETTLE_MS = 30_000;
/** The first retry waits this long, each next one twice as long, up to `MAX_BACKOFF_MS`. */
const BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 15 * 60_000;
/** A batch that failed this many times is dropped (and said so). */
const MAX_ATTEMPTS = 6;
/** One submission's time limit. */
const REQUEST_TIMEOUT_MS = 10_000;

/** `GET /<key>.txt`: the IndexNow key file (the key itself, `text/plain`), proving the site owns the key. */
export function indexNowKeyRoute(key: string) {
  const body = fixedBody({ body: key });
  return documentRoute(PATHS.indexNowKey(key), 'text/plain; charset=utf-8', () => body);
}

/** A running IndexNow submitter. */
export interface IndexNowSubmitter {
  /** Stops the timer and any submission in flight; what is queued is dropped. */
  close(): Promise<void>;
}

const warn = (message: string) => process.emitWarning(`express-agent-discovery: IndexNow: ${message}`, { type: 'ExpressAgentDiscoveryWarning', code: 'EAD_INDEXNOW' });
const positionOf = (row: ChangeRow): ChangePosition => [Number(row.at_s), Number(row.at_us), row.kind, row.id];
const after = (a: ChangePosition, b: ChangePosition) => a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] !== b[2] ? a[2] > b[2] : a[3] > b[3];

/**
 * Submits the page URLs of changed public, indexable resources to an IndexNow endpoint (the
 * `indexNow` option), off the request path: every `intervalMs` it reads the change feed from where it
 * left off (from 30 seconds back, entries seen already skipped), queues each changed resource's page
 * in its languages (at most `maxQueue` URLs: past it the oldest are dropped, and said so), and POSTs
 * them in batches of `batchSize` as the protocol asks (`{ host, key, keyLocation, urlList }`). A 200 or
 * 202 is done; a 429, a 5xx, a timeout or a network error is retried with a doubling backoff (1 s up
 * to 15 min, at most 6 tries); any other answer (400, 403, 422) is reported and the batch dropped.
 * Reports are process warnings of code `EAD_INDEXNOW`. Starts from the moment it is created: what
 * changed before is the sitemap's business.
 *
 * ```http
 * POST https://api.indexnow.org/indexnow
 * Content-Type: application/json; charset=utf-8
 *
 * {"host":"example.org","key":"…","keyLocation":"https://example.org/….txt","urlList":["https://example.org/en/page/7"]}
 * ```
 */
export function startIndexNow(ctx: AgentContext, o: ResolvedIndexNow, base: string): IndexNowSubmitter {
  const host = new URL(base).host;
  const keyLocation = absoluteUrl(base, PATHS.indexNowKey(o.key).url());
  const createdMs = Date.now();
  let position: ChangePosition = [Math.floor(createdMs / 1000), 0, -1, 0];
  /** Entries already queued, by `id@seconds.micros`, until they fall out of the settle window. */
  const seen = new Map<string, number>();
  const queue: string[] = [];
  let attempts = 0;
  let retryAt = 0;
  let closed = false;
  let running: Promise<void> | undefined;
  const stop = new AbortController();

  const enqueue = (urls: readonly string[]) => {
    let dropped = 0;
    for (const url of urls) {
      if (queue.length >= o.maxQueue) {
        queue.shift();
        dropped++;
      }
      queue.push(url);
    }
    if (dropped) warn(`the queue is full (maxQueue ${o.maxQueue}): ${dropped} older URLs dropped`);
  };

  /** Reads the feed from where it left off and queues the pages of what changed. */
  async function collect(): Promise<void> {
    const settled = Math.floor((Date.now() - SETTLE_MS) / 1000);
    let from: ChangePosition = position[0] >= settled ? [settled, 0, -1, 0] : position;
    for (;;) {
      const rows = await readChanges(ctx.db, { after: from, offset: 0, limit: READ_PAGE });
      const fresh = rows.filter((row) => {
        // What changed before the submitter was created is not its business (the settle window reads back 30 s).
        if (Number(row.at_s) * 1000 + Number(row.at_us) / 1000 < createdMs) return false;
        const key = `${row.id}@${row.at_s}.${row.at_us}`;
        if (seen.has(key)) return false;
        seen.set(key, Number(row.at_s));
        return row.kind === CHANGE_KIND.changed;
      });
      if (fresh.length) {
        const indexable = await listableAmong(ctx.db, await siteNoindexForQuery(ctx), fresh.map((r) => r.id));
        enqueue(fresh.filter((r) => indexable.has(r.id)).flatMap((r) => pageVersions(ctx.options, base, r).map((v) => v.url)));
      }
      const last = rows.at(-1);
      if (last && after(positionOf(last), position)) position = positionOf(last);
      if (rows.length < READ_PAGE) break;
      from = positionOf(last!);
    }
    for (const [key, seconds] of seen) if (seconds < settled - 1) seen.delete(key);
  }

  /** One POST: `ok`, `retry` (429, 5xx, timeout, network) or `rejected` (any other answer, reported). */
  async function submit(urlList: readonly string[]): Promise<'ok' | 'retry' | 'rejected'> {
    const deadline = deadlineSignal(REQUEST_TIMEOUT_MS, stop.signal);
    try {
      const res = await fetch(o.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ host, key: o.key, keyLocation, urlList }),
        signal: deadline.signal,
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status === 200 || res.status === 202) return 'ok';
      if (res.status === 429 || res.status >= 500) {
        warn(`${o.endpoint} answered ${res.status} to ${urlList.length} URLs; retrying`);
        return 'retry';
      }
      warn(`${o.endpoint} refused ${urlList.length} URLs with ${res.status} (check the key, its file at ${keyLocation}, and that the URLs are on ${host}); not retried`);
      return 'rejected';
    } catch (error) {
      if (closed) return 'retry';
      warn(`${o.endpoint} did not answer (${error instanceof Error ? error.message : String(error)}); retrying`);
      return 'retry';
    } finally {
      deadline.clear();
    }
  }

  /** Sends the queue in batches until it is empty or a batch must wait for its retry. */
  async function flush(): Promise<void> {
    while (queue.length && !closed && Date.now() >= retryAt) {
      const batch = queue.slice(0, o.batchSize);
      const outcome = await submit(batch);
      if (outcome !== 'retry') {
        queue.splice(0, batch.length);
        attempts = 0;
        continue;
      }
      if (closed) return;
      attempts++;
      if (attempts >= MAX_ATTEMPTS) {
        warn(`${batch.length} URLs dropped after ${MAX_ATTEMPTS} tries`);
        queue.splice(0, batch.length);
        attempts = 0;
        continue;
      }
      retryAt = Date.now() + Math.min(BACKOFF_MS * 2 ** (attempts - 1), MAX_BACKOFF_MS);
    }
  }

  async function tick(): Promise<void> {
    try {
      await collect();
    } catch (error) {
      warn(`reading the change feed failed (${error instanceof Error ? error.message : String(error)}); trying again next time`);
    }
    await flush();
  }

  const timer = setInterval(() => {
    if (!running && !closed) running = tick().finally(() => (running = undefined));
  }, o.intervalMs);
  timer.unref();
  return {
    async close() {
      closed = true;
      clearInterval(timer);
      stop.abort();
      await running;
    },
  };
}
