import { createHash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import nunjucks from 'nunjucks';
import { sql, type SqlBool } from 'kysely';
import { anonymousVisible, createAgentDiscovery, localize, type AgentDiscovery, type AgentDiscoveryOptions, type Block, type LocalizedText } from '../src/index.js';
import { isSeeded, seedDemoContent } from './seed.js';
import { createResourceAdmin } from './admin-resources.js';
import { isAdmin, signIn, signOut, type SessionConfig } from './session.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The WebSub-style Link values the example CMS sends on its own resource pages. */
export const WEBSUB_HUB = '<https://hub.example.org/>; rel="hub"';

export interface ExampleSiteOptions {
  database: AgentDiscoveryOptions['database'];
  baseUrl?: string;
  /** Seed the demo content when the database is empty (default true). */
  seed?: boolean;
  session?: Partial<SessionConfig>;
  /** Extra plugin options (tests use this for hostile titles and the like). */
  plugin?: Partial<AgentDiscoveryOptions>;
  /**
   * Express's `trust proxy` (`TRUST_PROXY` for `npm start`): which `X-Forwarded-For` hop is the client, so
   * `req.ip` is the address agents are verified by (`loopback` behind a proxy on the same machine).
   */
  trustProxy?: boolean | number | string;
}

export interface ExampleSite {
  app: Express;
  agent: AgentDiscovery;
  session: SessionConfig;
  close(): Promise<void>;
}

const LANGUAGES = ['en', 'nl'];

/** A stored block as the site's page template shows it, its texts in `lang`. */
function humanBlock(b: Block, lang: string) {
  const props: { images?: unknown; answers?: unknown; tone?: unknown } = b.props ?? {};
  const images = Array.isArray(props.images) ? props.images.filter((i): i is { src: string; alt?: LocalizedText } => typeof i?.src === 'string' && i.src.startsWith('/')) : [];
  return {
    type: b.type.startsWith('survey_') ? 'poll' : b.type,
    rsc_id: b.rsc_id,
    header: localize(b.header, lang, 'en'),
    body: localize(b.body, lang, 'en'),
    tone: typeof props.tone === 'string' ? props.tone : 'info',
    images: images.map((i) => ({ src: i.src, alt: localize(i.alt, lang, 'en') })),
    answers: Array.isArray(props.answers) ? props.answers.filter((a): a is string => typeof a === 'string') : [],
  };
}

/** The 4xx status an error carries (Express and body-parser set `status`), else undefined. */
function clientErrorStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * A small but real Express CMS mounting the plugin the way a host would: the Link middleware
 * app-wide, the plugin's router at the root (which also answers `/` in Markdown for agents preferring
 * it), resource pages with `resourceLinks` (Link headers and Markdown negotiation in the page's
 * language) and the head hook, next to the host's own WebSub link, an administrator sign-in, and `/id/:id`.
 */
