// Agent traffic over real HTTP: requests with real user agents of each class counted per agent,
// surface and status across two instances on one database; Web Bot Auth verdicts with a real signer and
// key directory; nothing private stored; the rate limit; bad input answered as before.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOOPBACK_RANGES } from './support/loopback-ranges.js';
import { webcrypto } from 'node:crypto';
import { sql } from 'kysely';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import { backends, type TestDatabase } from './support/backends.js';
import { listen } from './support/mcp-client.js';
import { createExampleSite, type ExampleSite } from '../example-site/app.js';
import type { AgentDiscoveryOptions, TrafficReport } from '../src/index.js';
import { runCli } from '../src/cli/run.js';

const UA = {
  gptbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  claudebot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  chatgptUser: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  oaiSearch: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  chrome: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  secret: 'SecretCrawler/9.9 (+https://unique-ua-marker.example/bot)',
} as const;


interface Listening {
  origin: string;
  close(): Promise<void>;
}

/** The example site over an existing database (not seeded again), listening, with plugin options. */
async function siteOver(content: TestDatabase, plugin: Partial<AgentDiscoveryOptions>): Promise<{ site: ExampleSite; web: Listening; close(): Promise<void> }> {
  // GPTBot, OAI-SearchBot and Googlebot publish ranges; here loopback is theirs, so the tests' requests verify.
  const site = await createExampleSite({ database: { kysely: content.db }, seed: false, plugin: { verification: { rangesFile: LOOPBACK_RANGES }, ...plugin } });
  const web = await listen(site.app);
  return { site, web, close: async () => (await web.close(), await site.close()) };
}

