import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { sql } from 'kysely';
import { DEMO } from '../example-site/seed.js';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';

/**
 * llms-full.txt assembled from the kept compositions: one listing of the visible set with each
 * resource's exact key, then the Markdown kept under it. A write composes again only what it touched
 * (a write nothing listed shows composes nothing: only the document is assembled again), and the
 * document is byte for byte the one an instance without the cache composes whole.
 */

const BASE = 'https://harbour.example';
const OPTIONS = { baseUrl: BASE, llmsFull: true } as const;

for (const backend of surfaceBackends) {
  describe(`llms-full.txt from kept compositions [${backend.name}]`, () => {
    let demo: DemoDatabase;
    before(async () => {
      demo = await openDemoDatabase(backend);
    });
    after(() => demo.close());

    const title = (id: number, text: string) =>
      sql`UPDATE rsc SET title = jsonb_set(title, '{en}', to_jsonb(${text}::text)), modified = now() WHERE id = ${id}`.execute(demo.db);

    it('a write costs the compositions it touched, not a build; the document equals the one composed whole', async () => {
      const kept = await pluginApp(demo.db, OPTIONS);
      const whole = await pluginApp(demo.db, { ...OPTIONS, cache: false });
      try {
        const read = async () => {
          const before = kept.agent.cacheStats().builds;
          const [a, b] = await Promise.all([request(kept.app).get('/llms-full.txt').expect(200), request(whole.app).get('/llms-full.txt').expect(200)]);
          assert.equal(a.text, b.text, 'the kept pieces make the document composed whole');
          assert.equal(a.headers.etag, b.headers.etag);
          return { text: a.text, builds: kept.agent.cacheStats().builds - before };
        };
        // The first builds compose every listed resource (the first learns what each composition reads,
        // the next keeps what read beyond its key then).
        const draft = await demo.id(DEMO.unpublished);
        await read();
        await title(draft, 'A draft');
        await read();
        assert.equal((await read()).builds, 0, 'nothing written: the document is kept');
        // A draft nothing lists or shows: the document is assembled again, nothing is composed.
        await title(draft, 'A draft, edited');
        assert.equal((await read()).builds, 1, 'the document alone');
        // A listed page: its Markdown and its content are composed again, nothing else.
        await title(await demo.id(DEMO.welcome), 'Welcome, edited for the newsroom');
        const edited = await read();
        assert.match(edited.text, /Welcome, edited for the newsroom/);
        assert.equal(edited.builds, 3, 'the document, the Markdown and the content of the edited page');
        // A page hidden: gone from the next document (the pages that link it are composed again).
        await sql`UPDATE rsc SET visibility = 'private' WHERE id = ${await demo.id(DEMO.welcome)}`.execute(demo.db);
        assert.doesNotMatch((await read()).text, /Welcome, edited for the newsroom/);
      } finally {
        await sql`UPDATE rsc SET visibility = 'public' WHERE id = ${await demo.id(DEMO.welcome)}`.execute(demo.db);
        await kept.agent.close();
        await whole.agent.close();
      }
    });
  });
}
