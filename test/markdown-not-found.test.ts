import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import { surfaceBackends } from './support/backends.js';
import { openDemoDatabase, pluginApp, type DemoDatabase } from './support/demo.js';
import { DEMO } from '../example-site/seed.js';

const CLAUDE_CODE = 'text/markdown, text/html, */*';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

for (const backend of surfaceBackends) {
  describe(`Markdown 404s for agents that asked for Markdown [${backend.name}]`, () => {
    let demo: DemoDatabase;
    before(async () => {
      demo = await openDemoDatabase(backend);
    });
    after(async () => {
      await demo?.close();
    });

    it('a plugin 404 is Markdown pointing to search and llms.txt for a Markdown request, the JSON envelope otherwise, 404 both', async () => {
      const { app, agent } = await pluginApp(demo.db);
      const privateId = await demo.id(DEMO.private);
      for (const path of [`/agent/resource/${privateId}/markdown`, '/agent/resource/999999/markdown', `/api/agent/resource/${DEMO.private}`, '/api/agent/nothing']) {
        const md = await request(app).get(path).set('accept', CLAUDE_CODE);
        assert.equal(md.status, 404, path);
        assert.match(md.headers['content-type']!, /^text\/markdown; charset=utf-8/, path);
        assert.match(md.text, /^# Not found\n/);
        assert.match(md.text, /\[Search this site\]\(\/api\/agent\/search\)/);
        assert.match(md.text, /\[llms\.txt\]\(\/llms\.txt\)/);
        assert.equal(md.headers['cache-control'], 'no-store');
        assert.match(md.headers.vary!, /Accept/);
        assert.ok(!md.text.includes('members'), 'nothing of the hidden resource');
        const head = await request(app).head(path).set('accept', CLAUDE_CODE);
        assert.equal(head.status, 404);
        for (const accept of [BROWSER, 'application/json', '*/*']) {
          const json = await request(app).get(path).set('accept', accept);
          assert.equal(json.status, 404, `${path} ${accept}`);
          assert.equal(json.body.error, 'not_found');
          assert.match(json.headers.vary!, /Accept/);
        }
      }
      await agent.close();
    });

    it("a host's own 404 page can answer agents the same way", async () => {
      const { agent } = await pluginApp(demo.db);
      const app = express();
      app.use(agent.router);
      app.use((req, res) => {
        if (!agent.sendMarkdownNotFound(req, res)) res.status(404).type('html').send('<h1>Not found</h1>');
      });
      const md = await request(app).get('/no/such/page').set('accept', CLAUDE_CODE);
      assert.equal(md.status, 404);
      assert.match(md.text, /^# Not found/);
      const html = await request(app).get('/no/such/page').set('accept', BROWSER);
      assert.equal(html.status, 404);
      assert.equal(html.text, '<h1>Not found</h1>');
      await agent.close();
    });
  });
}
