import { describe, it, before, after } from 'node:test';
import { migrations, OWN_MIGRATION_NAMES } from '../migrations/index.js';
import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { createAgentDiscovery, type AgentDiscovery } from '../src/index.js';
import type { Database } from '../src/db/schema.js';
import { MIGRATION_TABLE } from '../src/db/migrator.js';
import { openDatabase } from '../src/db/connection.js';
import { assertContentSchema, schemaState } from '../src/db/schema-check.js';
import { classifyError } from '../src/http/errors.js';
import { DEMO } from '../example-site/seed.js';
import { backends, type Backend } from './support/backends.js';
import { DEMO_PLUGIN_OPTIONS, openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';

/** The routes of every kind the plugin serves that read the database. */
function databaseRoutes(id: number): string[] {
  return [
    '/api/agent/search',
    `/api/agent/resource/${id}`,
    `/agent/resource/${id}/markdown`,
    `/api/agent/related/${id}`,
    `/api/model/edge/get/o/${id}/author`,
    '/llms.txt',
  ];
}

function assertEnvelope(res: request.Response, status: number, code: string, path: string) {
  assert.equal(res.status, status, `${path}: ${res.text}`);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/, path);
  assert.deepEqual(Object.keys(res.body), ['status', 'error', 'message'], path);
  assert.equal(res.body.status, 'error', path);
  assert.equal(res.body.error, code, path);
  assert.equal(res.headers['cache-control'], 'no-store', path);
}

