// Strapi 5 content served to people and agents from Strapi's own PostgreSQL tables (the views road).
// Prepare the database first (bash examples/cms/strapi/setup.sh, see docs/guides/strapi.md), then:
//   DATABASE_URL=postgres://strapi@db/strapi PORT=3000 SITE_URL=https://news.example node host.mjs
import express from 'express'
import pg from 'pg'
import { anonymousVisible, createAgentDiscovery, localize, sql } from 'express-agent-discovery'

// The recipe's tables (rsc, category, edge, …) live in schema `agent`, kept by its triggers on Strapi's tables in `public`.
const databaseUrl = new URL(process.env.DATABASE_URL)
databaseUrl.searchParams.set('options', '-c search_path=agent,public')
const siteUrl = (process.env.SITE_URL || '').replace(/\/+$/, '')

// The languages the content has (Strapi's default locale first, as the recipe orders them).
const settings = new pg.Client({ connectionString: databaseUrl.href })
await settings.connect()
const { rows: used } = await settings.query(
  'SELECT code FROM (SELECT DISTINCT unnest(language) AS code, 1 AS o FROM agent.rsc) x ORDER BY (SELECT language[1] FROM agent.rsc LIMIT 1) = code DESC, code')
await settings.end()

export const agent = await createAgentDiscovery({
  siteTitle: process.env.SITE_TITLE ?? 'News',
  baseUrl: siteUrl || undefined, // the site's public origin, when this host answers behind it
  languages: used.map((r) => r.code),
  database: { url: databaseUrl.href },
  migrate: true, // over the recipe's schema this creates only the plugin's own tables
  cache: { contentVersioned: true }, // the recipe's triggers bump the content version on every change they follow
  llmsFull: true, // /llms-full.txt: the newest public articles in one document, up to 256 KiB
  mcp: true, // the same reads as MCP tools at /mcp
})
const db = agent.database.db

const app = express()
app.use(agent.linkHeaders) // once, before the routes: merges every Link value into one header
app.use(agent.router) // llms.txt, /api/agent/*, Markdown reads, /id/:id for agents

app.get('/', (req, res, next) => {
  agent.headLinks(req).then((head) => res.type('html').send(`<!doctype html><html><head><title>${escapeHtml(agent.options.siteTitle)}</title>${head}</head>
<body><h1>${escapeHtml(agent.options.siteTitle)}</h1><p><a href="/llms.txt">llms.txt</a></p></body></html>`), next)
})

// A page of the site (/<locale>/articles/<slug>, /authors/<slug>, /about): the published version the
// Public role reads, found by its page URL in the recipe's rsc; drafts and hidden types are a 404.
app.get(/^\/[^.]*$/, findPage, agent.resourceLinks({ id: 'id', language: 'language' }), renderPage)

async function findPage(req, res, next) {
  const url = `${siteUrl}${req.path}`
  const { rows } = await sql`
    SELECT r.id, r.title, r.body, p.key AS language FROM rsc r, jsonb_each_text(r.page_url) p
    WHERE p.value = ${url} AND ${anonymousVisible('r')} LIMIT 1`.execute(db)
  if (!rows.length) return next('route')
  res.locals.page = rows[0]
  req.params.id = String(rows[0].id) // what resourceLinks reads: the resource, and the page's language
  req.params.language = rows[0].language
  next()
}

async function renderPage(req, res) {
  const { page } = res.locals
  const head = await agent.headLinks(req, page.id, { language: page.language })
  const title = escapeHtml(localize(page.title, page.language))
  res.type('html').send(`<!doctype html><html lang="${page.language}"><head><meta charset="utf-8"><title>${title}</title>${head}</head>
<body><h1>${title}</h1>${localize(page.body, page.language) ?? ''}</body></html>`) // body: Strapi's blocks and components, as HTML
}

app.use((req, res) => res.status(404).type('html').send('<!doctype html><title>Not found</title><h1>Not found</h1>'))

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on http://localhost:${server.address().port}/`)
})
