import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createRequire } from 'node:module';
import LinkHeader from 'http-link-header';
import { sql, type Kysely } from 'kysely';
import { createAgentDiscovery, type AgentDiscovery, type AgentDiscoveryOptions } from '../../src/index.js';
import { DEMO_PLUGIN_OPTIONS } from './demo.js';
import type { Database } from '../../src/db/schema.js';
import { CONVENTIONAL_PATHS } from '../../src/check/index.js';

/** Express 4 (installed as `express4`; it ships no types). */
const express4 = createRequire(import.meta.url)('express4') as () => express.Express;

/* ---------------------------------------------------------------------------------------------
 * A FetchKit-style client: what an agent-side fetcher does with a page (see seeds/000_*.txt).
 * ------------------------------------------------------------------------------------------- */

/** FetchKit's Accept header: HTML first. */
export const FETCHKIT_ACCEPT = 'text/html, text/markdown, text/plain, */*;q=0.8';
/** A browser's Accept header. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/** The ten conventional paths FetchKit HEAD-probes on the page's origin (one list, shared with `check`). */
export { CONVENTIONAL_PATHS };

export interface DiscoveredLink {
  href: string;
  rel: string;
  type?: string;
  [attr: string]: unknown;
}

export interface ProbeResult {
  path: string;
  status: number;
  verified: boolean;
}

export interface FetchKitPage {
  status: number;
  contentType: string;
  /** The raw `Link` header lines, as sent (a merged response has exactly one). */
  linkHeaderLines: string[];
  /** Every link-value of every Link header, parsed with an RFC 8288 parser. */
  headerLinks: DiscoveredLink[];
  /** `<link>` elements of `<head>`. */
  headLinks: DiscoveredLink[];
  /** `<meta name content>` of `<head>`. */
  metas: { name: string; content: string }[];
  /** Links found in the `<body>` (there must be none of ours). */
  bodyHtml: string;
  html: string;
}

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };
const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|apos);/g, (_, e: string) => ENTITY[e]!);

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    out[m[1]!.toLowerCase()] = decode(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return out;
}

/** Raw GET (or HEAD) over node:http, so that repeated header lines stay visible. */
export function rawRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; rawHeaders: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Pairs of a raw header list with the given name (case-insensitive). */
export function headerLines(rawHeaders: string[], name: string): string[] {
  const lines: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) lines.push(rawHeaders[i + 1]!);
  return lines;
}

export function parseLinkHeaders(lines: readonly string[]): DiscoveredLink[] {
  return lines.flatMap((line) =>
    LinkHeader.parse(line).refs.map(({ uri, ...rest }) => ({ href: uri, ...rest }) as DiscoveredLink),
  );
}

/** GETs a page like FetchKit: its Accept, Link headers, head `<link>`/`<meta>`, no redirects followed. */
export async function fetchPage(url: string, headers: Record<string, string> = {}): Promise<FetchKitPage> {
  const res = await rawRequest(url, { headers: { accept: FETCHKIT_ACCEPT, ...headers } });
  const linkHeaderLines = headerLines(res.rawHeaders, 'link');
  const head = /<head[^>]*>([\s\S]*?)<\/head>/i.exec(res.body)?.[1] ?? '';
  const bodyHtml = /<body[^>]*>([\s\S]*?)<\/body>/i.exec(res.body)?.[1] ?? '';
  const headLinks = [...head.matchAll(/<link\b[^>]*>/gi)].map((m) => {
    const { href = '', rel = '', ...rest } = attributes(m[0]);
    return { href, rel, ...rest } as DiscoveredLink;
  });
  const metas = [...head.matchAll(/<meta\b[^>]*>/gi)]
    .map((m) => attributes(m[0]))
    .filter((a) => a.name !== undefined && a.content !== undefined)
    .map((a) => ({ name: a.name!, content: a.content! }));
  return {
    status: res.status,
    contentType: String(res.headers['content-type'] ?? ''),
    linkHeaderLines,
    headerLinks: parseLinkHeaders(linkHeaderLines),
    headLinks,
    metas,
    bodyHtml,
    html: res.body,
  };
}

/**
 * HEAD-probes the ten conventional paths: a probe counts only on a direct 2xx. FetchKit gives each probe
 * a second; this emulation allows ten, because a test asserts what answers, not how fast (speed is
 * measured in bench/), and the shared CI machine can be slow.
 */
