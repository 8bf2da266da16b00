import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import request from 'supertest';
import { surfaceBackends } from './support/backends.js';
import { createExampleSite } from '../example-site/app.js';
import { DEMO } from '../example-site/seed.js';

for (const backend of surfaceBackends) {
  describe(`example site [${backend.name}]`, () => {
    it('serves the home page and a resource page; /id/:id redirects to the page', async () => {
      const content = await backend.open();
      const site = await createExampleSite({ database: { kysely: content.db } });
      try {
        const home = await request(site.app).get('/');
        assert.equal(home.status, 200);
        assert.match(home.text, /<h1>Harbour Example<\/h1>/);
        const id = (await content.db.selectFrom('rsc').select('id').where('name', '=', DEMO.welcome).executeTakeFirstOrThrow()).id;
        const page = await request(site.app).get(`/en/page/${id}`);
        assert.equal(page.status, 200);
        assert.match(page.text, /Welcome to the example site/);
        const nl = await request(site.app).get(`/nl/page/${id}`);
        assert.match(nl.text, /Welkom op de voorbeeldsite/);
        const redirect = await request(site.app).get(`/id/${id}`);
        assert.equal(redirect.status, 302);
        assert.equal(redirect.headers.location, `/en/page/${id}`);
        // The host's own ACL: private pages are hidden from visitors and shown to the administrator.
        const privateId = (await content.db.selectFrom('rsc').select('id').where('name', '=', DEMO.private).executeTakeFirstOrThrow()).id;
        assert.equal((await request(site.app).get(`/en/page/${privateId}`)).status, 404);
        const login = await request(site.app).post('/login').type('form').send({ password: site.session.adminPassword });
        assert.equal(login.status, 303);
        const cookie = String(login.headers['set-cookie']).split(';')[0]!;
        const asAdmin = await request(site.app).get(`/en/page/${privateId}`).set('Cookie', cookie);
        assert.equal(asAdmin.status, 200);
        assert.match(asAdmin.text, /SECRET-PRIVATE-BODY/);
        // ...while the facade stays anonymous.
        assert.equal((await request(site.app).get(`/api/agent/resource/${privateId}`).set('Cookie', cookie)).status, 404);
        assert.equal((await request(site.app).get('/no/such/page')).status, 404);
        // Seeding happens once.
        const count = async () => Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM rsc`.execute(content.db)).rows[0]!.n);
        const before = await count();
        const second = await createExampleSite({ database: { kysely: content.db } });
        assert.equal(await count(), before);
        await second.close();
      } finally {
        await site.close();
        await content.close();
      }
    });
  });
}

describe('example site start-up failures', () => {
  const start = (env: Record<string, string>) =>
    new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'example-site/server.ts'], { env: { ...process.env, ...env } });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (code) => resolve({ code, err }));
    });

  it('an unreachable database exits non-zero with the cause', async () => {
    const r = await start({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '0' });
    assert.notEqual(r.code, 0);
    assert.match(r.err, /failed to start: express-agent-discovery: cannot connect to PostgreSQL/);
  });

  it('a bad PORT exits non-zero with the cause', async () => {
    const r = await start({ PORT: 'eighty' });
    assert.notEqual(r.code, 0);
    assert.match(r.err, /PORT must be a port number/);
  });
});
