// One agent policy, kept on every surface, over real HTTP: the example site with the policy of the issue
// (block training, block spoofed agents, charge Bingbot) behind `trust proxy` loopback, so X-Forwarded-For gives
// the client address agents are verified by against the shipped published ranges. Every path of PATHS is asked
// by GPTBot (403 everywhere but robots.txt), a spoofed and a verified Googlebot, Bingbot with and without an
// offer, a browser; robots.txt, Content Signals and the RSL licence say what is enforced; the ledger and the
// traffic report record it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { backends, type TestDatabase } from './support/backends.js';
import { listen } from './support/mcp-client.js';
import { createExampleSite, type ExampleSite } from '../example-site/app.js';
import { PATHS } from '../src/paths.js';

const POLICY = {
  rules: [
    { purpose: 'training', action: 'block' },
    { verification: 'spoofed', action: 'block' },
    { agent: 'bingbot', action: 'charge', price: '0.002' },
  ],
};

const UA = {
  gptbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.3; +https://openai.com/gptbot)',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  bingbot: 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  chrome: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
};
/** Addresses inside the operators' published ranges (data/agent-ranges.json), and one outside every list. */
const FROM = { gptbot: '4.227.36.5', google: '192.178.4.7', bing: '13.66.139.20', elsewhere: '203.0.113.9' };

