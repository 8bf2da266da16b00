import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import pg from 'pg';
import request from 'supertest';
import { sql } from 'kysely';
import { createAgentDiscovery, type AgentDiscovery, type AgentDiscoveryOptions } from '../src/index.js';
import { openDatabase } from '../src/db/connection.js';
import { runCli } from '../src/cli/run.js';
import { DEMO } from '../example-site/seed.js';
import { backends } from './support/backends.js';
import { DEMO_PLUGIN_OPTIONS, openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { assertSameReads, facadeReads, walk } from './support/facade-tour.js';
import express from 'express';

/**
 * Scale-out: several stateless instances in front of PostgreSQL's own tooling. The two-instance part
 * runs everywhere; the rest needs the servers bench/scale-out.sh (and, for PgBouncer, .ci/run) start:
 * PGBOUNCER_URL (PgBouncer in transaction pooling mode in front of DATABASE_URL's server) and
 * REPLICA_URL (a streaming standby of DATABASE_URL's server).
 */
const { DATABASE_URL, PGBOUNCER_URL, REPLICA_URL } = process.env;

const SECRET = 'scale-out-continuation-secret-0123456789';
const SHARED = { baseUrl: 'https://example.org', continuationSecret: SECRET } as const;

/** `url` with the database name of `database`. */
function onDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = new URL(database).pathname;
  return u.toString();
}

async function instance(options: Partial<AgentDiscoveryOptions> & Pick<AgentDiscoveryOptions, 'database'>): Promise<{ app: Express; agent: AgentDiscovery }> {
  const agent = await createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, ...SHARED, ...options });
  const app = express();
  app.use(agent.router);
  return { app, agent };
}

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Polls `check` every 100 ms until it holds, at most `tries` times; whether it held. */
async function eventually(check: () => Promise<boolean>, tries = 50): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** One demo database for the whole file on DATABASE_URL's server (created on first use, dropped at the end). */
let demoDatabase: Promise<DemoDatabase> | undefined;
function sharedDemo(): Promise<DemoDatabase> {
  demoDatabase ??= openDemoDatabase(backends.find((b) => b.name === 'postgres')!);
  return demoDatabase;
}
after(async () => {
  if (demoDatabase) await (await demoDatabase).close();
});

/** Waits until the standby at `replica` has replayed everything the primary at `primary` has written. */
async function replayed(primary: string, replica: string): Promise<void> {
  const lsn = (await query<{ lsn: string }>(primary, 'SELECT pg_current_wal_lsn()::text AS lsn'))[0]!.lsn;
  const ok = await eventually(async () => (await query<{ ok: boolean }>(replica, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn]))[0]!.ok, 300);
  assert.ok(ok, 'the replica replays the primary');
}

// Separate instances need separate connections: PostgreSQL (an embedded PGlite belongs to one process).
describe('several instances with one continuationSecret', { skip: !DATABASE_URL && 'needs DATABASE_URL' }, () => {
  let demo: DemoDatabase;
  const agents: AgentDiscovery[] = [];
  before(async () => {
    demo = await sharedDemo();
  });
  after(async () => {
    for (const agent of agents) await agent.close();
  });

  /** A separate instance with a pool of its own, as another process would have. */
  async function separate(continuationSecret: string): Promise<Express> {
    const { app, agent } = await instance({ database: { url: demo.url!, poolSize: 2 }, continuationSecret });
    agents.push(agent);
    return app;
  }

  it('a next_url from one instance works on another; an instance with another secret refuses it with a 400', async () => {
    const [a, b] = [await separate(SECRET), await separate(SECRET)];
    const other = await separate(`${SECRET}-other`);
    for (const first of ['/api/agent/search?pagelen=50', `/api/agent/related/${DEMO.popularKeyword}?direction=in&pagelen=50`]) {
      const alone = await walk([a], first);
      assert.ok(alone.length > 50, `${first} has several pages`);
      assert.deepEqual(await walk([a, b], first), alone, `${first}, pages alternating between the instances`);
      const page1 = await request(a).get(first);
      const next = (page1.body.result.next_url as string).replace('https://example.org', '');
      const refused = await request(other).get(next);
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.text, /cursor/);
    }
  });
});

