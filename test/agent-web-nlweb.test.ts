import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { listen } from './support/mcp-client.js';
import { createExampleSite } from '../example-site/app.js';

// SPEC §20, issue 34 item 8: NLWeb's /ask in list mode: a request shaped by the protocol's TypeSpec
// (nlweb-ai/nlweb-typespec main.tsp, version 0.5) gets an AskResponse of the search's results as
// schema.org items with their page URLs, as JSON or as the protocol's stream; a mode that needs a
// language model gets the list and says so; bad input is a 400 naming the field.

/** AskResponse as the TypeSpec defines it (its JSON encoding: `_meta`, `content` of text and resource items). */
const textContent = z.strictObject({ type: z.literal('text'), text: z.string() });
const resourceContent = z.strictObject({
  type: z.literal('resource'),
  resource: z.object({ uri: z.string().optional(), mimeType: z.string().optional(), text: z.string().optional(), data: z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))]) }),
});
const askResponse = z
  .object({
    _meta: z.looseObject({ conversation_id: z.string().optional(), response_type: z.enum(['Answer', 'Elicitation', 'Promise']).optional(), request_id: z.string().optional(), version: z.string().optional() }),
    content: z.array(z.union([textContent, resourceContent])).min(1),
  })
  .strict()
  .refine((r) => r.content.some((c) => c.type === 'text'), 'at least one text content');

type AskResponse = z.output<typeof askResponse>;

/** A TypeSpec-shaped AskRequest (every model of it used). */
const request = (text: string, extra: Record<string, unknown> = {}) => ({
  query: { text, site: ['example.org'], type: 'article', location: 'harbour' },
  context: { prev: ['what is this site about'], text: 'an agent looking for harbour articles', memory: ['prefers English'] },
  return_response: { streaming: false, mode: 'list', lang: 'en', client_type: 'web', ...extra },
  meta: { conversation_id: 'conv-1', api_version: '0.5' },
});

