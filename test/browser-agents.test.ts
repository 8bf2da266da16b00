import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { crc32, inflateSync } from 'node:zlib';
import type { Browser, Locator, Page } from 'playwright-core';
import { chromiumSkip, launchChromium } from './support/chromium.js';
import { surfaceBackends } from './support/backends.js';
import { startExampleSite, type RunningSite } from './support/site-harness.js';
import { adminCookie } from '../example-site/session.js';
import { LOOPBACK_RANGES } from './support/loopback-ranges.js';
import type { TrafficReport } from '../src/index.js';

/** The one DOM object these tests read inside the page (the test project is compiled without DOM types). */
declare const document: { documentElement: { scrollWidth: number; scrollHeight: number } };

/** Where the screenshot goes (gitignored: look at it, do not commit it). */
const ARTIFACTS = 'test-artifacts';

/** The purpose classes, in the order of the spec (§16) and of the chart's legend. */
const PURPOSES = ['training', 'search', 'user-fetch', 'coding-agent', 'other-bot', 'browser', 'unknown'];

/** User agents as the real clients send them. */
const UA = {
  gptbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.3; +https://openai.com/gptbot)',
  claudebot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  chatgptUser: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  oaiSearchbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  chrome: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  curl: 'curl/8.5.0',
};

/** One request sent before the page is opened, with what the Agents page should make of it. */
interface Visit {
  agent: string;
  operator: string | null;
  purpose: string;
  userAgent: string;
  path: string;
  headers?: Record<string, string>;
  status: number;
  /** Answered in Markdown (the agent's Markdown share). */
  markdown: boolean;
  /** The resource it read, for "Resources agents read most". */
  reads?: number;
}

/** The traffic of the test: three public resources `a`, `b`, `c` (their English pages), read by known agents, a referred human and curl. */
function visitsOf(a: number, b: number, c: number): Visit[] {
  const page = (id: number) => `/en/page/${id}`;
  const markdown = (id: number) => `/agent/resource/${id}/markdown`;
  const gptbot = { agent: 'gptbot', operator: 'OpenAI', purpose: 'training', userAgent: UA.gptbot, status: 200 };
  const claudebot = { agent: 'claudebot', operator: 'Anthropic', purpose: 'training', userAgent: UA.claudebot, status: 200 };
  const chatgptUser = { agent: 'chatgpt-user', operator: 'OpenAI', purpose: 'user-fetch', userAgent: UA.chatgptUser, status: 200, headers: { accept: 'text/markdown' } };
  return [
    { ...gptbot, path: page(a), markdown: false, reads: a },
    { ...gptbot, path: markdown(a), markdown: true, reads: a },
    { ...gptbot, path: '/llms.txt', markdown: true },
    { ...claudebot, path: page(b), markdown: false, reads: b },
    { ...claudebot, path: markdown(b), markdown: true, reads: b },
    { ...claudebot, path: `/api/agent/resource/${b}`, markdown: false, reads: b },
    { ...claudebot, path: '/llms.txt', markdown: true },
    { ...chatgptUser, path: page(a), markdown: true, reads: a },
    { ...chatgptUser, path: page(b), markdown: true, reads: b },
    { agent: 'oai-searchbot', operator: 'OpenAI', purpose: 'search', userAgent: UA.oaiSearchbot, path: '/api/agent/search?text=harbour', status: 200, markdown: false },
    { agent: 'browser', operator: null, purpose: 'browser', userAgent: UA.chrome, path: page(c), headers: { referer: 'https://chatgpt.com/' }, status: 200, markdown: false },
    { agent: 'curl', operator: null, purpose: 'other-bot', userAgent: UA.curl, path: '/no-such-page', status: 404, markdown: false },
  ];
}

/** What the agents table should say of each agent sent: the cells the test reads, as the page writes them. */
function expectedAgentRows(visits: Visit[]): Map<string, { operator: string; purpose: string; requests: number; markdown: string; status: string }> {
  const rows = new Map<string, { operator: string; purpose: string; requests: number; markdown: number; statuses: Map<string, number> }>();
  for (const v of visits) {
    const row = rows.get(v.agent) ?? { operator: v.operator ?? '', purpose: v.purpose, requests: 0, markdown: 0, statuses: new Map() };
    row.requests++;
    if (v.markdown) row.markdown++;
    const status = `${Math.trunc(v.status / 100)}xx`;
    row.statuses.set(status, (row.statuses.get(status) ?? 0) + 1);
    rows.set(v.agent, row);
  }
  return new Map(
    [...rows].map(([agent, r]) => [
      agent,
      { operator: r.operator, purpose: r.purpose, requests: r.requests, markdown: `${Math.round((100 * r.markdown) / r.requests)} %`, status: [...r.statuses].map(([s, n]) => `${s} ${n}`).join(', ') },
    ]),
  );
}

