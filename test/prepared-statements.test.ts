import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import express from 'express';
import pg from 'pg';
import request from 'supertest';
import { sql } from 'kysely';
import { openDatabase, type ContentDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createAgentDiscovery, type AgentDiscovery } from '../src/index.js';
import { statementName } from '../src/db/prepared-statements.js';
import { seedDemoContent } from '../example-site/seed.js';
import { DEMO_PLUGIN_OPTIONS } from './support/demo.js';

describe('statement names', () => {
  it('names reads by their text and leaves everything else unnamed', () => {
    const a = statementName('select 1 as "x" where $1 = 1');
    assert.match(a ?? '', /^ead_[A-Za-z0-9_-]{27}$/);
    assert.equal(statementName('select 1 as "x" where $1 = 1'), a, 'the same text, the same name');
    assert.notEqual(statementName('select 2 as "x" where $1 = 1'), a);
    assert.ok(statementName(' WITH RECURSIVE t(id) AS (SELECT 1) SELECT id FROM t'));
    for (const text of ['insert into rsc (name) values ($1)', 'create table x (id int)', 'update rsc set name = $1', 'begin', 'selection'])
      assert.equal(statementName(text), undefined, text);
  });
});

const serverUrl = process.env.DATABASE_URL;

describe('the preparedStatements database option [postgres]', { skip: serverUrl ? false : 'needs DATABASE_URL' }, () => {
  const dbName = `ead_test_prepared_${process.pid}_${randomBytes(4).toString('hex')}`;
  let url: string;
  const open: ContentDatabase[] = [];
  const agents: AgentDiscovery[] = [];

  /** A plugin on a one-connection pool, so the statements it prepared are visible in that same session. */
  async function plugin(preparedStatements: boolean | undefined) {
    const content = await openDatabase({ url, poolSize: 1, ...(preparedStatements === undefined ? {} : { preparedStatements }) });
    open.push(content);
    const agent = await createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, baseUrl: 'https://example.org', database: { kysely: content.db } });
    agents.push(agent);
    const app = express();
    app.use(agent.router);
    const prepared = async () =>
      (await sql<{ name: string }>`SELECT name FROM pg_prepared_statements ORDER BY name`.execute(content.db)).rows.map((r) => r.name);
    return { app, content, prepared };
  }

  before(async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(serverUrl!);
    u.pathname = `/${dbName}`;
    url = u.toString();
    // Migrations and seeding run through a pool with the option on: DDL and writes stay unnamed.
    const content = await openDatabase({ url, preparedStatements: true });
    await migrateToLatest(content.db);
    await seedDemoContent(content.db);
    await content.close();
  });

  after(async () => {
    for (const a of agents) await a.close();
    for (const c of open) await c.close();
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  });

  /** A body without its sealed continuation (random per encryption). */
  const comparable = (text: string) => text.replace(/cursor=[A-Za-z0-9_-]+/g, 'cursor=…');

  const paths = ['/api/agent/search?sort=newest&pagelen=5', '/api/agent/search?text=harbour', '/api/agent/resource/welcome', '/api/agent/related/open_data?direction=in&pagelen=3', '/llms.txt', '/agent/resource/welcome/markdown'];

  it('is off by default: reads are sent unnamed', async () => {
    const { app, prepared } = await plugin(undefined);
    for (const path of paths) assert.equal((await request(app).get(path)).status, 200, path);
    assert.deepEqual(await prepared(), []);
  });

  it('on: reads are prepared once per connection and answer exactly as unnamed reads do', async () => {
    const off = await plugin(false);
    const on = await plugin(true);
    for (const path of paths) {
      const expected = await request(off.app).get(path);
      for (let i = 0; i < 3; i++) {
        const got = await request(on.app).get(path);
        assert.equal(got.status, 200, path);
        assert.equal(comparable(got.text), comparable(expected.text), `${path}, call ${i + 1}`);
      }
    }
    const names = await on.prepared();
    assert.ok(names.length >= 5, `prepared: ${names.join(', ')}`);
    assert.ok(names.every((n) => n.startsWith('ead_')));
    assert.deepEqual(await off.prepared(), []);
  });

  it('on: a hidden resource stays a 404 after its statement was prepared for a visible one', async () => {
    const { app } = await plugin(true);
    assert.equal((await request(app).get('/api/agent/resource/welcome')).status, 200);
    for (const name of ['members_only', 'draft_article', 'scheduled_article', 'expired_article']) {
      assert.equal((await request(app).get(`/api/agent/resource/${name}`)).status, 404, name);
    }
  });
});