export async function createExampleSite(o: ExampleSiteOptions): Promise<ExampleSite> {
  const session: SessionConfig = {
    secret: o.session?.secret ?? process.env.SESSION_SECRET ?? 'example-site-development-secret',
    adminPassword: o.session?.adminPassword ?? process.env.ADMIN_PASSWORD ?? 'admin',
  };
  const agent = await createAgentDiscovery({
    siteTitle: 'Harbour Example',
    description: 'Articles, guides and photographs about the old harbour, in English and Dutch.',
    languages: LANGUAGES,
    defaultLanguage: 'en',
    templateDirs: [path.join(here, 'templates')],
    migrate: true,
    callerAccess: (req) => (isAdmin(req, session) ? 'all' : 'anonymous'),
    // The agent admin pages are the administrator's; their CSRF key is derived from the session secret.
    isAdmin: (req) => isAdmin(req, session),
    adminSecret: createHash('sha256').update(`agent-admin:${session.secret}`).digest('base64url'),
    // A showcase of an agent-ready site: the MCP endpoint, public CORS for the anonymous documents and
    // reads, robots.txt with Content Signals (the site's in code, each changeable on the admin page),
    // llms-full.txt (256 KiB).
    mcp: true,
    cors: true,
    robotsTxt: true,
    contentSignals: { search: true, 'ai-input': true, 'ai-train': false },
    llmsFull: true,
    // `.md` twins of the pages: /en/page/22.md, /index.md.
    markdownTwins: true,
    // The plugin's sitemap.xml (every public page in each language, hreflang alternates), named in robots.txt.
    sitemap: true,
    // NLWeb's /ask in list mode (the search's results as schema.org items).
    nlweb: true,
    // Agent traffic on the admin's Agents page (counted in memory, written every few seconds).
    traffic: true,
    // The content's licence and copyright: in llms.txt, the front matter and the RSL licence (/license.xml).
    siteLicense: { name: 'CC BY 4.0', url: 'https://creativecommons.org/licenses/by/4.0/' },
    siteCopyright: '© 2026 Harbour Example',
    // The site's own admin stays one click away from the agent admin pages.
    adminLinks: [{ label: 'Edit resources', href: '/admin/resources' }],
    database: o.database,
    ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
    ...o.plugin,
  });
  const db = agent.database.db;
  try {
    if ((o.seed ?? true) && !(await isSeeded(db))) await seedDemoContent(db);
  } catch (error) {
    await agent.close();
    throw error;
  }

  const views = new nunjucks.Environment(new nunjucks.FileSystemLoader(path.join(here, 'views')), { autoescape: true });
  const app = express();
  app.disable('x-powered-by');
  if (o.trustProxy !== undefined) app.set('trust proxy', o.trustProxy);
  app.use(agent.linkHeaders);
  app.use(agent.router);
  // The files the site advertises: media downloads (`download_url`) and images used in its pages.
  app.use('/media', express.static(path.join(here, 'media'), { index: false, redirect: false }));
  // The one form: small, URL-encoded, UTF-8. Too large is a 413, another charset a 415, a body
  // that does not parse a 400 (the error handler below answers them).
  const loginForm = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

  const render = async (req: Request, res: Response, view: string, vars: Record<string, unknown>, id?: number, language = 'en') => {
    const agentHead = await agent.headLinks(req, id, { language });
    res.type('html').send(
      views.render(view, {
        siteTitle: agent.options.siteTitle,
        admin: isAdmin(req, session),
        lang: 'en',
        agentHead,
        ...vars,
      }),
    );
  };

  // The host's own access rule: anonymous visitors see published, public pages inside their
  // publication window; the administrator sees everything.
  const hostVisible = (req: Request) => (isAdmin(req, session) ? sql<SqlBool>`true` : anonymousVisible('rsc'));

  app.get('/', async (req, res, next) => {
    try {
      const rows = await db
        .selectFrom('rsc')
        .select(['id', 'title'])
        .where(hostVisible(req))
        .where(sql<SqlBool>`category_id IN (SELECT c.id FROM category c JOIN rsc n ON n.id = c.id WHERE n.name IN ('article', 'guide'))`)
        .orderBy('publication_start', 'desc')
        .limit(12)
        .execute();
      // The description in force: the admin's Settings value, else the option.
      const { description } = await agent.settings();
      await render(req, res, 'home.njk', { pageTitle: 'Home', description, resources: rows.map((r) => ({ id: r.id, title: localize(r.title, 'en') })) });
    } catch (error) {
      next(error);
    }
  });

  // Resource pages: `resourceLinks` adds the page's links in the page's language and answers agents
  // that prefer Markdown (when the resource is public); everyone else gets the host's HTML below.
  const knownLanguage = (req: Request, _res: Response, next: NextFunction) => next(LANGUAGES.includes(String(req.params.lang)) ? undefined : 'route');
  app.get('/:lang/page/:id', knownLanguage, agent.resourceLinks({ id: 'id', language: 'lang' }), async (req, res, next) => {
    try {
      const lang = String(req.params.lang);
      const id = Number(req.params.id);
      if (!Number.isSafeInteger(id) || id < 1) return next();
      const row = await db.selectFrom('rsc').selectAll().where('id', '=', id).where(hostVisible(req)).executeTakeFirst();
      if (!row) return next();
      res.append('Link', WEBSUB_HUB);
      // The raw Host header is the client's: only the plugin's validated origin goes into a header.
      const base = agent.baseUrl(req);
      if (base) res.append('Link', `<${base}/${lang}/page/${id}>; rel="self"`);
      await render(
        req,
        res,
        'page.njk',
        {
          lang,
          pageTitle: localize(row.title, lang, 'en'),
          title: localize(row.title, lang, 'en'),
          summary: localize(row.summary, lang, 'en'),
          body: localize(row.body, lang, 'en'),
          // Every block is the human's too: the callout agents also get, the gallery they are told is
          // omitted, and the poll they never see.
          blocks: row.blocks.map((b) => humanBlock(b, lang)),
          license: localize(row.license, lang, 'en'),
          attribution: localize(row.attribution, lang, 'en'),
        },
        id,
        lang,
      );
    } catch (error) {
      next(error);
    }
  });

  app.get('/id/:id', (req, res, next) => {
    const id = Number(req.params.id);
    if (!Number.isSafeInteger(id) || id < 1) return next();
    const language = typeof req.query.language === 'string' && LANGUAGES.includes(req.query.language) ? req.query.language : 'en';
    res.redirect(302, `/${language}/page/${id}`);
  });

  // The administrator's area: the site's own resource editor and the plugin's agent admin pages
  // (both answer 404 to everyone else, like any path that does not exist).
  app.use('/admin/resources', createResourceAdmin({ db, content: agent.content, session, languages: LANGUAGES, render: (req, res, view, vars) => render(req, res, view, vars) }));
  app.use('/admin/agent', agent.adminRouter);

  app.get('/login', (req, res, next) => render(req, res, 'login.njk', { pageTitle: 'Sign in', failed: req.query.failed === '1' }).catch(next));
  app.post('/login', loginForm, (req, res) => {
    if ((req.body as { password?: unknown } | undefined)?.password === session.adminPassword) {
      signIn(res, session);
      res.redirect(303, '/');
    } else {
      res.redirect(303, '/login?failed=1');
    }
  });
  app.post('/logout', (_req, res) => {
    signOut(res);
    res.redirect(303, '/');
  });

  // An agent that asked for Markdown (or for a `.md` URL) gets its 404 in Markdown; everyone else the page below.
  app.use(agent.markdownNotFound);
  app.use((req, res, next) => {
    res.status(404);
    render(req, res, 'not-found.njk', { pageTitle: 'Not found' }).catch(next);
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    // The client's mistakes (an undecodable path, a form too large, in another charset or cut off)
    // carry their 4xx status: answered as such, and not logged as server faults.
    const status = clientErrorStatus(error);
    if (status !== undefined) {
      if (!res.headersSent) res.status(status).type('text').send(STATUS_CODES[status] ?? 'Bad request');
      return;
    }
    if (!res.headersSent) res.status(500).type('text').send('Internal error');
    process.stderr.write(`example-site: ${(error as Error).stack ?? String(error)}\n`);
  });

  return { app, agent, session, close: () => agent.close() };
}