/** A key directory for one Ed25519 key on loopback, counting the requests it gets. */
async function keyDirectory(): Promise<{ origin: string; jwk: webcrypto.JsonWebKey; requests: () => number; close(): Promise<void> }> {
  const pair = (await webcrypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const jwk = await webcrypto.subtle.exportKey('jwk', pair.privateKey);
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    if (req.url !== '/.well-known/http-message-signatures-directory') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/http-message-signatures-directory+json', 'cache-control': 'max-age=300' });
    res.end(JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: jwk.x }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    jwk,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Headers of a GET of `url` signed with Web Bot Auth by the library (`@authority`, `signature-agent`). */
async function signed(url: string, directory: { origin: string; jwk: webcrypto.JsonWebKey }, tamper = false): Promise<Record<string, string>> {
  const agent = `"${directory.origin}"`;
  const now = Date.now();
  const headers = await signatureHeaders({ method: 'GET', url, headers: { 'signature-agent': agent } }, await signerFromJWK(directory.jwk), {
    created: new Date(now - 1000),
    expires: new Date(now + 600_000),
  });
  const signature = tamper ? headers.Signature.replace(/:([A-Za-z0-9+/])/, (_m, c: string) => `:${c === 'A' ? 'B' : 'A'}`) : headers.Signature;
  return { 'signature-agent': agent, signature, 'signature-input': headers['Signature-Input'] };
}

const get = (url: string, headers: Record<string, string>) => fetch(url, { headers, redirect: 'manual' });

/** The counts of one agent line, or zeros. */
const lineOf = (report: TrafficReport, agent: string) => report.agents.find((a) => a.agent === agent);

for (const backend of backends) {
  describe(`agent traffic (${backend.name})`, () => {
    let content: TestDatabase;
    let welcome: number;
    const directories: Awaited<ReturnType<typeof keyDirectory>>[] = [];
    before(async () => {
      content = await backend.openSeeded();
      // The crawler rules the plugin's robots.txt serves: /private-area/ is disallowed for every agent.
      await sql`INSERT INTO agent_discovery_settings (id, settings) VALUES (true, ${JSON.stringify({ crawlerRules: 'Disallow: /private-area/' })}::jsonb)
        ON CONFLICT (id) DO UPDATE SET settings = excluded.settings`.execute(content.db);
      welcome = Number((await content.db.selectFrom('rsc').select('id').where('name', '=', 'welcome').executeTakeFirstOrThrow()).id);
    });
    after(async () => {
      await Promise.all(directories.map((d) => d.close()));
      await content?.close();
    });

    it('counts each class, surface and status exactly, across two instances on one database, with verdicts, referrals and robots violations', async () => {
      const listed = await keyDirectory();
      const unlisted = await keyDirectory();
      directories.push(listed, unlisted);
      const options = { traffic: { signatureAgents: [listed.origin], flushIntervalMs: 300_000 } };
      const a = await siteOver(content, options);
      const b = await siteOver(content, options);
      try {
        const page = (o: string) => `${o}/en/page/${welcome}`;
        const sends: Array<[string, string, Record<string, string>, number]> = [];
        const send = async (origin: string, path: string, headers: Record<string, string>, expected: number) => {
          const res = await get(`${origin}${path}`, headers);
          await res.arrayBuffer();
          assert.equal(res.status, expected, `${path} ${headers['user-agent']}`);
          sends.push([origin, path, headers, res.status]);
          return res;
        };
        for (const site of [a, b]) {
          const o = site.web.origin;
          await send(o, `/en/page/${welcome}`, { 'user-agent': UA.gptbot }, 200);
          await send(o, `/en/page/${welcome}`, { 'user-agent': UA.gptbot, accept: 'text/markdown' }, 200);
          await send(o, `/agent/resource/${welcome}/markdown`, { 'user-agent': UA.claudebot }, 200);
          await send(o, `/api/agent/resource/${welcome}`, { 'user-agent': UA.claudebot }, 200);
          await send(o, '/llms.txt', { 'user-agent': UA.oaiSearch }, 200);
          await send(o, '/api/agent/search?text=harbour', { 'user-agent': UA.googlebot }, 200);
          await send(o, '/api/agent/resource/999999', { 'user-agent': UA.googlebot }, 404);
          await send(o, '/private-area/x', { 'user-agent': UA.gptbot }, 404);
          await send(o, '/robots.txt', { 'user-agent': UA.gptbot }, 200);
          await send(o, `/en/page/${welcome}?utm_source=chatgpt.com&q=querymarker`, { 'user-agent': UA.chrome, referer: 'https://chatgpt.com/', cookie: 'sid=sessioncookie-marker' }, 200);
          await send(o, `/en/page/${welcome}`, { 'user-agent': UA.secret }, 200);
          await send(o, `/en/page/${welcome}`, { 'user-agent': UA.chatgptUser, ...(await signed(page(o), listed)) }, 200);
          await send(o, `/en/page/${welcome}`, { 'user-agent': UA.chatgptUser, ...(await signed(page(o), listed, true)) }, 200);
          await send(o, `/en/page/${welcome}`, { 'user-agent': UA.chatgptUser, ...(await signed(page(o), unlisted)) }, 200);
        }
        // Verdicts are worked out after the answer: let them land, then B writes its counts at close.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await b.close();
        const report = (await a.site.agent.traffic('24h'))!;
        assert.ok(report.pending > 0, 'A has counts not yet written, and they are included');

        const gpt = lineOf(report, 'gptbot')!;
        assert.deepEqual(
          { purpose: gpt.purpose, operator: gpt.operator, requests: gpt.requests, surfaces: gpt.surfaces, statuses: gpt.statuses, violations: gpt.robotsViolations },
          { purpose: 'training', operator: 'OpenAI', requests: 8, surfaces: { 'page-html': 2, 'page-markdown': 2, 'not-found': 2, 'robots-txt': 2 }, statuses: { '2xx': 6, '4xx': 2 }, violations: 2 },
        );
        assert.equal(gpt.markdownShare, 0.25);
        const claude = lineOf(report, 'claudebot')!;
        assert.deepEqual(claude.surfaces, { 'resource-markdown': 2, 'resource-json': 2 });
        assert.equal(claude.markdownShare, 0.5);
        assert.deepEqual(lineOf(report, 'oai-searchbot')?.surfaces, { 'llms-txt': 2 });
        assert.equal(lineOf(report, 'oai-searchbot')?.purpose, 'search');
        const google = lineOf(report, 'googlebot')!;
        assert.deepEqual(google.statuses, { '2xx': 2, '4xx': 2 });
        assert.deepEqual(google.surfaces, { listing: 2, 'resource-json': 2 });
        const user = lineOf(report, 'chatgpt-user')!;
        assert.equal(user.purpose, 'user-fetch');
        assert.equal(user.requests, 6);
        assert.equal(user.verifiedShare, Math.round((2 / 6) * 1000) / 1000, 'only the two untampered signatures of the listed directory verify');
        // Verified: the two good signatures, and the crawlers from their (here loopback) ranges: GPTBot 8, OAI-SearchBot 2, Googlebot 4.
        assert.equal(report.totals.verified, 2 + 8 + 2 + 4);
        assert.equal(gpt.verifiedShare, 1);
        assert.equal(unlisted.requests(), 0, 'no request reached the directory that is not on the list');
        assert.ok(listed.requests() >= 1 && listed.requests() <= 2, `the listed directory was fetched once per instance (${listed.requests()})`);
        // People: the browser visit and the unknown crawler, each under its class.
        assert.equal(lineOf(report, 'browser')?.requests, 2);
        assert.deepEqual(report.referrals, [{ assistant: 'chatgpt', landing: `/en/page/${welcome}`, visits: 2 }]);
        assert.ok(!report.agents.some((l) => /secret/i.test(l.agent)), 'an unknown user agent is never a key');
        // The reads: the welcome page was read on every 2xx page and resource surface.
        const read = report.resources.find((r) => r.id === welcome);
        assert.ok(read && read.requests >= 12, `welcome read ${read?.requests}`);
        assert.equal(report.totals.requests, sends.length);
        assert.equal(report.totals.robotsViolations, 2);
      } finally {
        await b.close().catch(() => {});
        await a.close();
      }

      // Everything is written now (A flushed at close): the stored rows hold no IP, cookie, query string or user agent.
      const dump = JSON.stringify(
        await Promise.all(
          ['agent_discovery_traffic', 'agent_discovery_traffic_resource', 'agent_discovery_traffic_referral', 'agent_discovery_charges', 'agent_discovery_policy_log'].map(
            async (t) => (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(t)}`.execute(content.db)).rows,
          ),
        ),
      );
      assert.ok(dump.includes('gptbot') && dump.includes('chatgpt'), 'the dump holds the counts');
      for (const secret of ['127.0.0.1', 'sessioncookie-marker', 'querymarker', 'utm_source', 'SecretCrawler', 'unique-ua-marker', 'Mozilla', 'Chrome/131']) {
        assert.ok(!dump.includes(secret), `the database holds no ${secret}`);
      }
      if (content.url) {
        // The CLI reads the same written counts.
        let out = '';
        const code = await runCli(['traffic', '--database-url', content.url, '--since', '24h', '--json'], { env: {}, out: (t) => (out += t), err: () => {} });
        assert.equal(code, 0);
        const cli = JSON.parse(out) as TrafficReport;
        assert.equal(cli.totals.requests, 28);
        assert.equal(cli.agents.find((l) => l.agent === 'gptbot')?.requests, 8);
      }
    });

    it('rate limits an unverified training crawler (429, Retry-After), never a browser nor a verified user fetch', async () => {
      const listed = await keyDirectory();
      directories.push(listed);
      const r = await siteOver(content, {
        traffic: { signatureAgents: [listed.origin], flushIntervalMs: 300_000, rateLimits: { training: { requests: 2, perSeconds: 3600 }, 'user-fetch': { requests: 1, perSeconds: 3600 } } },
      });
      try {
        const o = r.web.origin;
        const path = `/en/page/${welcome}`;
        const statuses = async (headers: () => Promise<Record<string, string>> | Record<string, string>, n: number) => {
          const out: number[] = [];
          for (let i = 0; i < n; i++) out.push((await get(`${o}${path}`, await headers())).status);
          return out;
        };
        // ClaudeBot's operator publishes no ranges: unverified, limited.
        assert.deepEqual(await statuses(() => ({ 'user-agent': UA.claudebot }), 3), [200, 200, 429]);
        const limited = await get(`${o}${path}`, { 'user-agent': UA.claudebot });
        assert.equal(limited.status, 429);
        assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
        assert.equal(limited.headers.get('cache-control'), 'no-store');
        assert.deepEqual(await statuses(() => ({ 'user-agent': UA.chrome }), 6), [200, 200, 200, 200, 200, 200], 'browsers are never limited');
        // A decision never waits on a key directory: the first signed request of an uncached directory starts its
        // fetch and is decided as unverified. A browser's signed request warms it here.
        await get(`${o}${path}`, { 'user-agent': UA.chrome, ...(await signed(`${o}${path}`, listed)) });
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.deepEqual(await statuses(() => signed(`${o}${path}`, listed).then((h) => ({ 'user-agent': UA.chatgptUser, ...h })), 4), [200, 200, 200, 200], 'a verified user fetch is never limited');
        // Unsigned claims of the name share a bucket apart from the verified agent's: the verified requests above did not drain it.
        assert.deepEqual(await statuses(() => ({ 'user-agent': UA.chatgptUser }), 2), [200, 429], 'the same agent unsigned is limited, in a bucket of its own');
        assert.deepEqual(await statuses(() => signed(`${o}${path}`, listed).then((h) => ({ 'user-agent': UA.chatgptUser, ...h })), 2), [200, 200], 'and cannot drain the verified one');
        assert.deepEqual(await statuses(() => ({ 'user-agent': UA.gptbot }), 4), [200, 200, 200, 200], 'GPTBot from its published range is verified, never limited');
      } finally {
        await r.close();
      }
    });

    it('bad input is answered as before: forged signatures, a 12 KB user agent, 600 distinct unknown agents, any Referer', async () => {
      const r = await siteOver(content, { traffic: { flushIntervalMs: 300_000, maxKeys: 100 } });
      try {
        const o = r.web.origin;
        const path = `/en/page/${welcome}`;
        const plain = await (await get(`${o}${path}`, { 'user-agent': UA.chrome })).text();
        const odd: Record<string, string>[] = [
          { signature: 'sig1=:AAAA:', 'signature-input': 'sig1=("@authority");created=1;keyid="x";tag="web-bot-auth"', 'signature-agent': '"https://chatgpt.com"' },
          { signature: '((((', 'signature-input': ')))', 'signature-agent': 'not a url' },
          // Node refuses headers over 16 KB itself (431); the plugin reads at most 512 characters of a user agent.
          { 'signature-input': 'x'.repeat(12_000) },
          { 'user-agent': `GPTBot ${'y'.repeat(12_000)}` },
          { referer: 'javascript:alert(1)' },
          { referer: `https://chatgpt.com/${'%'.repeat(5000)}` },
        ];
        for (const headers of odd) {
          const res = await get(`${o}${path}`, headers);
          assert.equal(res.status, 200, JSON.stringify(headers).slice(0, 80));
          assert.equal(await res.text(), plain, 'the same page, whatever was sent');
        }
        for (let i = 0; i < 600; i++) assert.equal((await get(`${o}/api/agent/search`, { 'user-agent': `Crawler-${i}/1.0 (+https://x${i}.example)` })).status, 200);
        const report = (await r.site.agent.traffic('24h'))!;
        assert.ok(report.agents.every((l) => !/Crawler-/i.test(l.agent)), 'unknown agents are counted under their class');
        assert.equal(report.pending, odd.length + 601);
        assert.equal((await fetch(`${o}/`)).status, 200, 'the site still answers');
      } finally {
        await r.close();
      }
    });

    it('the metrics router answers Prometheus counters with the traffic option, and 404 without', async () => {
      const on = await siteOver(content, { traffic: { flushIntervalMs: 300_000 } });
      const off = await siteOver(content, { traffic: false });
      try {
        await get(`${on.web.origin}/llms.txt`, { 'user-agent': UA.gptbot });
        const express = (await import('express')).default;
        const host = express();
        host.use('/metrics', on.site.agent.metricsRouter);
        host.use('/off-metrics', off.site.agent.metricsRouter);
        const web = await listen(host);
        try {
          const res = await fetch(`${web.origin}/metrics`);
          assert.equal(res.status, 200);
          assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
          assert.match(await res.text(), /agent_discovery_requests_total\{purpose="training",surface="llms-txt",status_class="2xx",verdict="verified"\} 1/);
          assert.equal((await fetch(`${web.origin}/off-metrics`)).status, 404);
        } finally {
          await web.close();
        }
        assert.equal(await off.site.agent.traffic(), undefined);
        await assert.rejects(on.site.agent.traffic('forever'), /since must be like '7d' or '24h'/);
      } finally {
        await off.close();
        await on.close();
      }
    });
  });
}
