import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pg from 'pg';
import { createExampleSite, type ExampleSite } from '../example-site/app.js';
import { DEMO } from '../example-site/seed.js';
import { backends, type TestDatabase } from './support/backends.js';
import { idOf } from './support/demo.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

/**
 * The process survives its database: under load on the resource and search reads, PostgreSQL
 * backends are terminated (and, separately, every connection is reset behind a TCP proxy). The
 * process stays up, every answer during a fault is a 503 envelope, every request started two seconds
 * after a fault is a 200 again, and no pool client leaks.
 */

const postgres = backends.find((b) => b.name === 'postgres');
const POOL_SIZE = 10;
const CLIENTS = 20;
const WARM_UP_MS = 1000;
const FAULTS = 3;
/** A fault every this many milliseconds; the last second of each gap checks the recovery. */
const FAULT_GAP_MS = 3000;
const RECOVERY_MS = 2000;

interface Sample {
  startedAt: number;
  endedAt: number;
  path: string;
  status: number;
  /** Why a non-200 answer is not a proper 503 envelope, if it is not. */
  problem?: string;
}

/** Checks a non-200 answer: a 503 `unavailable` envelope with `Retry-After` and `no-store`. */
function envelopeProblem(status: number, headers: Headers, body: string): string | undefined {
  if (status !== 503) return `status ${status}: ${body.slice(0, 200)}`;
  if (!Number(headers.get('retry-after'))) return 'no Retry-After';
  if (headers.get('cache-control') !== 'no-store') return `Cache-Control ${headers.get('cache-control')}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `not JSON: ${body.slice(0, 200)}`;
  }
  const e = parsed as { status?: unknown; error?: unknown };
  return e.status === 'error' && e.error === 'unavailable' ? undefined : `envelope ${body.slice(0, 200)}`;
}

/** `CLIENTS` loops of sequential requests until `stop()`; every answer is sampled. */
function startLoad(origin: string, paths: string[]): { samples: Sample[]; stop(): Promise<void> } {
  const samples: Sample[] = [];
  let running = true;
  const loop = async (i: number) => {
    for (let n = i; running; n++) {
      const path = paths[n % paths.length]!;
      const startedAt = performance.now();
      try {
        const res = await fetch(origin + path);
        const body = await res.text();
        const problem = res.status === 200 ? undefined : envelopeProblem(res.status, res.headers, body);
        samples.push({ startedAt, endedAt: performance.now(), path, status: res.status, ...(problem ? { problem } : {}) });
      } catch (error) {
        samples.push({ startedAt, endedAt: performance.now(), path, status: 0, problem: `request failed: ${(error as Error).message}` });
      }
    }
  };
  const loops = Array.from({ length: CLIENTS }, (_, i) => loop(i));
  return {
    samples,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns true (at most `tries` times, 50 ms apart); returns its last answer. */
async function eventually(probe: () => boolean | Promise<boolean>, tries = 100): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await probe()) return true;
    await sleep(50);
  }
  return probe();
}

function histogram(samples: Sample[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of samples) counts[s.status] = (counts[s.status] ?? 0) + 1;
  return counts;
}

describe('the process survives its database under load [postgres]', { skip: postgres ? false : 'DATABASE_URL is not set (PostgreSQL only)' }, () => {
  let database: TestDatabase;
  let dbName: string;
  let admin: pg.Client;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  before(async () => {
    process.on('unhandledRejection', onUnhandled);
    database = await postgres!.open();
    dbName = new URL(database.url!).pathname.slice(1);
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  after(async () => {
    process.off('unhandledRejection', onUnhandled);
    await admin?.end();
    await database?.close();
  });

  /** Backends of the test database other than the admin connection. */
  async function backendCount(): Promise<number> {
    const r = await admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [dbName],
    );
    return r.rows[0]!.n;
  }

  /** Starts the example site on `url`, listening on loopback. */
  async function startSite(url: string, reported: unknown[]): Promise<{ site: ExampleSite; server: Server; origin: string }> {
    const site = await createExampleSite({
      database: { url, poolSize: POOL_SIZE },
      baseUrl: 'http://site.test',
      plugin: { onError: (error) => reported.push(error) },
    });
    const server = site.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { site, server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  /**
   * Runs the load, applies `fault` `FAULTS` times, and checks the answers, the recovery and the pool.
   * Returns the status histogram.
   */
  async function underLoad(url: string, fault: () => Promise<number>): Promise<Record<string, number>> {
    const reported: unknown[] = [];
    const { site, server, origin } = await startSite(url, reported);
    const pool = site.agent.database.pool!;
    const welcome = await idOf(site.agent.database.db, DEMO.welcome);
    assert.ok((await backendCount()) <= POOL_SIZE + 1, 'before: at most one pool per site');
    const load = startLoad(origin, [`/api/agent/resource/${welcome}`, '/api/agent/search?text=harbour']);
    /** When each fault began, and when it was over (the database accepts connections again). */
    const faults: Array<{ began: number; over: number }> = [];
    try {
      await sleep(WARM_UP_MS);
      for (let i = 0; i < FAULTS; i++) {
        const began = performance.now();
        const broken = await fault();
        assert.ok(broken > 0, 'the fault broke at least one connection');
        faults.push({ began, over: performance.now() });
        await sleep(FAULT_GAP_MS);
      }
    } finally {
      await load.stop();
    }
    const { samples } = load;
    const counts = histogram(samples);

    assert.ok(server.listening, 'the process still serves');
    assert.deepEqual(samples.filter((s) => s.problem).slice(0, 5), [], 'every non-200 answer is a 503 envelope');
    assert.deepEqual(samples.filter((s) => s.endedAt < faults[0]!.began && s.status !== 200), [], 'all 200 before the first fault');
    assert.ok((counts[503] ?? 0) > 0, 'the faults hit requests in flight');
    for (let i = 0; i < faults.length; i++) {
      const from = faults[i]!.over + RECOVERY_MS;
      const until = faults[i + 1]?.began ?? Infinity;
      const recovered = samples.filter((s) => s.startedAt >= from && s.endedAt < until);
      assert.ok(recovered.length > 0, `requests were made ${RECOVERY_MS} ms after fault ${i + 1}`);
      assert.deepEqual(recovered.filter((s) => s.status !== 200), [], `every request ${RECOVERY_MS} ms after fault ${i + 1} is a 200`);
    }
    assert.deepEqual(reported, [], 'no fault was an unexpected error');
    assert.deepEqual(unhandled, [], 'no unhandled rejection');

    // No client leaks: every client is back in the pool, and the server holds no more backends than the pool.
    assert.ok(await eventually(() => pool.waitingCount === 0 && pool.idleCount === pool.totalCount), `pool ${pool.idleCount}/${pool.totalCount} idle`);
    assert.ok(pool.totalCount <= POOL_SIZE);
    assert.ok(await eventually(async () => (await backendCount()) === pool.totalCount), 'pg_stat_activity matches the pool');
    assert.ok((await backendCount()) <= POOL_SIZE);
    assert.equal((await fetch(`${origin}/api/agent/resource/${welcome}`)).status, 200);

    await new Promise((resolve) => server.close(resolve));
    await site.close();
    return counts;
  }

  it('backends terminated mid-load (57P01): 503 envelopes, then 200 within 2 s; no client leaks', async (t) => {
    const counts = await underLoad(database.url!, async () => {
      const r = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [dbName],
      );
      return r.rowCount ?? 0;
    });
    t.diagnostic(`terminate: ${JSON.stringify(counts)}`);
  });

  it('connections reset behind a TCP proxy mid-load (ECONNRESET): 503 envelopes, then 200 within 2 s; no client leaks', async (t) => {
    const target = new URL(database.url!);
    const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(database.url!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    try {
      const counts = await underLoad(viaProxy.toString(), async () => proxy.resetAll());
      t.diagnostic(`reset: ${JSON.stringify(counts)} (${proxy.accepted} connections through the proxy)`);
    } finally {
      await proxy.close();
    }
  });
});