/** The decoded pixels of an 8-bit RGB or RGBA PNG (every chunk's CRC checked, every row unfiltered). */
function decodePng(png: Buffer): { width: number; height: number; rgb(x: number, y: number): [number, number, number] } {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the PNG signature');
  let header: Buffer | undefined;
  const data: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    assert.equal(crc32(png.subarray(at + 4, at + 8 + length)), png.readUInt32BE(at + 8 + length), `the CRC of the ${type} chunk`);
    if (type === 'IHDR') header = body;
    if (type === 'IDAT') data.push(body);
    at += 12 + length;
  }
  assert.ok(header, 'an IHDR chunk');
  const [width, height, depth, colour] = [header.readUInt32BE(0), header.readUInt32BE(4), header[8], header[9]];
  assert.equal(depth, 8);
  assert.ok(colour === 2 || colour === 6, `RGB or RGBA (colour type ${colour})`);
  const bpp = colour === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * bpp;
  assert.equal(raw.length, height * (stride + 1), 'the image data has every row');
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let i = 0; i < stride; i++) {
      const left = i >= bpp ? pixels[y * stride + i - bpp]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + i]! : 0;
      const upLeft = y > 0 && i >= bpp ? pixels[(y - 1) * stride + i - bpp]! : 0;
      const p = left + up - upLeft;
      const paeth = Math.abs(p - left) <= Math.abs(p - up) && Math.abs(p - left) <= Math.abs(p - upLeft) ? left : Math.abs(p - up) <= Math.abs(p - upLeft) ? up : upLeft;
      const predictor = [0, left, up, (left + up) >> 1, paeth][filter!];
      assert.ok(predictor !== undefined, `row ${y} has a known filter (${filter})`);
      pixels[y * stride + i] = (raw[y * (stride + 1) + 1 + i]! + predictor) & 0xff;
    }
  }
  return { width, height, rgb: (x, y) => [0, 1, 2].map((c) => pixels[y * stride + x * bpp + c]!) as [number, number, number] };
}

/** The cells' text of each row of a table's body. */
function cellTexts(rows: Locator): Promise<string[][]> {
  return rows.evaluateAll((trs) => trs.map((tr) => Array.from((tr as unknown as { cells: ArrayLike<{ textContent: string | null }> }).cells, (td) => (td.textContent ?? '').trim())));
}

/** The chart's legend: each purpose with its count and swatch colour, in the page's order. */
async function legendOf(page: Page): Promise<Map<string, { requests: number; colour: string }>> {
  const items = await page.locator('ul.legend li').evaluateAll((lis) =>
    lis.map((li) => {
      const item = li as unknown as { textContent: string | null; querySelector(s: string): { getAttribute(n: string): string | null } | null };
      return { text: (item.textContent ?? '').trim(), colour: item.querySelector('rect')?.getAttribute('fill') ?? '' };
    }),
  );
  return new Map(
    items.map(({ text, colour }) => {
      const [, purpose, n] = /^(.+): (\d+)$/.exec(text) ?? [];
      return [purpose ?? text, { requests: Number(n), colour }];
    }),
  );
}

/** A response's JSON body, typed as the test reads it. */
const bodyOf = async <T>(res: Response): Promise<T> => (await res.json()) as T;

const hexRgb = (hex: string): [number, number, number] => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