describe('the request budget cancels the statement on the server', { skip: !DATABASE_URL && 'needs DATABASE_URL' }, () => {
  const targets = [
    { name: 'direct', url: DATABASE_URL, server: DATABASE_URL },
    { name: 'through PgBouncer (transaction pooling)', url: PGBOUNCER_URL, server: DATABASE_URL },
    { name: 'on a read replica', url: REPLICA_URL, server: REPLICA_URL },
  ];
  for (const target of targets) {
    it(`a pg_sleep still running after the budget is cancelled (57014) and gone from pg_stat_activity; the pool keeps serving [${target.name}]`, { skip: !target.url && 'not configured' }, async () => {
      const content = await openDatabase({ url: target.url!, poolSize: 2, statementTimeoutMs: 400 });
      const probe = `budget_probe_${randomBytes(4).toString('hex')}`;
      const running = async () =>
        (await query<{ n: number }>(target.server!, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()", [probe]))[0]!.n;
      try {
        const slow = sql.raw(`SELECT pg_sleep(30) AS "${probe}"`).execute(content.db).catch((e: unknown) => e);
        assert.ok(await eventually(async () => (await running()) === 1), 'the statement runs on the server');
        const error = (await slow) as { code?: string };
        assert.equal(error.code, '57014', String(error));
        // 30 s of sleep would still be running without the cancel.
        assert.ok(await eventually(async () => (await running()) === 0), 'the cancelled statement is gone from the server');
        const pool = content.pool!;
        assert.ok(await eventually(async () => pool.totalCount === pool.idleCount), 'the client is back or discarded');
        for (let i = 0; i < 4; i++) {
          const ok = await sql<{ n: number }>`SELECT ${i}::int AS n`.execute(content.db);
          assert.equal(ok.rows[0]!.n, i);
        }
      } finally {
        await content.close();
      }
    });
  }

  it('PgBouncer refuses the startup parameter the pool used to send (statement_timeout)', { skip: !PGBOUNCER_URL && 'needs PGBOUNCER_URL' }, async () => {
    const client = new pg.Client({ connectionString: PGBOUNCER_URL, statement_timeout: 5000 });
    client.on('error', () => {});
    await assert.rejects(client.connect(), /unsupported startup parameter/);
  });
});

describe('behind PgBouncer in transaction pooling mode', { skip: !(DATABASE_URL && PGBOUNCER_URL) && 'needs DATABASE_URL and PGBOUNCER_URL' }, () => {
  let demo: DemoDatabase;
  let reference: Express;
  let bouncer: { app: Express; agent: AgentDiscovery };
  before(async () => {
    demo = await sharedDemo();
    reference = (await pluginApp(demo.db, SHARED)).app;
    bouncer = await instance({ database: { url: onDatabase(PGBOUNCER_URL!, demo.url!), poolSize: 4 } });
  });
  after(() => bouncer.agent.close());

  it('every facade read answers as on a direct connection, next_url crossing between the two', async () => {
    await assertSameReads(reference, bouncer.app, await facadeReads(reference, demo.db));
    const first = '/api/agent/search?pagelen=50';
    assert.deepEqual(await walk([bouncer.app, reference], first), await walk([reference], first));
  });

  it('a read over budget is a 504 and its statement is cancelled on the server', async () => {
    const slow = await instance({ database: { url: onDatabase(PGBOUNCER_URL!, demo.url!), poolSize: 2 }, budgetMs: 500 });
    const locker = new pg.Client({ connectionString: demo.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE rsc IN ACCESS EXCLUSIVE MODE');
    const waiting = async () =>
      (await locker.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")).rows[0].n as number;
    try {
      const res = await request(slow.app).get(`/api/agent/resource/${DEMO.welcome}`);
      assert.equal(res.status, 504, res.text);
      assert.equal(res.body.error, 'timeout');
      assert.ok(await eventually(async () => (await waiting()) === 0), 'the cancelled statement still waits on the server');
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    assert.equal((await request(slow.app).get(`/api/agent/resource/${DEMO.welcome}`)).status, 200);
    await slow.agent.close();
  });
});

describe('on a streaming read replica', { skip: !(DATABASE_URL && REPLICA_URL) && 'needs DATABASE_URL and REPLICA_URL (bench/scale-out.sh)' }, () => {
  let demo: DemoDatabase;
  let replica: string;
  before(async () => {
    demo = await sharedDemo();
    replica = onDatabase(REPLICA_URL!, demo.url!);
    await replayed(demo.url!, replica);
  });

  it('with readUrl every read goes to the standby and answers as on the primary', async () => {
    const reference = (await pluginApp(demo.db, SHARED)).app;
    const { app, agent } = await instance({ database: { url: demo.url!, readUrl: replica, poolSize: 4 } });
    try {
      const standby = await sql<{ standby: boolean }>`SELECT pg_is_in_recovery() AS standby`.execute(agent.database.db);
      assert.equal(standby.rows[0]!.standby, true, 'the reads use the replica');
      await assertSameReads(reference, app, await facadeReads(reference, demo.db));
    } finally {
      await agent.close();
    }
  });

  it('migrations are refused on the standby: migrate: true, agent.migrate() and the CLI, each naming the fix', async () => {
    const refusal = /cannot migrate a read replica: this database is a standby in recovery \(pg_is_in_recovery\(\) is true\).*primary/;
    await assert.rejects(instance({ database: { url: replica }, migrate: true }), refusal);
    const { agent } = await instance({ database: { url: replica } });
    try {
      await assert.rejects(agent.migrate(), refusal);
    } finally {
      await agent.close();
    }
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['migrate', '--database-url', replica], { env: {}, out: (t) => out.push(t), err: (t) => err.push(t) });
    assert.equal(code, 1);
    assert.match(err.join(''), refusal);
    assert.deepEqual(out, []);
  });

  it('with readUrl, migrate: true migrates the primary and waits for the replica', async () => {
    const name = `ead_scale_${process.pid}_${randomBytes(4).toString('hex')}`;
    await query(DATABASE_URL!, `CREATE DATABASE ${name}`);
    const primary = onDatabase(DATABASE_URL!, `postgres://x/${name}`);
    try {
      await replayed(DATABASE_URL!, REPLICA_URL!);
      const { app, agent } = await instance({ database: { url: primary, readUrl: onDatabase(REPLICA_URL!, primary) }, migrate: true });
      try {
        const res = await request(app).get('/api/agent/search');
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.result.items, []);
        await agent.migrate();
      } finally {
        await agent.close();
      }
    } finally {
      await query(DATABASE_URL!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });
});