const post = (origin: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${origin}/ask`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The messages of a Server-Sent Events body, each `data:` line parsed. */
const events = (body: string) => body.split('\n\n').filter(Boolean).map((e) => JSON.parse(e.replace(/^data: /, '')) as Record<string, any>);

for (const backend of surfaceBackends) {
  describe(`NLWeb /ask in list mode [${backend.name}]`, () => {
    let site: RunningSite;
    before(async () => {
      site = await startExampleSite(backend);
    });
    after(() => site?.close());

    it('a TypeSpec-shaped request gets an AskResponse: a text, then the search results as schema.org items with their page URLs', async () => {
      const res = await post(site.origin, request('harbour'));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const body = askResponse.parse(await res.json()) as AskResponse;
      assert.deepEqual(body._meta, { response_type: 'Answer', version: '0.5', mode: 'list', conversation_id: 'conv-1' });
      const search = (await (await fetch(`${site.origin}/api/agent/search?text=harbour&pagelen=10`)).json()) as { result: { items: { page_url: string; title: string }[] } };
      const items = body.content.filter((c) => c.type === 'resource').map((c) => c.resource.data as Record<string, unknown>);
      assert.deepEqual(items.map((i) => i.url), search.result.items.map((i) => i.page_url));
      assert.deepEqual(items.map((i) => i.name), search.result.items.map((i) => i.title));
      for (const item of items) {
        assert.equal(item['@context'], 'https://schema.org');
        assert.equal(item['@type'], 'CreativeWork');
        assert.equal((await fetch(item.url as string, { headers: { accept: 'text/markdown' } })).status, 200);
      }
      assert.match((body.content[0] as { text: string }).text, /results on Harbour Example for "harbour"/);
      assert.doesNotMatch(JSON.stringify(body), /SECRET|GEHEIM|salar/i);
    });

    it('the streaming form: _meta, the text, each result, then done, the same items as JSON; JSON for a client that accepts only JSON', async () => {
      const json = askResponse.parse(await (await post(site.origin, request('harbour'))).json());
      const res = await post(site.origin, request('harbour', { streaming: true }), { accept: 'text/event-stream' });
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      const messages = events(await res.text());
      assert.deepEqual(messages[0], { _meta: json._meta });
      assert.deepEqual(messages.at(-1), { type: 'done' });
      assert.deepEqual(messages.slice(1, -1).flatMap((m) => m.content), json.content);
      // The protocol's default is streaming; a client that accepts only JSON still gets JSON.
      const { return_response: _omitted, ...noPreference } = request('harbour');
      const byDefault = await post(site.origin, noPreference, { accept: '*/*' });
      assert.equal(byDefault.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      const jsonOnly = await post(site.origin, request('harbour', { streaming: true }));
      assert.equal(jsonOnly.headers.get('content-type'), 'application/json; charset=utf-8');
    });

    it('a mode that needs a language model answers with the list and says so; GET /ask is the same request', async () => {
      const list = askResponse.parse(await (await post(site.origin, request('harbour'))).json());
      const summary = askResponse.parse(await (await post(site.origin, request('harbour', { mode: 'summarize' }))).json());
      assert.match((summary.content[0] as { text: string }).text, /^The mode "summarize" needs a language model/);
      assert.deepEqual(summary.content.slice(1), list.content.slice(1));
      const get = askResponse.parse(await (await fetch(`${site.origin}/ask?query=harbour&streaming=false&conversation_id=conv-1`)).json());
      assert.deepEqual(get.content, list.content);
      const none = askResponse.parse(await (await post(site.origin, request('zzqxj nothing matches'))).json());
      assert.deepEqual(none.content.map((c) => c.type), ['text']);
      assert.match((none.content[0] as { text: string }).text, /^No results/);
    });

    it('bad input: an empty, huge or missing query, a body that is not JSON: 400 naming the field; too large a body 413; other methods 405', async () => {
      const expect400 = async (res: Response, field: string) => {
        const body = (await res.json()) as { error: string; message: string };
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(body.error, 'bad_request');
        assert.match(body.message, new RegExp(`"${field.replace('.', '\\.')}"`));
      };
      await expect400(await post(site.origin, request('')), 'query.text');
      await expect400(await post(site.origin, request('   ')), 'query.text');
      await expect400(await post(site.origin, request('x'.repeat(513))), 'query.text');
      await expect400(await post(site.origin, { return_response: { mode: 'list' } }), 'query');
      await expect400(await post(site.origin, { query: { text: 7 } }), 'query.text');
      await expect400(await post(site.origin, '{"query":'), 'body');
      await expect400(await fetch(`${site.origin}/ask`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'harbour' }), 'body');
      await expect400(await fetch(`${site.origin}/ask?query=harbour&bogus=1`), 'bogus');
      await expect400(await fetch(`${site.origin}/ask`), 'query.text');
      assert.equal((await post(site.origin, { query: { text: 'a', pad: 'x'.repeat(20_000) } })).status, 413);
      const put = await fetch(`${site.origin}/ask`, { method: 'PUT' });
      assert.equal(put.status, 405);
      assert.equal(put.headers.get('allow'), 'GET, HEAD, POST');
    });

    it('CORS on the example site (a preflight allows POST with Content-Type); off, /ask is the host\'s', async () => {
      const preflight = await fetch(`${site.origin}/ask`, { method: 'OPTIONS', headers: { origin: 'http://agent.example.net', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.match(preflight.headers.get('access-control-allow-methods')!, /POST/);
      assert.match(preflight.headers.get('access-control-allow-headers')!, /Content-Type/);
      assert.equal((await post(site.origin, request('harbour'))).headers.get('access-control-allow-origin'), '*');
      const second = await createExampleSite({ database: { kysely: site.content.db }, plugin: { nlweb: false } });
      const web = await listen(second.app);
      try {
        assert.equal((await fetch(`${web.origin}/ask?query=harbour`, { headers: { accept: 'text/html' } })).status, 404);
      } finally {
        await web.close();
        await second.close();
      }
    });
  });
}