for (const backend of backends) {
  describe(`agent policy (${backend.name})`, () => {
    let content: TestDatabase;
    let site: ExampleSite;
    let origin: string;
    let close: () => Promise<void>;
    let welcome: number;
    before(async () => {
      content = await backend.openSeeded();
      welcome = Number((await content.db.selectFrom('rsc').select('id').where('name', '=', 'welcome').executeTakeFirstOrThrow()).id);
      site = await createExampleSite({ database: { kysely: content.db }, seed: false, trustProxy: 'loopback', plugin: { agentPolicy: POLICY, traffic: { flushIntervalMs: 300_000 } } });
      const web = await listen(site.app);
      origin = web.origin;
      close = async () => (await web.close(), await site.close());
    });
    after(async () => {
      await close?.().catch(() => {});
      await content?.close();
    });

    const get = (path: string, headers: Record<string, string>, method = 'GET') => fetch(`${origin}${path}`, { method, headers, redirect: 'manual' });

    /** Every path the plugin answers (PATHS), filled in, and the site's own pages in both forms. */
    const surfaces = () => {
      const paths: string[] = [];
      for (const value of Object.values(PATHS)) {
        if (typeof value !== 'object' || !('template' in value)) continue;
        paths.push(value.url({ id: welcome, category: 'guides', from: 1, predicate: 'author' } as never));
      }
      return [...paths, `/en/page/${welcome}`, `/en/page/${welcome}.md`, '/', '/index.md', '/mcp'];
    };

    it('GPTBot from its own range is refused on every surface, before anything is read; robots.txt stays open', async () => {
      const headers = { 'user-agent': UA.gptbot, 'x-forwarded-for': FROM.gptbot };
      const paths = surfaces();
      assert.ok(paths.length >= 25, `${paths.length} surfaces`);
      for (const path of paths) {
        const res = await get(path, headers);
        const body = await res.text();
        if (path === PATHS.robotsTxt.template) {
          assert.equal(res.status, 200, path);
          continue;
        }
        assert.equal(res.status, 403, path);
        assert.equal(res.headers.get('cache-control'), 'no-store', path);
        assert.match(body, /policy refuses this agent/, path);
        assert.match(body, /robots\.txt/, path);
      }
      // The format follows the request: JSON under the facade, Markdown for a Markdown client, JSON-RPC for MCP.
      assert.match((await get('/api/agent/search', headers)).headers.get('content-type') ?? '', /^application\/json/);
      assert.match((await get(`/en/page/${welcome}`, { ...headers, accept: 'text/markdown' })).headers.get('content-type') ?? '', /^text\/markdown/);
      const mcp = await fetch(`${origin}/mcp`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      assert.equal(mcp.status, 403);
      assert.equal(((await mcp.json()) as { error: { code: number } }).error.code, -32001);
      // Retrying with other headers gets the same answer: the decision is on who asks and the path only.
      assert.equal((await get(`/en/page/${welcome}`, { ...headers, accept: 'text/html', 'crawler-max-price': 'USD 10' })).status, 403);
    });

    it('a spoofed Googlebot is refused, a verified one served; a browser is served everywhere', async () => {
      assert.equal((await get(`/en/page/${welcome}`, { 'user-agent': UA.googlebot, 'x-forwarded-for': FROM.elsewhere })).status, 403);
      assert.equal((await get(`/en/page/${welcome}`, { 'user-agent': UA.googlebot, 'x-forwarded-for': FROM.google })).status, 200);
      assert.equal((await get('/api/agent/search?text=harbour', { 'user-agent': UA.googlebot, 'x-forwarded-for': FROM.google })).status, 200);
      // A forged X-Forwarded-For chain: only the hop trust proxy names is the client (the socket is loopback, trusted; the
      // first untrusted hop from the right is the client).
      assert.equal((await get(`/en/page/${welcome}`, { 'user-agent': UA.googlebot, 'x-forwarded-for': `${FROM.google}, ${FROM.elsewhere}` })).status, 403);
      assert.equal((await get(`/en/page/${welcome}`, { 'user-agent': UA.googlebot, 'x-forwarded-for': 'garbage, ::::' })).status, 200, 'an address that is not one is unverified, never an error');
      for (const path of [`/en/page/${welcome}`, '/llms.txt', `/agent/resource/${welcome}/markdown`, '/api/agent/search?text=harbour']) {
        assert.equal((await get(path, { 'user-agent': UA.chrome, 'x-forwarded-for': FROM.elsewhere })).status, 200, path);
      }
    });

    it('Bingbot from its range pays per crawl: 402 with crawler-price, served with crawler-charged for an offer, junk offers are none', async () => {
      const bing = { 'user-agent': UA.bingbot, 'x-forwarded-for': FROM.bing };
      const asked = await get(`/en/page/${welcome}`, bing);
      assert.equal(asked.status, 402);
      assert.equal(asked.headers.get('crawler-price'), 'USD 0.002');
      for (const offer of <Record<string, string>[]>[{ 'crawler-max-price': 'USD 0.001' }, { 'crawler-max-price': '-1' }, { 'crawler-exact-price': '0.0021' }, { 'crawler-max-price': 'lots' }, { 'crawler-max-price': '1e9' }]) {
        assert.equal((await get(`/en/page/${welcome}`, { ...bing, ...offer })).status, 402, JSON.stringify(offer));
      }
      const repeated = await fetch(`${origin}/en/page/${welcome}`, { headers: [['user-agent', UA.bingbot], ['x-forwarded-for', FROM.bing], ['crawler-max-price', '1'], ['crawler-max-price', '2']] });
      assert.equal(repeated.status, 402, 'a repeated offer header is no offer');
      const paid = await get(`/en/page/${welcome}`, { ...bing, 'crawler-max-price': 'USD 0.01' });
      assert.equal(paid.status, 200);
      assert.equal(paid.headers.get('crawler-charged'), 'USD 0.002');
      const exact = await get('/llms.txt', { ...bing, 'crawler-exact-price': 'USD 0.002' });
      assert.equal(exact.status, 200);
      assert.equal(exact.headers.get('crawler-charged'), 'USD 0.002');
      // A Bingbot that is not from Bing's range cannot be billed, so it is refused, never served free.
      assert.equal((await get(`/en/page/${welcome}`, { 'user-agent': UA.bingbot, 'x-forwarded-for': FROM.elsewhere, 'crawler-max-price': 'USD 1' })).status, 403);
    });

    it('robots.txt, Content Signals, Content-Usage and /license.xml say what is enforced', async () => {
      const robots = await (await get('/robots.txt', { 'user-agent': UA.gptbot, 'x-forwarded-for': FROM.gptbot })).text();
      assert.match(robots, /User-agent: GPTBot\n(?:[^\n]+\n)*?Disallow: \/\n/);
      assert.match(robots, /User-agent: ClaudeBot\n/);
      assert.match(robots, /User-agent: Google-Extended\n/, 'every token of a blocked agent, robots-only ones too');
      assert.doesNotMatch(robots, /User-agent: Googlebot\n/, 'search crawlers are not blocked');
      assert.match(robots, /Content-Signal: [^\n]*ai-train=no/);
      assert.match(robots, /Content-Usage: [^\n]*train-ai=n/);
      assert.match(robots, new RegExp(`License: ${origin.replace(/[.]/g, '\\.')}/license\\.xml`));
      const license = await get('/license.xml', { 'user-agent': UA.chrome });
      assert.equal(license.status, 200);
      assert.match(license.headers.get('content-type') ?? '', /^application\/rsl\+xml/);
      const xml = await license.text();
      assert.match(xml, /<rsl xmlns="https:\/\/rslstandard\.org\/rsl">/);
      assert.match(xml, /<prohibits type="usage">ai-train<\/prohibits>/);
      assert.doesNotMatch(xml, /<permits type="usage">[^<]*ai-train/);
      assert.match(xml, /<payment type="crawl">\s*<amount currency="USD">0\.002<\/amount>/);
      assert.match(xml, /<standard>https:\/\/creativecommons\.org\/licenses\/by\/4\.0\/<\/standard>/);
      assert.match(xml, /<copyright>© 2026 Harbour Example<\/copyright>/);
      const page = await get(`/api/agent/resource/${welcome}`, { 'user-agent': UA.chrome });
      assert.match(page.headers.get('content-usage') ?? '', /train-ai=n/);
    });

    it('an MCP session is counted as the client its initialize named, and read_resource as a read', async () => {
      const post = async (body: unknown) => {
        const res = await fetch(`${origin}/mcp`, {
          method: 'POST',
          headers: { 'user-agent': 'node', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify(body),
        });
        return { status: res.status, json: (await res.json()) as { result?: { isError?: boolean } } };
      };
      const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cursor', version: '2.0' } } });
      assert.equal(init.status, 200);
      const read = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_resource', arguments: { id: String(welcome) } } });
      assert.equal(read.status, 200);
      assert.notEqual(read.json.result?.isError, true);
      assert.equal((await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} })).status, 200);
      // Counts of MCP calls are made after the answer (the client's name is looked up then).
      await new Promise((resolve) => setTimeout(resolve, 100));
      const report = (await site.agent.traffic('24h'))!;
      const cursor = report.agents.find((a) => a.agent === 'cursor');
      assert.equal(cursor?.requests, 3, 'initialize and the two calls after it');
      assert.equal(cursor?.tools.read_resource, 1);
      assert.ok(!report.agents.some((a) => a.agent === 'other-bot' && a.surfaces.mcp), 'no MCP call counted as an unnamed bot');
      assert.equal(report.resources.find((r) => r.id === welcome)?.byPurpose['coding-agent'], 1, 'read_resource is a read, by a coding agent');
    });

    it('counts who was verified, spoofed and refused; agent.decide answers for routes the plugin does not see; the ledger keeps the charges', async () => {
      const report = (await site.agent.traffic('24h'))!;
      const line = (agent: string) => report.agents.find((a) => a.agent === agent);
      assert.equal(line('gptbot')?.verifiedShare, 1);
      assert.ok((line('gptbot')?.outcomes.blocked ?? 0) >= 25);
      assert.ok(line('spoofed:googlebot'), 'a spoofed request is counted under spoofed:<agent>');
      assert.equal(line('spoofed:googlebot')?.verifiedShare, 0);
      assert.ok((line('googlebot')?.methods.ranges ?? 0) >= 2);
      assert.equal(line('bingbot')?.outcomes.charged, 2);
      assert.ok((line('bingbot')?.outcomes['payment-required'] ?? 0) >= 7);
      assert.deepEqual(report.charges, [{ agent: 'bingbot', requests: 2, amountUsd: '0.004000' }], 'the ledger, before it is written');
      const decision = await site.agent.decide({ ip: FROM.gptbot, path: '/private/api', method: 'GET', protocol: 'http', url: '/private/api', originalUrl: '/private/api', headers: { 'user-agent': UA.gptbot } } as never);
      assert.equal(decision.status, 403);
      assert.equal(decision.identity.verification, 'verified');
      assert.equal(decision.identity.method, 'ranges');
      await close();
      close = async () => {};
      const rows = (await sql<{ agent: string; requests: string; amount_micros: string }>`SELECT agent, requests, amount_micros FROM agent_discovery_charges`.execute(content.db)).rows;
      assert.deepEqual(rows.map((r) => [r.agent, Number(r.requests), Number(r.amount_micros)]), [['bingbot', 2, 4000]]);
      // Verification read the addresses; nothing written keeps one (nor a user agent's text).
      const dump = JSON.stringify(
        await Promise.all(
          ['agent_discovery_traffic', 'agent_discovery_traffic_resource', 'agent_discovery_traffic_referral', 'agent_discovery_charges', 'agent_discovery_policy_log'].map(
            async (t) => (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(t)}`.execute(content.db)).rows,
          ),
        ),
      );
      for (const secret of [...Object.values(FROM), 'Mozilla', 'Googlebot/2.1']) assert.ok(!dump.includes(secret), `${secret} is stored`);
    });
  });
}
