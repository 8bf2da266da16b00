// Wiki.js 2.x pages served to people and agents from Wiki.js's own PostgreSQL tables.
// Apply this folder's SQL files to the Wiki.js database first (see README.md), then:
//   DATABASE_URL=postgres://user@host/wiki PORT=3000 node host.mjs
import express from 'express'
import { anonymousVisible, createAgentDiscovery, localize, sql } from 'express-agent-discovery'

// The recipe's relations (rsc, category, edge, …) live in schema `agent`, Wiki.js's tables in `public`:
// the plugin's connection searches both, through the connection string's `options` parameter.
const databaseUrl = new URL(process.env.DATABASE_URL)
databaseUrl.searchParams.set('options', '-c search_path=agent,public')

export const agent = await createAgentDiscovery({
  siteTitle: process.env.SITE_TITLE ?? 'Engineering Wiki',
  languages: ['en', 'de'],
  database: { url: databaseUrl.href },
  migrate: true, // over the recipe's schema this creates only the plugin's own settings table
  textSearch: { configuration: 'english' }, // the recipe's fts vectors are built with 'english'
  mcp: true, // the same reads as MCP tools at /mcp
  cache: { contentVersioned: true }, // 06-content-version.sql bumps the content version on every write
})
const db = agent.database.db

const app = express()
app.use(agent.linkHeaders) // once, before the routes: merges every Link value into one header
app.use(agent.router) // llms.txt, /api/agent/*, Markdown reads, /id/:id for agents

app.get('/', (req, res, next) => {
  agent.headLinks(req).then((head) => res.type('html').send(`<!doctype html><html><head><title>${escapeHtml(agent.options.siteTitle)}</title>${head}</head>
<body><h1>${escapeHtml(agent.options.siteTitle)}</h1><p><a href="/llms.txt">llms.txt</a></p></body></html>`), next)
})

// A Wiki.js page URL, /<locale>/<path>: find the page as a guest would see it (the recipe's `rsc` holds
// Wiki.js's guest rule), hand its id to resourceLinks, then render it. Hidden and missing pages alike
// fall through to the 404 below.
app.get('/:locale/*path', findPage, agent.resourceLinks({ id: 'id', language: 'locale' }), renderPage)

async function findPage(req, res, next) {
  const { locale } = req.params
  if (!agent.options.languages.includes(locale)) return next('route')
  const { rows } = await sql`
    SELECT r.id, r.title, r.body FROM pages p JOIN rsc r ON r.id = p.id
    WHERE p."localeCode" = ${locale} AND p.path = ${req.params.path.join('/')} AND ${anonymousVisible('r')}`.execute(db)
  if (!rows.length) return next('route')
  res.locals.page = rows[0]
  req.params.id = String(rows[0].id) // what resourceLinks reads
  next()
}

async function renderPage(req, res) {
  const { page } = res.locals
  const { locale } = req.params
  const head = await agent.headLinks(req, page.id, { language: locale }) // the Link values as <link> elements
  const title = escapeHtml(localize(page.title, locale))
  res.type('html').send(`<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${title}</title>${head}</head>
<body><h1>${title}</h1>${localize(page.body, locale)}</body></html>`) // body: Wiki.js's rendered HTML
}

// The plugin's entity URIs (<base>/id/<id>): browsers go on to the page's Wiki.js URL.
app.get('/id/:id', async (req, res, next) => {
  if (!/^[1-9][0-9]{0,9}$/.test(req.params.id) || Number(req.params.id) > 2147483647) return next()
  const page = await db.selectFrom('rsc').select('page_url').where('id', '=', Number(req.params.id)).where(anonymousVisible()).executeTakeFirst()
  const path = page?.page_url && Object.values(page.page_url)[0]
  if (!path) return next()
  res.redirect(303, encodeURI(path))
})

app.use((req, res) => res.status(404).type('html').send('<!doctype html><title>Not found</title><h1>Not found</h1>'))

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on http://localhost:${server.address().port}/`)
})