/** A fresh database with nothing in it (no content schema), and how to drop it. */
async function emptyDatabase(backend: Backend): Promise<{ options: { url: string } | { memory: true }; close(): Promise<void> }> {
  if (backend.name === 'pglite') return { options: { memory: true }, close: async () => {} };
  const server = new URL(process.env.DATABASE_URL!);
  const name = `ead_empty_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    options: { url: url.toString() },
    close: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

for (const backend of backends) {
  describe(`database faults [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let welcome: number;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    before(async () => {
      process.on('unhandledRejection', onUnhandled);
      demo = await openDemoDatabase(backend);
      welcome = await demo.id(DEMO.welcome);
    });
    after(async () => {
      process.off('unhandledRejection', onUnhandled);
      await demo.close();
      assert.deepEqual(unhandled, [], 'no unhandled rejection');
    });

    it('without the content schema and without migrate: true, start-up fails naming the fix', async () => {
      const empty = await emptyDatabase(backend);
      try {
        await assert.rejects(
          createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, database: empty.options }),
          (error: Error) => {
            assert.match(error.message, /^express-agent-discovery: the content schema is missing from this database \(no table rsc\)/);
            assert.match(error.message, /migrations not applied: 0001_content_schema/);
            assert.match(error.message, /pass `migrate: true`/);
            if (backend.name === 'postgres') assert.match(error.message, /npx express-agent-discovery migrate/);
            return true;
          },
        );
        // With migrate: true the same database starts and serves.
        const agent = await createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, database: empty.options, migrate: true });
        const app = express().use(agent.router);
        assert.equal((await request(app).get('/api/agent/search')).status, 200);
        await agent.close();
      } finally {
        await empty.close();
      }
    });

    it('a failed start on a URL leaves no connection open; on a host Kysely it names the fix and leaves the handle open', async (t) => {
      if (backend.name === 'postgres') {
        const empty = await emptyDatabase(backend);
        try {
          const url = new URL((empty.options as { url: string }).url);
          await assert.rejects(createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, database: { url: url.toString() } }), /content schema is missing/);
          const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
          await admin.connect();
          const r = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [url.pathname.slice(1)]);
          await admin.end();
          assert.equal(r.rows[0].n, 0, 'the pool was ended');
        } finally {
          await empty.close();
        }
      } else {
        t.diagnostic('the URL case is PostgreSQL only');
      }
      // A host's own Kysely on a database without the schema: the error names the fix, the handle stays open.
      const empty = await emptyDatabase(backend);
      const host = 'url' in empty.options ? await openDatabase({ url: empty.options.url }) : await openDatabase({ memory: true });
      try {
        await assert.rejects(
          createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, database: { kysely: host.db } }),
          /^Error: express-agent-discovery: the content schema is missing from this database \(no table rsc\).*migrateToLatest\(db\)/,
        );
        assert.equal((await sql<{ n: number }>`SELECT 1 AS n`.execute(host.db)).rows[0]!.n, 1, 'the host handle is still open');
      } finally {
        await host.close();
        await empty.close();
      }
    });

    it('content tables (or views) the host keeps without their migration record are accepted as they are', async () => {
      // A host schema: the content relations are the host's (no record of the content migrations);
      // the plugin's own tables are migrated and recorded.
      const content = Object.keys(migrations).filter((name) => !OWN_MIGRATION_NAMES.includes(name));
      const moved = await sql<{ name: string; timestamp: string }>`
        DELETE FROM ${sql.table(MIGRATION_TABLE)} WHERE name IN (${sql.join(content)}) RETURNING name, timestamp`.execute(demo.db);
      try {
        assert.equal((await schemaState(demo.db)).owner, 'host');
        const { app } = await pluginApp(demo.db);
        assert.equal((await request(app).get(`/api/agent/resource/${welcome}`)).status, 200);
      } finally {
        for (const row of moved.rows) {
          await sql`INSERT INTO ${sql.table(MIGRATION_TABLE)} (name, timestamp) VALUES (${row.name}, ${row.timestamp})`.execute(demo.db);
        }
      }
    });

    it('a schema older than this version fails at start, listing the migrations not applied', async () => {
      const known = ['0001_content_schema', '0002_from_a_newer_version'];
      const state = await schemaState(demo.db, known);
      assert.deepEqual(
        { owner: state.owner, present: state.present, missing: state.missing, pending: state.pending, droppedOwnTables: state.droppedOwnTables },
        { owner: 'plugin', present: ['rsc', 'category', 'predicate_category', 'edge', 'medium'], missing: [], pending: ['0002_from_a_newer_version'], droppedOwnTables: [] },
      );
      await assert.rejects(
        assertContentSchema(demo.db, 'url', known),
        /^Error: express-agent-discovery: the content schema is older than this version of the package; migrations not applied: 0002_from_a_newer_version\. To fix it, run `npx express-agent-discovery migrate` with DATABASE_URL set to this database, or pass `migrate: true`\.$/,
      );
      assert.deepEqual((await schemaState(demo.db)).pending, []);
      await assertContentSchema(demo.db, 'kysely');
    });

    it('an unexpected error inside any plugin route is a 500 internal_error envelope, reported once through onError', async () => {
      const reported: Array<{ error: unknown; path: string }> = [];
      const { app, agent } = await pluginApp(demo.db, { onError: (error, req) => reported.push({ error, path: req.originalUrl }) });
      // The host's own page with the plugin's links, and the host's HTML error page for its own errors.
      app.get('/page/:id', agent.resourceLinks('id'), (_req, res) => {
        res.type('html').send('<p>host page</p>');
      });
      app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        res.status(500).type('html').send('<pre>host error page</pre>');
      });
      for (const path of databaseRoutes(welcome)) assert.equal((await request(app).get(path)).status, 200, path);
      // Schema drift under a running plugin: a column every visibility check reads is gone.
      await sql`ALTER TABLE rsc RENAME COLUMN is_published TO is_published_moved`.execute(demo.db);
      try {
        for (const path of databaseRoutes(welcome)) {
          const res = await request(app).get(path);
          assertEnvelope(res, 500, 'internal_error', path);
          assert.doesNotMatch(res.text, /is_published|column|select|from|at |\.ts:/i, `${path}: no SQL, no stack`);
          const head = await request(app).head(path);
          assert.equal(head.status, 500, path);
          assert.equal(head.headers['cache-control'], 'no-store', path);
        }
        assert.deepEqual(
          reported.map((r) => r.path),
          databaseRoutes(welcome).flatMap((p) => [p, p]),
          'each failure is reported once, with its request',
        );
        for (const r of reported) assert.match((r.error as Error).message, /is_published/);
        // On the host's page the failure costs the plugin's links, never the page.
        reported.length = 0;
        const page = await request(app).get(`/page/${welcome}`);
        assert.equal(page.status, 200);
        assert.equal(page.text, '<p>host page</p>');
        assert.equal(reported.length, 1);
      } finally {
        await sql`ALTER TABLE rsc RENAME COLUMN is_published_moved TO is_published`.execute(demo.db);
      }
      assert.equal((await request(app).get(`/api/agent/resource/${welcome}`)).status, 200);
    });

    it('a host callback that throws inside a plugin route is a 500 envelope; by default reported as a process warning', async () => {
      const warnings: Error[] = [];
      const onWarning = (w: Error) => {
        if (w.name === 'ExpressAgentDiscoveryWarning') warnings.push(w);
      };
      process.on('warning', onWarning);
      try {
        const { app } = await pluginApp(demo.db, {
          pageUrl: (r) => {
            if (r.id === welcome) throw new Error('page index unavailable');
            return `/${r.language}/page/${r.id}`;
          },
        });
        const ok = await request(app).get(`/api/agent/resource/${await demo.id(DEMO.pageOuter)}`);
        assert.equal(ok.status, 200);
        const res = await request(app).get(`/api/agent/resource/${welcome}`);
        assertEnvelope(res, 500, 'internal_error', 'resource');
        assert.doesNotMatch(res.text, /page index unavailable/);
        await new Promise((resolve) => setImmediate(resolve));
        assert.equal(warnings.length, 1);
        assert.equal((warnings[0] as Error & { code?: string }).code, 'EAD_INTERNAL_ERROR');
        assert.match(warnings[0]!.message, new RegExp(`^express-agent-discovery: GET /api/agent/resource/${welcome} failed: Error: page index unavailable$`));
      } finally {
        process.off('warning', onWarning);
      }
    });

    it('after the plugin closes its database, every route answers 503 with Retry-After and the process keeps serving', async () => {
      const own: AgentDiscovery = await createAgentDiscovery({
        ...DEMO_PLUGIN_OPTIONS,
        database: backend.name === 'pglite' ? { memory: true } : { url: demo.url! },
        migrate: true,
      });
      const reported: unknown[] = [];
      const app = express();
      app.use(own.linkHeaders);
      app.use(own.router);
      app.get('/page/:id', own.resourceLinks('id'), (_req, res) => {
        res.type('html').send('<p>host page</p>');
      });
      assert.equal((await request(app).get('/api/agent/search')).status, 200);
      await own.close();
      for (const path of databaseRoutes(welcome)) {
        const res = await request(app).get(path);
        assertEnvelope(res, 503, 'unavailable', path);
        assert.ok(Number(res.headers['retry-after']) > 0, path);
      }
      assert.deepEqual(reported, []);
      // Documents that need no database, and the host's pages, are still served.
      assert.equal((await request(app).get('/.well-known/api-catalog')).status, 200);
      const page = await request(app).get(`/page/${welcome}`);
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.headers.link ?? '', /markdown/);
    });

    if (backend.name === 'postgres') {
      /** Starts a request that waits on a table lock, terminates its backend, and returns the answer. */
      async function terminatedInFlight(app: express.Express): Promise<request.Response> {
        const locker = new pg.Client({ connectionString: demo.url });
        await locker.connect();
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE rsc IN ACCESS EXCLUSIVE MODE');
        try {
          const pending = request(app).get(`/api/agent/resource/${welcome}`).then((r) => r);
          let terminated = 0;
          for (let i = 0; i < 100 && terminated === 0; i++) {
            const r = await locker.query(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
            );
            terminated = r.rowCount ?? 0;
            if (!terminated) await new Promise((resolve) => setTimeout(resolve, 20));
          }
          assert.equal(terminated, 1, 'the request waited on the lock');
          return await pending;
        } finally {
          await locker.query('ROLLBACK');
          await locker.end();
        }
      }

      it('a backend terminated under a request in flight (57P01) is a 503; the broken client is discarded, the next request is a 200', async () => {
        const { app, agent } = await pluginApp(demo.db, { database: { url: demo.url!, poolSize: 2 } });
        const res = await terminatedInFlight(app);
        assertEnvelope(res, 503, 'unavailable', 'resource');
        assert.ok(Number(res.headers['retry-after']) > 0);
        const pool = agent.database.pool!;
        assert.equal(pool.totalCount, pool.idleCount);
        for (let i = 0; i < 4; i++) assert.equal((await request(app).get(`/api/agent/resource/${welcome}`)).status, 200);
        await agent.close();
      });

      it('a client whose backend was terminated is discarded at once: the very next query on the pool succeeds', async () => {
        const content = await openDatabase({ url: demo.url!, poolSize: 1 });
        const admin = new pg.Client({ connectionString: demo.url });
        await admin.connect();
        try {
          for (let round = 0; round < 5; round++) {
            const pending = sql`SELECT pg_sleep(5) AS "terminate_me"`.execute(content.db).then(() => undefined, (e: unknown) => e);
            let terminated = 0;
            for (let i = 0; i < 200 && terminated === 0; i++) {
              const r = await admin.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%terminate_me%' AND pid <> pg_backend_pid()",
              );
              terminated = r.rowCount ?? 0;
              if (!terminated) await new Promise((resolve) => setTimeout(resolve, 10));
            }
            assert.equal((await pending as { code?: string } | undefined)?.code, '57P01');
            // No pause: the FATAL message and the closing socket arrive apart, and the pool must not hand the client out in between.
            const next = await sql<{ n: number }>`SELECT 1 AS n`.execute(content.db);
            assert.equal(next.rows[0]!.n, 1, `round ${round}`);
          }
        } finally {
          await admin.end();
          await content.close();
        }
      });

      it('a host\'s own Kysely that reads bigint as strings fails at start, naming the fix', async () => {
        const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: demo.url, max: 1 }) }) });
        try {
          await assert.rejects(
            createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, database: { kysely: db } }),
            /^Error: express-agent-discovery: the Kysely instance passed as `database: \{ kysely \}` reads bigint columns as string values.*getTypeParser/,
          );
        } finally {
          await db.destroy();
        }
      });

      it('the same through a host\'s own Kysely and pg Pool (the host gives its clients error listeners)', async () => {
        // bigint ids as numbers, as the plugin's own pool reads them.
        const types = { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser };
        const pool = new pg.Pool({ connectionString: demo.url, max: 2, types });
        pool.on('error', () => {});
        pool.on('connect', (client) => client.on('error', () => {}));
        const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
        const { app } = await pluginApp(db);
        const removed = new Promise((resolve) => pool.once('remove', resolve));
        const res = await terminatedInFlight(app);
        assertEnvelope(res, 503, 'unavailable', 'resource');
        // The backend reports FATAL before its socket closes, and a host's pool drops the client only
        // at the close: the plugin cannot hurry a pool it does not own (its own pool discards the client
        // at the FATAL message, tested above). On a loaded machine the next request could come first.
        await Promise.race([removed, new Promise((resolve) => setTimeout(resolve, 2000))]);
        assert.equal((await request(app).get(`/api/agent/resource/${welcome}`)).status, 200);
        await db.destroy();
        assertEnvelope(await request(app).get(`/api/agent/resource/${welcome}`), 503, 'unavailable', 'after destroy');
      });

      it('classifies the errors the drivers really raise for a lost database as unavailable', async () => {
        const errors: Record<string, unknown> = {};
        const client = new pg.Client({ connectionString: demo.url });
        client.on('error', () => {});
        await client.connect();
        const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
        const sleeping = client.query('SELECT pg_sleep(5)').catch((e: unknown) => e);
        const admin = new pg.Client({ connectionString: demo.url });
        await admin.connect();
        for (let i = 0; i < 100; i++) {
          const r = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", [pid]);
          if (r.rowCount) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        await admin.end();
        errors.terminated = await sleeping;
        errors.brokenClient = await client.query('SELECT 1').catch((e: unknown) => e);
        const closed = new pg.Client({ connectionString: demo.url });
        await closed.connect();
        await closed.end();
        errors.closedClient = await closed.query('SELECT 1').catch((e: unknown) => e);
        const ended = new pg.Pool({ connectionString: demo.url });
        await ended.end();
        errors.endedPool = await ended.query('SELECT 1').catch((e: unknown) => e);
        const refused = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
        errors.refused = await refused.connect().catch((e: unknown) => e);
        const messages = Object.fromEntries(Object.entries(errors).map(([k, e]) => [k, `${(e as { code?: string }).code ?? ''} ${(e as Error).message}`]));
        assert.match(messages.terminated!, /^57P01 /);
        // Which of the two a query on the broken client gets depends on whether its socket's close was
        // processed first; both are a lost database.
        assert.match(messages.brokenClient!, /is not queryable|Connection terminated unexpectedly/);
        assert.match(messages.closedClient!, /Client was closed and is not queryable/);
        assert.match(messages.endedPool!, /Cannot use a pool after calling end on the pool/);
        assert.match(messages.refused!, /^ECONNREFUSED /);
        for (const [name, error] of Object.entries(errors)) {
          assert.equal(classifyError(error)?.code, 'unavailable', `${name}: ${messages[name]}`);
        }
        // An ordinary SQL error is not a database outage.
        const bad = await demo.db.selectFrom('rsc').select(sql`no_such_column`.as('x')).execute().catch((e: unknown) => e);
        assert.equal(classifyError(bad), undefined);
      });
    }
  });
}