// The Agents page of the admin in a real browser, without JavaScript: real agents' requests are sent
// first over HTTP, then the page must show them, counted but not yet written, as the chart, the
// legend, the agents table, the resources read and the AI referrals; a screenshot is decoded and the
// bars found in it in their purpose colours. Anonymous and forged visitors get the site's 404.
for (const backend of surfaceBackends) {
  describe(`the Agents page in a real browser (Debian Chromium, ${backend.name})`, { skip: chromiumSkip }, () => {
    let running: RunningSite;
    let base: string;
    let browser: Browser;
    let page: Page;
    let cookie: string;
    let visits: Visit[];
    let answers: { status: number; type: string }[];
    /** The site's own 404 page (what curl got for a missing page). */
    let notFoundBody: string;
    let resourceTitles: Map<number, string>;
    /** Console errors, CSP reports and page errors of the admin's tab. */
    const problems: string[] = [];
    const agentsUrl = () => `${base}/admin/agent/agents?since=7d`;

    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      // A flush every five minutes, not five seconds: the page must show the counts of this process not yet written.
      running = await startExampleSite(backend, { plugin: { traffic: { flushIntervalMs: 300_000 }, verification: { rangesFile: LOOPBACK_RANGES } } });
      base = running.origin;
      cookie = adminCookie(running.site.session);
      type Search = { result: { items: { id: number; title: string; page_url: string }[] } };
      const { items } = (await bodyOf<Search>(await fetch(`${base}/api/agent/search?pagelen=20`))).result;
      const english = items.filter((i) => new URL(i.page_url).pathname === `/en/page/${i.id}`);
      assert.ok(english.length >= 3, 'three public resources with English pages');
      resourceTitles = new Map(english.map((i) => [i.id, i.title]));
      const [a, b, c] = english.map((i) => i.id) as [number, number, number];
      visits = visitsOf(a, b, c);
      answers = [];
      for (const v of visits) {
        const res = await fetch(`${base}${v.path}`, { headers: { 'user-agent': v.userAgent, ...v.headers } });
        const body = await res.text();
        answers.push({ status: res.status, type: res.headers.get('content-type') ?? '' });
        if (v.agent === 'curl') notFoundBody = body;
      }
      browser = await launchChromium();
      const context = await browser.newContext({ javaScriptEnabled: false });
      const eq = cookie.indexOf('=');
      await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: base }]);
      page = await context.newPage();
      page.on('console', (m) => {
        // The browser's own favicon request is not the page's (the example site has no favicon).
        if (m.location().url === `${base}/favicon.ico`) return;
        if (m.type() === 'error' || /Content Security Policy|Refused/i.test(m.text())) problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    });
    after(async () => {
      await browser?.close();
      await running?.close();
    });

    it('the traffic was answered as sent: pages, Markdown and JSON with 200, the missing page with the site\'s 404', () => {
      assert.deepEqual(
        answers.map((a) => a.status),
        visits.map((v) => v.status),
      );
      visits.forEach((v, i) => {
        // llms.txt is Markdown served as text/plain; the other Markdown answers say so.
        if (v.markdown && v.path !== '/llms.txt') assert.match(answers[i]!.type, /^text\/markdown/, `${v.agent} ${v.path} in Markdown`);
      });
      assert.match(notFoundBody, /<h1>Not found<\/h1>/);
    });

    it('shows every agent sent with its purpose and exactly the requests sent, counted and not yet written', async () => {
      const res = await page.goto(agentsUrl());
      assert.equal(res?.status(), 200);
      assert.equal(await page.locator('h1').innerText(), 'Agents');
      assert.equal(await page.locator('#since').inputValue(), '7d');
      const cells = await cellTexts(page.locator('table.agents tbody tr'));
      const byAgent = new Map(cells.map((c) => [c[0]!, c]));
      assert.equal(byAgent.size, cells.length, 'one row per agent');
      for (const [agent, want] of expectedAgentRows(visits)) {
        const row = byAgent.get(agent);
        assert.ok(row, `a row for ${agent}: ${[...byAgent.keys()].join(', ')}`);
        assert.deepEqual(
          { operator: row[1], purpose: row[2], requests: Number(row[3]), markdown: row[5], status: row[9] },
          want,
          agent,
        );
      }
      const totalOfRows = cells.reduce((n, c) => n + Number(c[3]), 0);
      const totals = await page.locator('p.totals').innerText();
      const [, requests, referrals, pending] = /^(\d+) requests, .*; human visits referred by AI assistants: (\d+) \((\d+) requests counted here and not yet written\)\.$/.exec(totals) ?? [];
      assert.ok(requests, totals);
      assert.equal(Number(requests), totalOfRows, 'the total is the sum of the agents\' rows');
      assert.equal(Number(pending), totalOfRows, 'nothing is written yet: every request shown is pending');
      assert.equal(Number(referrals), visits.filter((v) => v.headers?.referer).length);
      // The same numbers as JSON, beside the page.
      const json = await bodyOf<{ status: string; result: TrafficReport }>(await fetch(`${base}/admin/agent/traffic.json?since=7d`, { headers: { cookie } }));
      assert.equal(json.status, 'ok');
      // At least what the page showed: the browser's own requests since (its favicon) are counted too.
      assert.ok(json.result.totals.requests >= totalOfRows, `${json.result.totals.requests} requests in traffic.json`);
      for (const [agent, want] of expectedAgentRows(visits)) {
        assert.equal(json.result.agents.find((a) => a.agent === agent)?.requests, want.requests, `${agent} in traffic.json`);
      }
    });

    it('draws the chart with a title, a description and bars to scale in the purpose colours of the seven-purpose legend', async () => {
      await page.goto(agentsUrl());
      const chart = page.locator('svg.traffic-chart');
      assert.ok(await chart.isVisible(), 'the chart is visible');
      const box = await chart.boundingBox();
      assert.ok(box && box.width > 100 && box.height > 50, `the chart has a size (${JSON.stringify(box)})`);
      assert.equal(await chart.locator('> title').textContent(), 'Agent requests per day');
      const legend = await legendOf(page);
      assert.deepEqual([...legend.keys()], PURPOSES, 'the legend lists the seven purposes in order');
      assert.equal(new Set([...legend.values()].map((l) => l.colour)).size, PURPOSES.length, 'seven distinct colours');
      const sent = (purpose: string) => visits.filter((v) => v.purpose === purpose).length;
      for (const purpose of ['training', 'search', 'user-fetch', 'browser']) assert.equal(legend.get(purpose)?.requests, sent(purpose), purpose);
      const desc = await chart.locator('> desc').textContent();
      const total = [...legend.values()].reduce((n, l) => n + l.requests, 0);
      assert.match(desc ?? '', new RegExp(`: ${total} in all\\. training ${sent('training')}, search ${sent('search')}, user-fetch ${sent('user-fetch')},`));

      const bars = await chart.locator('rect').evaluateAll((rects) =>
        rects.map((r) => {
          const rect = r as unknown as { getAttribute(n: string): string | null; textContent: string | null };
          return { fill: rect.getAttribute('fill') ?? '', height: Number(rect.getAttribute('height')), title: (rect.textContent ?? '').trim() };
        }),
      );
      assert.ok(bars.length > 0, 'the chart has bars');
      const drawn = new Map<string, number>();
      for (const bar of bars) {
        const [, n, purpose] = /^\d{4}-\d{2}-\d{2}: (\d+) (.+)$/.exec(bar.title) ?? [];
        assert.ok(purpose && legend.has(purpose), `a bar names its day, count and purpose: "${bar.title}"`);
        assert.equal(bar.fill, legend.get(purpose)!.colour, `a ${purpose} bar has the ${purpose} colour`);
        drawn.set(purpose, (drawn.get(purpose) ?? 0) + Number(n));
      }
      for (const [purpose, l] of legend) assert.equal(drawn.get(purpose) ?? 0, l.requests, `the ${purpose} bars add up to the legend`);
      // To scale: every bar is as high as its count times one height per request (heights are written to 0.1 px).
      const counted = bars.map((b) => ({ ...b, n: Number(/: (\d+) /.exec(b.title)![1]) }));
      const scale = Math.max(...counted.map((b) => b.height / b.n));
      assert.ok(scale > 0);
      for (const b of counted) assert.ok(Math.abs(b.height - b.n * scale) <= 0.15, `the bar "${b.title}" is to scale (${b.height} px)`);
    });

    it('lists the resources agents read most and the visit ChatGPT referred, with its landing page', async () => {
      await page.goto(agentsUrl());
      const rowsAfter = (heading: string) => cellTexts(page.locator(`h2:text-is("${heading}") + table tbody tr`));
      const resources = await rowsAfter('Resources agents read most');
      assert.ok(resources.length >= 1, 'at least one resource row');
      const reads = new Map<number, number>();
      for (const v of visits) if (v.reads !== undefined && v.purpose !== 'browser') reads.set(v.reads, (reads.get(v.reads) ?? 0) + 1);
      for (const [id, n] of reads) {
        const row = resources.find((r) => r[0] === String(id));
        assert.deepEqual(row, [String(id), resourceTitles.get(id), String(n)], `resource ${id} read ${n} times by agents`);
      }
      const [first, second] = [...reads].sort((x, y) => y[1] - x[1]);
      assert.deepEqual(resources.slice(0, 2).map((r) => r[0]), [String(first![0]), String(second![0])], 'most read first');
      const referred = visits.filter((v) => v.headers?.referer);
      assert.deepEqual(await rowsAfter('Visits referred by AI assistants'), referred.map((v) => ['chatgpt', v.path, '1']));
    });

    it('a full-page screenshot decodes at the viewport\'s width, with the chart inside the page and its bars in their colours', async () => {
      await page.goto(agentsUrl());
      const file = path.join(ARTIFACTS, backend.name === 'pglite' ? 'agents-page.png' : `agents-page-${backend.name}.png`);
      const png = decodePng(await page.screenshot({ path: file, fullPage: true }));
      const viewport = page.viewportSize()!;
      const size = await page.evaluate(() => ({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight }));
      assert.equal(png.width, viewport.width);
      assert.equal(size.width, viewport.width, 'nothing on the page is wider than the window');
      assert.equal(png.height, size.height, 'the whole page');
      const chart = (await page.locator('svg.traffic-chart').boundingBox())!;
      assert.ok(chart.x >= 0 && chart.y >= 0 && chart.x + chart.width <= png.width && chart.y + chart.height <= png.height, `the chart lies within the page (${JSON.stringify(chart)})`);
      const rects = page.locator('svg.traffic-chart rect');
      const checked = new Set<string>();
      for (let i = 0; i < (await rects.count()); i++) {
        const fill = (await rects.nth(i).getAttribute('fill'))!;
        if (checked.has(fill)) continue;
        checked.add(fill);
        const bar = (await rects.nth(i).boundingBox())!;
        const pixel = png.rgb(Math.floor(bar.x + bar.width / 2), Math.floor(bar.y + bar.height / 2));
        const want = hexRgb(fill);
        assert.ok(pixel.every((c, k) => Math.abs(c - want[k]!) <= 3), `the bar drawn in ${fill} is that colour in the screenshot (rgb ${pixel.join(', ')})`);
      }
      const counted = [...(await legendOf(page)).values()].filter((l) => l.requests > 0).map((l) => l.colour);
      assert.deepEqual([...checked].sort(), counted.sort(), 'a bar of every purpose counted is in the screenshot');
    });

    it('passes the admin guards: anonymous and forged visitors get the site\'s own 404, the CSP forbids scripts', async () => {
      const forged = adminCookie({ secret: 'not-the-site-secret', adminPassword: 'admin' });
      for (const url of [agentsUrl(), `${base}/admin/agent/traffic.json?since=7d`]) {
        for (const headers of [{}, { cookie: forged }, { cookie: `${cookie.split('.')[0]}.forged` }] as Record<string, string>[]) {
          const res = await fetch(url, { headers });
          assert.equal(res.status, 404, `${url} with ${JSON.stringify(headers)}`);
          assert.equal(await res.text(), notFoundBody, 'the site\'s own 404 page, as for a missing page');
        }
      }
      const anonymous = await browser.newPage();
      const res = await anonymous.goto(agentsUrl());
      assert.equal(res?.status(), 404);
      assert.equal(await anonymous.locator('h1').innerText(), 'Not found');
      await anonymous.close();
      // `problems` has gathered since the first page load of this file.
      const admin = await page.goto(agentsUrl());
      const csp = admin?.headers()['content-security-policy'] ?? '';
      assert.match(csp, /(^|; )default-src 'none'(;|$)/);
      assert.doesNotMatch(csp, /script-src/, 'nothing re-allows scripts');
      assert.equal(await page.locator('script').count(), 0);
      assert.deepEqual(problems, [], 'no console error, CSP violation or page error');
    });

    it('a range it does not offer is a 400: the page says which, traffic.json names since', async () => {
      problems.length = 0;
      const res = await page.goto(`${base}/admin/agent/agents?since=bogus`);
      assert.equal(res?.status(), 400);
      assert.equal(await page.locator('h1').innerText(), 'Bad range');
      assert.match(await page.getByRole('alert').innerText(), /since\) must be 24h, 7d, 30d or 90d/);
      assert.deepEqual(problems, ['error: Failed to load resource: the server responded with a status of 400 (Bad Request)'], 'only the 400 itself');
      const json = await fetch(`${base}/admin/agent/traffic.json?since=bogus`, { headers: { cookie } });
      assert.equal(json.status, 400);
      assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
      const body = await bodyOf<{ status: string; error: { parameter: string; message: string } }>(json);
      assert.equal(body.status, 'error');
      assert.equal(body.error.parameter, 'since');
      assert.match(body.error.message, /since/);
    });
  });
}
