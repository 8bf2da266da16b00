import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createAgentDiscovery, type AgentDiscovery } from '../src/index.js';
import { REPO_ROOT } from './support/repo.js';
import { createDirectusDatabase, LEAK, psqlFile, type DirectusDatabase } from './fixtures/directus/fixture-database.js';

/**
 * The plain-view template of the guide (examples/cms/plain-views.sql, a CMS of a few hundred rows)
 * applied verbatim to the Directus fixture and served: exactly the articles the Public policy reads,
 * citing their page, nothing of the others.
 */
describe('examples/cms/plain-views.sql over the Directus fixture', { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let fixture: DirectusDatabase;
  let agent: AgentDiscovery;
  let server: Server;
  let base: string;
  const bodies: string[] = [];

  async function json(path: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${base}${path}`);
    const text = await res.text();
    bodies.push(text);
    return { status: res.status, body: res.status === 200 && text.startsWith('{') ? JSON.parse(text) : text };
  }

  before(async () => {
    fixture = await createDirectusDatabase('plain', 200);
    await psqlFile(fixture.url, `${REPO_ROOT}examples/cms/plain-views.sql`);
    const url = new URL(fixture.url);
    url.searchParams.set('options', '-c search_path=agent,public');
    agent = await createAgentDiscovery({ siteTitle: 'News', database: { url: url.href }, migrate: true, textSearch: { configuration: 'english' }, llmsFull: true });
    const app = express();
    app.use(agent.router);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await agent?.close();
    await fixture?.drop();
  });

  it('serves exactly the articles the Public policy reads, each citing its page, and none of the others', async () => {
    const expected = (await fixture.sql<{ id: number; slug: string }>(
      `SELECT id, slug FROM articles WHERE status = 'published' AND date_published <= (now() AT TIME ZONE 'UTC') ORDER BY id`,
    ));
    const served: number[] = [];
    for (let next: string | null = '/api/agent/search?cat=articles&pagelen=100'; next; ) {
      const { body } = await json(next.replace(base, ''));
      served.push(...body.result.items.map((i: { id: number }) => i.id));
      next = body.result.next ? body.result.next_url : null;
    }
    assert.deepEqual(served, expected.map((a) => a.id));
    const read = await json(`/api/agent/resource/${expected[0]!.id}`);
    assert.equal(read.body.result.page_url, `${base}/articles/${expected[0]!.slug}`);
    const hidden = await fixture.sql<{ id: number }>(`SELECT id FROM articles WHERE NOT (status = 'published' AND coalesce(date_published <= (now() AT TIME ZONE 'UTC'), false))`);
    assert.ok(hidden.length > 20);
    for (const { id } of hidden) {
      assert.equal((await json(`/api/agent/resource/${id}`)).status, 404);
      assert.equal((await json(`/agent/resource/${id}/markdown`)).status, 404);
    }
    for (const path of ['/llms.txt', '/llms-full.txt', `/api/agent/search?text=${LEAK}`, '/api/agent/search?text=ferries&pagelen=100']) {
      assert.equal((await json(path)).status, 200, path);
    }
    assert.deepEqual(bodies.filter((b) => b.includes(LEAK)), []);
  });
});