export async function probeConventionalPaths(origin: string): Promise<ProbeResult[]> {
  return Promise.all(
    CONVENTIONAL_PATHS.map(async (path) => {
      const res = await fetch(`${origin}${path}`, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(10_000) });
      return { path, status: res.status, verified: res.status >= 200 && res.status < 300 };
    }),
  );
}

/**
 * Refreshes the planner statistics of a freshly seeded database, as autovacuum would on a live
 * site: without them PostgreSQL plans the visibility subqueries of a 300-row demo for seconds.
 */
export async function analyze(db: Kysely<Database>): Promise<void> {
  await sql`ANALYZE`.execute(db);
}

/* ---------------------------------------------------------------------------------------------
 * A small host CMS for the tests: how a real site mounts the plugin.
 * ------------------------------------------------------------------------------------------- */

export type ExpressFlavour = 'express5' | 'express4';

/** The host's own WebSub-style Link values (kept, once, on resource pages). */
export const WEBSUB_HUB = '<https://hub.example.net/>; rel="hub"';

export interface HostApp {
  origin: string;
  agent: AgentDiscovery;
  server: http.Server;
  close(): Promise<void>;
}

/** The host's ACL for its own pages: an administrator sees everything, anonymous only published public pages. */
async function hostCanSee(db: Kysely<Database>, ref: string, admin: boolean): Promise<number | undefined> {
  const row = await db
    .selectFrom('rsc')
    .select(['id', 'is_published', 'visibility'])
    .where(/^[0-9]+$/.test(ref) ? 'id' : 'name', '=', /^[0-9]+$/.test(ref) ? Number(ref) : ref)
    .executeTakeFirst();
  if (!row) return undefined;
  if (admin || (row.is_published && row.visibility === 'public')) return row.id;
  return undefined;
}

const page = (head: string, body: string) => `<!doctype html><html><head><title>Host</title>\n${head}\n</head><body>${body}</body></html>`;

/**
 * Starts a host app on a loopback port: Link middleware, the plugin router, a home page, resource
 * pages on the route-level middleware (`/page/:id`), a custom controller calling
 * `setResourceHeaders` (`/custom/:id`), the host's `/id/:id`, an HTML and a JSON page, and a fake
 * session cookie (`session=admin`) that the host honours for its own ACL.
 */
export async function startHostApp(
  db: Kysely<Database>,
  options: Partial<AgentDiscoveryOptions> = {},
  flavour: ExpressFlavour = 'express5',
  { linkMiddleware = true }: { linkMiddleware?: boolean } = {},
): Promise<HostApp> {
  const agent = await createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, languages: [...DEMO_PLUGIN_OPTIONS.languages], database: { kysely: db }, ...options });
  const resourceLinks = agent.resourceLinks;
  const app = flavour === 'express5' ? express() : express4();
  const isAdmin = (req: express.Request) => /(?:^|;\s*)session=admin(?:;|$)/.test(req.headers.cookie ?? '');

  if (linkMiddleware) app.use(agent.linkHeaders);
  app.use(agent.router);
  app.get('/', async (req, res) => {
    res.type('html').send(page(await agent.headLinks(req), '<h1>Home</h1>'));
  });
  app.get('/page/:id', resourceLinks('id'), async (req, res) => {
    const id = await hostCanSee(db, String(req.params.id), isAdmin(req));
    if (id === undefined) return res.status(404).type('html').send(page('', 'not found'));
    // The host's own advertisement, set after the plugin's links with res.set: nothing may be lost.
    res.set('Link', `${WEBSUB_HUB}, <${req.protocol}://${req.get('host')}/page/${id}>; rel="self"`);
    res.type('html').send(page(await agent.headLinks(req, String(req.params.id)), `<h1>Page ${id}</h1>`));
  });
  app.get('/custom/:id', async (req, res) => {
    res.append('Link', WEBSUB_HUB);
    await agent.setResourceHeaders(req, res, String(req.params.id));
    res.links({ hub: 'https://hub.example.net/' });
    res.type('html').send(page(await agent.headLinks(req, String(req.params.id)), 'custom'));
  });
  app.get('/id/:id', (req, res) => {
    res.type('html').send(page('', `entity ${req.params.id}`));
  });
  app.get('/about', (_req, res) => {
    res.type('html').send(page('', 'about'));
  });
  app.get('/host-api', (_req, res) => {
    res.json({ ok: true });
  });
  app.use((_req, res) => {
    res.status(404).type('text').send('host 404');
  });

  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    agent,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
