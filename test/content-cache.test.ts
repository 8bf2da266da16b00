import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import type { Express } from 'express';
import { backends, surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';
import { createAgentDiscovery, type AgentDiscovery } from '../src/index.js';
import type { Database } from '../src/db/schema.js';
import { writeStoredSettings } from '../src/settings/settings-store.js';
import { NOTHING_STORED } from '../src/settings/settings-schema.js';

/**
 * The build cache (SPEC 18): an answer kept in it is the answer the same read gets with caching off,
 * whatever was written, hidden, scheduled or set in between; a second instance on the same database
 * serves an edit made through the first on its next read; llms-full.txt under a burst while content
 * changes answers 200, each a document of one version.
 */

const BASE = 'https://site.example';
const OPTIONS = { baseUrl: BASE, llmsFull: true } as const;

/**
 * The resources whose reads are compared (and edited): guide pages that include each other, a page
 * linking a private one, the private one, the guides' category (its title is in their front matter) and
 * an author (credited by the welcome page).
 */
const NAMES = [DEMO.welcome, DEMO.pageOuter, DEMO.pageMiddle, DEMO.pageInner, DEMO.privateRef, DEMO.private, DEMO.about, DEMO.blocks, 'guide', 'ada_lovelace'] as const;

const title = (db: Kysely<Database>, id: number, text: string) =>
  sql`UPDATE rsc SET title = jsonb_set(title, '{en}', to_jsonb(${text}::text)), modified = now() WHERE id = ${id}`.execute(db);

type Op =
  | { kind: 'edit'; pick: number; text: string }
  | { kind: 'visibility'; pick: number; visible: boolean }
  | { kind: 'settings'; description: string | null; copyright: string | null }
  | { kind: 'read'; path: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('edit' as const), pick: fc.nat({ max: NAMES.length - 1 }), text: fc.constantFrom('Harbour', 'Dock & quay', 'Nieuw', '“Quoted”') }),
  fc.record({ kind: fc.constant('visibility' as const), pick: fc.nat({ max: NAMES.length - 1 }), visible: fc.boolean() }),
  fc.record({ kind: fc.constant('settings' as const), description: fc.constantFrom(null, 'A site of harbours.', 'Open data.'), copyright: fc.constantFrom(null, '© Example 2026') }),
  fc.record({ kind: fc.constant('read' as const), path: fc.nat({ max: 100 }) }),
);

