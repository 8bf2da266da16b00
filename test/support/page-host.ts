import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import express from 'express';
import type { Kysely } from 'kysely';
import { createAgentDiscovery, type AgentDiscovery, type AgentDiscoveryOptions } from '../../src/index.js';
import type { Database } from '../../src/db/schema.js';
import { DEMO_PLUGIN_OPTIONS } from './demo.js';
import type { ExpressFlavour } from './fetchkit.js';

/** Express 4 (installed as `express4`; it ships no types). */
const express4 = createRequire(import.meta.url)('express4') as () => express.Express;

/** The agent Accept headers seen in the wild, and the ones that must keep getting HTML. */
export const ACCEPT = {
  claudeCode: 'text/markdown, text/html, */*',
  cursor: 'text/markdown;q=1.0, text/html;q=0.8, */*;q=0.1',
  markdownOnly: 'text/markdown',
  browser: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  fetchKit: 'text/html, text/markdown, text/plain, */*;q=0.8',
  any: '*/*',
  markdownLower: 'text/markdown;q=0.5, text/html',
} as const;

/** The host's own Link values on its pages: a hub, and a feed alternate set after the plugin's. */
export const HOST_HUB = '<https://hub.example.net/>; rel="hub"';
export const HOST_FEED = '<https://feeds.example.net/all.xml>; rel="alternate"; type="application/rss+xml"';

export interface PageHost {
  origin: string;
  agent: AgentDiscovery;
  close(): Promise<void>;
}

const page = (lang: string, head: string, body: string) =>
  `<!doctype html><html lang="${lang}"><head><title>Host</title>\n${head}\n</head><body>${body}</body></html>`;

/** The host's ACL: the administrator (`session=admin`) sees everything, anonymous only published public pages. */
async function hostCanSee(db: Kysely<Database>, ref: string, admin: boolean): Promise<boolean> {
  const row = await db
    .selectFrom('rsc')
    .select(['is_published', 'visibility'])
    .where(/^[0-9]+$/.test(ref) ? 'id' : 'name', '=', /^[0-9]+$/.test(ref) ? Number(ref) : ref)
    .executeTakeFirst();
  return Boolean(row && (admin || (row.is_published && row.visibility === 'public')));
}

/**
 * A host CMS with multilingual resource pages, listening on a loopback port:
 * - `/` the home page (HTML, head links);
 * - `/:lang/page/:id` behind `resourceLinks({ id: 'id', language: 'lang' })` (any language segment);
 * - `/page/:id` behind `resourceLinks('id')` (the one-argument form, the site's default language);
 * - `/custom/:lang/:id`, a custom controller calling `sendMarkdownIfPreferred` then `setResourceHeaders`.
 * Its pages answer `404 text/html` for what its ACL hides.
 */
export async function startPageHost(
  db: Kysely<Database>,
  flavour: ExpressFlavour,
  options: Partial<AgentDiscoveryOptions> = {},
): Promise<PageHost> {
  const agent = await createAgentDiscovery({ ...DEMO_PLUGIN_OPTIONS, languages: [...DEMO_PLUGIN_OPTIONS.languages], database: { kysely: db }, ...options });
  const app = flavour === 'express5' ? express() : express4();
  const isAdmin = (req: express.Request) => /(?:^|;\s*)session=admin(?:;|$)/.test(req.headers.cookie ?? '');
  const notFound = (res: express.Response) => res.status(404).type('html').send(page('en', '', '<h1>Not found</h1>'));

  app.use(agent.linkHeaders);
  app.use(agent.router);
  app.get('/', async (req, res) => {
    res.type('html').send(page('en', await agent.headLinks(req), '<h1>Home</h1>'));
  });
  app.get('/:lang/page/:id', agent.resourceLinks({ id: 'id', language: 'lang' }), async (req, res) => {
    const { lang, id } = req.params as { lang: string; id: string };
    if (!(await hostCanSee(db, id, isAdmin(req)))) return notFound(res);
    res.append('Link', HOST_HUB);
    res.append('Link', HOST_FEED);
    res.type('html').send(page(lang, await agent.headLinks(req, id), `<h1>Page ${id} (${lang})</h1>`));
  });
  app.get('/page/:id', agent.resourceLinks('id'), async (req, res) => {
    const id = String(req.params.id);
    if (!(await hostCanSee(db, id, isAdmin(req)))) return notFound(res);
    res.type('html').send(page('en', await agent.headLinks(req, id), `<h1>Page ${id}</h1>`));
  });
  app.get('/custom/:lang/:id', async (req, res) => {
    const { lang, id } = req.params as { lang: string; id: string };
    if (await agent.sendMarkdownIfPreferred(req, res, id, { language: lang })) return;
    if (!(await hostCanSee(db, id, isAdmin(req)))) return notFound(res);
    await agent.setResourceHeaders(req, res, id, { language: lang });
    res.type('html').send(page(lang, await agent.headLinks(req, id), `<h1>Custom ${id}</h1>`));
  });

  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    agent,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A Link header parsed the way dictionary-style clients do (Python `requests`/`httpx` `.links`, npm
 * `parse-link-header`): split on commas outside `<…>` and quotes, read `<url>` and `; name=value`
 * parameters, key every link by its `rel` (each space-separated relation), the last one winning.
 */
export function linksByRel(header: string): Record<string, Record<string, string>> {
  const values: string[] = [];
  let current = '';
  let inUrl = false;
  let inQuotes = false;
  for (let i = 0; i < header.length; i++) {
    const c = header[i]!;
    if (inQuotes && c === '\\') {
      current += c + (header[++i] ?? '');
      continue;
    }
    if (c === '"' && !inUrl) inQuotes = !inQuotes;
    else if (c === '<' && !inQuotes) inUrl = true;
    else if (c === '>' && !inQuotes) inUrl = false;
    else if (c === ',' && !inUrl && !inQuotes) {
      values.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  values.push(current);
  const out: Record<string, Record<string, string>> = {};
  for (const value of values) {
    const match = /^\s*<([^>]*)>(.*)$/s.exec(value);
    if (!match) continue;
    const link: Record<string, string> = { url: match[1]! };
    for (const param of match[2]!.split(';')) {
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      link[param.slice(0, eq).trim().toLowerCase()] = param.slice(eq + 1).trim().replace(/^"(.*)"$/s, '$1');
    }
    for (const rel of (link.rel ?? '').split(/\s+/).filter(Boolean)) out[rel] = link;
  }
  return out;
}
