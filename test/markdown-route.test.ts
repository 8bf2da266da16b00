import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import request from 'supertest';
import { sql } from 'kysely';
import type { Express } from 'express';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';
import { createExampleSite } from '../example-site/app.js';
import { insertResource } from '../example-site/content-store.js';
import { toMarkdown } from '../src/index.js';
import { CORPUS, STUDIED_FAMILIES, type Family } from './fixtures/markdown-corpus/index.js';

const FIXTURES = path.resolve('test/fixtures/markdown-templates');
const EXAMPLE_TEMPLATES = path.resolve('example-site/templates');

for (const backend of surfaceBackends) {
  describe(`Markdown route [${backend.name}]`, () => {
    let demo: DemoDatabase;
    let app: Express;
    before(async () => {
      demo = await openDemoDatabase(backend);
      ({ app } = await pluginApp(demo.db, { baseUrl: 'https://harbour.example', templateDirs: [EXAMPLE_TEMPLATES] }));
    });
    after(() => demo.close());

    it('serves text/markdown with Content-Language and an API access section in the language used', async () => {
      const id = await demo.id(DEMO.welcome);
      const res = await request(app).get(`/agent/resource/${id}/markdown?language=nl`);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'text/markdown; charset=utf-8');
      assert.equal(res.headers['content-language'], 'nl');
      assert.equal(res.headers['x-robots-tag'], 'noindex, nofollow');
      assert.equal(res.headers['cache-control'], 'public, max-age=0, must-revalidate');
      assert.match(res.text, /^# Welkom op de voorbeeldsite/m);
      assert.ok(res.text.includes(`[over-pagina](https://harbour.example/nl/page/${await demo.id(DEMO.about)})`));
      const access = res.text.slice(res.text.indexOf('## API access'));
      assert.ok(res.text.trimEnd().endsWith(access.trimEnd()), 'the API access section ends the document');
      assert.match(access, /\[API help\]\(https:\/\/harbour\.example\/api-help\)/);
      assert.match(access, /\(https:\/\/harbour\.example\/openapi\.json\)/);
      assert.match(access, new RegExp(`\\(https://harbour\\.example/api/agent/resource/${id}\\?language=nl\\)`));
      // The fallback language is the one linked.
      const fallback = await request(app).get(`/agent/resource/${DEMO.englishOnly}/markdown?language=nl`);
      assert.equal(fallback.headers['content-language'], 'en');
      assert.match(fallback.text, /\?language=en\)/);
    });

    it('the JSON read carries the same composition without the API access section; human HTML never has it', async () => {
      const json = await request(app).get(`/api/agent/resource/${DEMO.blocks}`);
      const md = await request(app).get(`/agent/resource/${DEMO.blocks}/markdown`);
      assert.equal(json.status, 200);
      assert.ok(!json.body.result.content.includes('API access'));
      assert.ok(!json.body.result.content.startsWith('---'), 'no front matter in the JSON read');
      const afterFrontMatter = md.text.slice(md.text.indexOf('\n---\n\n') + '\n---\n\n'.length);
      assert.ok(afterFrontMatter.startsWith(json.body.result.content.trimEnd()));
      // Survey absent, the custom block rendered by the site's override, the unsupported one marked.
      assert.ok(!/Do you like harbours/.test(md.text));
      assert.match(md.text, /> \*\*Tip\*\*/);
      assert.match(md.text, /Omitted/);
      assert.equal(json.body.result.content_complete, false);
      assert.ok(!md.text.includes('never in Markdown'));
      const welcome = await request(app).get(`/api/agent/resource/${DEMO.welcome}`);
      assert.equal(welcome.body.result.content_complete, true);
    });

    it('holds exactly what toMarkdown gives for a resource’s body (one conversion path), in process and through a worker', async () => {
      const editors = Object.entries(CORPUS).filter(([family]) => !STUDIED_FAMILIES.includes(family as Family)).flatMap(([, fragments]) => fragments.map((f) => f.html));
      // Each body opens with a section heading: a tab's heading level is relative to the heading before it,
      // which without one would be the composition's title in the route and nothing in toMarkdown's input.
      const section = '<h2>Editors’ markup</h2>\n';
      const bodies = { editors_all: section + editors.join('\n'), editors_few: section + editors.slice(0, 6).join('\n') };
      assert.ok(bodies.editors_all.length > 8 * 1024 && bodies.editors_few.length < 8 * 1024, 'one body converts in a worker, the other in process');
      for (const [name, html] of Object.entries(bodies)) {
        const id = await insertResource(demo.db, { name, category: 'article', title: { en: 'Editors' }, body: { en: html } });
        const res = await request(app).get(`/agent/resource/${id}/markdown`);
        assert.equal(res.status, 200);
        const url = /^url: "?([^"\n]+)"?$/m.exec(res.text)?.[1];
        assert.ok(url, 'the front matter names the page URL');
        assert.ok(res.text.includes(toMarkdown(html, { url }).markdown), `${name}: the route's Markdown holds toMarkdown's`);
      }
    });

    it('the example site page HTML carries no API access section and no body links to the API', async () => {
      const site = await createExampleSite({ database: { kysely: demo.db }, seed: false });
      try {
        const id = await demo.id(DEMO.welcome);
        const page = await request(site.app).get(`/en/page/${id}`);
        assert.equal(page.status, 200);
        const body = page.text.slice(page.text.indexOf('<body>'));
        assert.ok(!body.includes('API access'));
        assert.ok(!/markdown|api-help|openapi/.test(body));
      } finally {
        await site.close();
      }
    });

    it('404 for private, unpublished, scheduled, expired and missing; noindex readable', async () => {
      const missing = await request(app).get('/agent/resource/no_such/markdown');
      assert.equal(missing.status, 404);
      assert.equal(missing.headers['cache-control'], 'no-store');
      for (const name of [DEMO.private, DEMO.unpublished, DEMO.scheduled, DEMO.expired]) {
        const res = await request(app).get(`/agent/resource/${await demo.id(name)}/markdown`);
        assert.equal(res.status, 404, name);
        assert.equal(res.text, missing.text);
        assert.ok(!res.text.includes('SECRET'));
      }
      assert.equal((await request(app).get(`/agent/resource/${DEMO.noindex}/markdown`)).status, 200);
      const ref = await request(app).get(`/agent/resource/${DEMO.privateRef}/markdown`);
      assert.equal(ref.status, 200);
      assert.ok(!ref.text.includes('SECRET'), 'a private page reference is left out');
    });

    it('strict parameters, ETag/304, HEAD parity, 405', async () => {
      const url = `/agent/resource/${DEMO.welcome}/markdown`;
      for (const [q, param] of [['?lang=nl', 'lang'], ['?language=fr', 'language'], ['?language=en&language=nl', 'language']] as const) {
        const res = await request(app).get(url + q);
        assert.equal(res.status, 400);
        assert.match(res.body.message, new RegExp(`parameter "${param}"`));
      }
      assert.equal((await request(app).get('/agent/resource/Bad!/markdown')).status, 400);
      const a = await request(app).get(url);
      const etag = String(a.headers.etag);
      assert.match(etag, /^"/);
      assert.equal((await request(app).get(url).set('If-None-Match', etag)).status, 304);
      const head = await request(app).head(url);
      assert.equal(head.status, 200);
      assert.equal(head.headers.etag, etag);
      assert.equal(head.headers['content-length'], a.headers['content-length']);
      assert.equal(head.text, undefined);
      assert.equal((await request(app).post(url)).status, 405);
      await sql`UPDATE rsc SET body = '{"en":"<p>Changed.</p>","nl":"<p>Gewijzigd.</p>"}'::jsonb WHERE name = ${DEMO.welcome}`.execute(demo.db);
      const changed = await request(app).get(url).set('If-None-Match', etag);
      assert.equal(changed.status, 200);
      assert.match(changed.text, /Changed\./);
    });

    it('a throwing override is a 503 no-store, never an empty 200; empty content is a 200', async () => {
      const { app: broken } = await pluginApp(demo.db, { templateDirs: [path.join(FIXTURES, 'throwing')] });
      const res = await request(broken).get(`/agent/resource/${DEMO.welcome}/markdown`);
      assert.equal(res.status, 503);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.ok(res.headers['retry-after']);
      assert.equal(res.body.error, 'unavailable');
      const json = await request(broken).get(`/api/agent/resource/${DEMO.welcome}`);
      assert.equal(json.status, 503);
      const empty = await demo.db
        .insertInto('rsc')
        .values({ category_id: await demo.id('article'), is_published: true, publication_start: new Date(Date.now() - 1000), language: ['en'] })
        .returning('id')
        .executeTakeFirstOrThrow();
      const ok = await request(app).get(`/agent/resource/${empty.id}/markdown`);
      assert.equal(ok.status, 200);
      assert.match(ok.text, /^---\n[\s\S]*?\n---\n\n## API access/, 'front matter, then only the API access section');
    });
  });
}