for (const backend of surfaceBackends) {
  describe(`the build cache [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let ids: number[];
    before(async () => {
      demo = await openDemoDatabase(backend);
      ids = await Promise.all(NAMES.map((n) => demo.id(n)));
    });
    after(async () => {
      await demo.close();
    });

    it('every read with the cache equals the same read without it, over random edits, visibility flips of included pages, settings and reads', async () => {
      const cached = await pluginApp(demo.db, OPTIONS);
      const uncached = await pluginApp(demo.db, { ...OPTIONS, cache: false });
      const paths = [
        '/llms.txt',
        '/llms-full.txt',
        '/openapi.json',
        '/api-help',
        ...ids.map((id, i) => `/agent/resource/${id}/markdown${i % 2 ? '?language=nl' : ''}`),
        // The JSON read shares the Markdown read's cached composition.
        ...ids.map((id, i) => `/api/agent/resource/${id}${i % 2 ? '' : '?language=nl'}`),
      ];
      const reads = paths.filter((p) => p !== '/llms-full.txt');
      const compare = async (path: string) => {
        const [a, b] = await Promise.all([request(cached.app).get(path), request(uncached.app).get(path)]);
        assert.equal(a.status, b.status, path);
        assert.equal(a.text, b.text, path);
        assert.equal(a.headers.etag, b.headers.etag, path);
      };
      try {
        // Fill the cache first, so that later reads are served from it where nothing changed.
        for (const path of paths) await compare(path);
        await fc.assert(
          fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
            for (const op of ops) {
              if (op.kind === 'edit') await title(demo.db, ids[op.pick]!, op.text);
              else if (op.kind === 'visibility') await sql`UPDATE rsc SET visibility = ${op.visible ? 'public' : 'private'} WHERE id = ${ids[op.pick]!}`.execute(demo.db);
              else if (op.kind === 'settings') await writeStoredSettings(demo.db, { ...NOTHING_STORED, description: op.description, siteCopyright: op.copyright });
              // Random reads leave llms-full.txt out (each uncached build of it costs seconds on PGlite); the
              // whole set after the sequence compares it.
              else await compare(reads[op.path % reads.length]!);
            }
            // After every sequence, the whole set: what changed and what did not.
            for (const path of paths) await compare(path);
          }),
          // Each sequence ends with an uncached llms-full.txt build: seconds on PGlite, where two sequences run.
          { numRuns: backend.name === 'pglite' ? 2 : 4 },
        );
      } finally {
        await writeStoredSettings(demo.db, NOTHING_STORED);
        await cached.agent.close();
        await uncached.agent.close();
      }
    });

    it('a publication window that starts without a write shows on the next read; a lost bump would not hide it past the boundary', async () => {
      const { app, agent } = await pluginApp(demo.db, OPTIONS);
      try {
        const id = ids[1]!;
        await sql`UPDATE rsc SET visibility = 'public', is_published = true, publication_start = now() + interval '2 seconds' WHERE id = ${id}`.execute(demo.db);
        assert.equal((await request(app).get(`/agent/resource/${id}/markdown`)).status, 404);
        const before = await request(app).get('/llms-full.txt').expect(200);
        assert.ok(!before.text.includes(`/agent/resource/${id}/markdown`), 'scheduled: not listed yet');
        await sleep(2200);
        const after = await request(app).get('/llms-full.txt').expect(200);
        assert.ok(after.text.includes(`/agent/resource/${id}/markdown`), 'listed once its window started, with no write in between');
        assert.equal((await request(app).get(`/agent/resource/${id}/markdown`)).status, 200);
      } finally {
        await sql`UPDATE rsc SET publication_start = now() - interval '1 day' WHERE id = ${ids[1]!}`.execute(demo.db);
        await agent.close();
      }
    });

    it('llms-full.txt under a burst of 20 while content changes: all 200, each the document of one version', async () => {
      const { app, agent } = await pluginApp(demo.db, { ...OPTIONS, budgetMs: 5000 });
      const server = app.listen(0);
      const [a, b] = [ids[0]!, ids[6]!];
      try {
        const { port } = server.address() as { port: number };
        // Two titles written together, in one transaction per version: a document of one version has the same number in both.
        const writeVersion = (n: number) =>
          demo.db.transaction().execute(async (trx) => {
            await title(trx, a, `Version ${n} of A`);
            await title(trx, b, `Version ${n} of B`);
          });
        // Both public (the property test above may have hidden them).
        await sql`UPDATE rsc SET visibility = 'public' WHERE id IN (${a}, ${b})`.execute(demo.db);
        await writeVersion(0);
        const answers: Promise<{ status: number; text: string }>[] = [];
        for (let n = 1; n <= 4; n++) {
          for (let i = 0; i < 5; i++) answers.push(fetch(`http://127.0.0.1:${port}/llms-full.txt`).then(async (r) => ({ status: r.status, text: await r.text() })));
          await writeVersion(n);
          await sleep(20);
        }
        const done = await Promise.all(answers);
        assert.deepEqual(done.map((d) => d.status), Array(20).fill(200));
        for (const d of done) {
          const versionOf = (which: string) => [...d.text.matchAll(new RegExp(`Version (\\d+) of ${which}`, 'g'))].map((m) => m[1]);
          const [va, vb] = [new Set(versionOf('A')), new Set(versionOf('B'))];
          assert.equal(va.size, 1, 'A in one version');
          assert.deepEqual(vb, va, 'A and B of the same version');
        }
      } finally {
        server.close();
        await agent.close();
      }
    });

    it('memory stays bounded under a flood of distinct bases, languages and ids', async () => {
      const agent = await createAgentDiscovery({ siteTitle: 'Bounded', database: { kysely: demo.db }, cache: { maxEntries: 50, maxBytes: 200_000 } });
      const express = (await import('express')).default;
      const app: Express = express();
      app.set('trust proxy', true);
      app.use(agent.router);
      try {
        for (let i = 0; i < 120; i++) {
          const host = `h${i}.example`;
          await request(app).get('/openapi.json').set('host', host).expect(200);
          await request(app).get(`/agent/resource/${ids[i % ids.length]!}/markdown?language=${i % 2 ? 'en' : 'nl'}`).set('host', host);
        }
        const stats = agent.cacheStats();
        assert.ok(stats.entries <= 50, `${stats.entries} entries`);
        assert.ok(stats.size <= 200_000, `${stats.size} kept`);
        // Every build is kept (and then evicted past the bound) or dropped (it read more than its key covered).
        assert.ok(stats.builds > 100 && stats.evictions >= stats.builds - stats.dropped - 50, `built ${stats.builds}, evicted ${stats.evictions}, dropped ${stats.dropped}: the bound was reached`);
      } finally {
        await agent.close();
      }
    });
  });
}

describe('two instances on one PostgreSQL', { skip: !process.env.DATABASE_URL && 'needs DATABASE_URL' }, () => {
  it('an edit through one is served by the other on its next read (each keeps its own cache)', async () => {
    const backend = backends.find((b) => b.name === 'postgres')!;
    const demo = await openDemoDatabase(backend);
    const instances: AgentDiscovery[] = [];
    try {
      const open = async () => {
        const agent = await createAgentDiscovery({ siteTitle: 'Two', baseUrl: BASE, llmsFull: true, database: { url: demo.url! } });
        instances.push(agent);
        const express = (await import('express')).default;
        const app = express();
        app.use(agent.router);
        return { app, agent };
      };
      const [one, two] = [await open(), await open()];
      const id = await demo.id(DEMO.welcome);
      const path = `/agent/resource/${id}/markdown`;
      await request(two.app).get(path).expect(200);
      await request(two.app).get('/llms-full.txt').expect(200);
      const { rows } = await sql<{ category: string }>`SELECT c.name AS category FROM rsc r JOIN rsc c ON c.id = r.category_id WHERE r.id = ${id}`.execute(demo.db);
      await one.agent.content.put({ id, category: rows[0]!.category, title: 'Edited through the first instance', body: '<p>Now edited.</p>', language: ['en'] });
      const md = await request(two.app).get(path).expect(200);
      assert.match(md.text, /Edited through the first instance/);
      assert.match(md.text, /Now edited\./);
      assert.match((await request(two.app).get('/llms-full.txt').expect(200)).text, /Edited through the first instance/);
      await one.agent.content.remove(id);
      assert.equal((await request(two.app).get(path)).status, 404);
      assert.doesNotMatch((await request(two.app).get('/llms-full.txt').expect(200)).text, /Edited through the first instance/);
    } finally {
      for (const agent of instances) await agent.close();
      await demo.close();
    }
  });
});
