import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import pg from 'pg';
import { sql } from 'kysely';
import { backends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';
import { startTcpProxy } from './support/tcp-proxy.js';

function assertErrorEnvelope(res: request.Response, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.status, 'error');
  assert.equal(res.body.error, code);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.headers.etag, undefined);
}

for (const backend of backends) {
  describe(`facade faults [${backend.name}]`, () => {
    let demo: DemoDatabase;
    before(async () => {
      demo = await openDemoDatabase(backend);
    });
    after(() => demo.close());

    it('a response body over the size bound is a 413 envelope', async () => {
      const { app } = await pluginApp(demo.db, { maxBodyBytes: 2048 });
      assert.equal((await request(app).get('/api/agent/search?pagelen=1')).status, 200);
      const res = await request(app).get('/api/agent/search?pagelen=50');
      assertErrorEnvelope(res, 413, 'payload_too_large');
    });

    if (backend.name === 'pglite') {
      it('a query over budget is a 504 (the wait is abandoned); the next request succeeds', async () => {
        const { app } = await pluginApp(demo.db, { budgetMs: 300 });
        // PGlite has one connection: a long transaction makes every other query wait behind it.
        const sleeper = demo.db.transaction().execute(async (trx) => {
          await sql`SELECT 1`.execute(trx);
          await new Promise((resolve) => setTimeout(resolve, 1500));
        });
        const res = await request(app).get('/api/agent/search');
        assertErrorEnvelope(res, 504, 'timeout');
        await sleeper;
        assert.equal((await request(app).get('/api/agent/search')).status, 200);
      });

      it('a closed embedded database is a 503 with Retry-After', async () => {
        const own = await backend.open();
        const { app } = await pluginApp(own.db);
        assert.equal((await request(app).get('/api/agent/schema')).status, 200);
        await own.close();
        const res = await request(app).get('/api/agent/schema');
        assertErrorEnvelope(res, 503, 'unavailable');
        assert.ok(Number(res.headers['retry-after']) > 0);
      });
    }

    if (backend.name === 'postgres') {
      it('a query over budget is cancelled on the server (504) and the connection returns to the pool', async () => {
        const { app, agent } = await pluginApp(demo.db, { budgetMs: 500, database: { url: demo.url!, poolSize: 2 } });
        const locker = new pg.Client({ connectionString: demo.url });
        await locker.connect();
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE rsc IN ACCESS EXCLUSIVE MODE');
        try {
          const res = await request(app).get(`/api/agent/resource/${DEMO.welcome}`);
          assertErrorEnvelope(res, 504, 'timeout');
          // statement_timeout has the same budget: the server gives up the statement, no backend keeps waiting.
          let waiting = 1;
          for (let i = 0; i < 50 && waiting > 0; i++) {
            const r = await locker.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
            );
            waiting = r.rows[0].n;
            if (waiting) await new Promise((resolve) => setTimeout(resolve, 100));
          }
          assert.equal(waiting, 0, 'the cancelled statement still waits on the server');
        } finally {
          await locker.query('ROLLBACK');
          await locker.end();
        }
        const pool = agent.database.pool!;
        for (let i = 0; i < 50 && pool.idleCount !== pool.totalCount; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(pool.idleCount, pool.totalCount, 'every connection is back in the pool');
        assert.equal((await request(app).get(`/api/agent/resource/${DEMO.welcome}`)).status, 200);
        await agent.close();
      });

      it('an exhausted pool is a 503 with Retry-After, not a hang', async () => {
        const { app, agent } = await pluginApp(demo.db, { database: { url: demo.url!, poolSize: 1 } });
        const held = await agent.database.pool!.connect();
        try {
          const res = await request(app).get('/api/agent/search');
          assertErrorEnvelope(res, 503, 'unavailable');
          assert.ok(res.headers['retry-after']);
        } finally {
          held.release();
        }
        assert.equal((await request(app).get('/api/agent/search')).status, 200);
        await agent.close();
      });

      it('a server too slow to answer at start-up: opening tries again, then serves', async () => {
        const target = new URL(demo.url!);
        // The first two connections are never answered: each attempt times out (2 s), the third opens.
        const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) }, { silentFirst: 2 });
        const viaProxy = new URL(demo.url!);
        viaProxy.hostname = '127.0.0.1';
        viaProxy.port = String(proxy.port);
        try {
          const { app, agent } = await pluginApp(demo.db, { database: { url: viaProxy.toString(), poolSize: 2 } });
          assert.ok(proxy.accepted >= 3, `connections through the proxy: ${proxy.accepted}`);
          assert.equal((await request(app).get('/api/agent/search')).status, 200);
          await agent.close();
        } finally {
          await proxy.close();
        }
      });

      it('a stopped database is a 503 quickly, and the process keeps serving', async () => {
        const target = new URL(demo.url!);
        const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
        const viaProxy = new URL(demo.url!);
        viaProxy.hostname = '127.0.0.1';
        viaProxy.port = String(proxy.port);
        const { app, agent } = await pluginApp(demo.db, { database: { url: viaProxy.toString(), poolSize: 2 } });
        assert.equal((await request(app).get('/api/agent/search')).status, 200);
        await proxy.close();
        const res = await request(app).get('/api/agent/search');
        assertErrorEnvelope(res, 503, 'unavailable');
        const again = await request(app).get(`/api/agent/resource/${DEMO.welcome}`);
        assertErrorEnvelope(again, 503, 'unavailable');
        await agent.close();
      });
    }
  });
}
