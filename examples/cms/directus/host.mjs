// Directus 12 content served to people and agents from Directus's own PostgreSQL tables (the views road).
// Prepare the database first (bash examples/cms/directus/setup.sh, see docs/guides/directus.md), then:
//   DATABASE_URL=postgres://directus@db/directus PORT=3000 SITE_URL=https://news.example node host.mjs
import express from 'express'
import pg from 'pg'
import { anonymousVisible, createAgentDiscovery, localize, sql } from 'express-agent-discovery'

// The recipe's relations (rsc, category, edge, …) live in schema `agent`, Directus's tables in `public`:
// the plugin's connection searches both, through the connection string's `options` parameter.
const databaseUrl = new URL(process.env.DATABASE_URL)
databaseUrl.searchParams.set('options', '-c search_path=agent,public')

// What the recipe was generated with: its text search configuration, and the languages its content has.
const settings = new pg.Client({ connectionString: databaseUrl.href })
await settings.connect()
const { rows: [recipe] } = await settings.query('SELECT language, text_search FROM agent.recipe')
const { rows: collections } = await settings.query('SELECT collection, number FROM agent.collection ORDER BY number')
const { rows: used } = await settings.query('SELECT DISTINCT unnest(language) AS code FROM agent.resource ORDER BY 1')
await settings.end()

export const agent = await createAgentDiscovery({
  siteTitle: process.env.SITE_TITLE ?? 'News',
  baseUrl: process.env.SITE_URL || undefined, // the site's public origin, when this host answers behind it
  languages: [recipe.language, ...used.map((r) => r.code).filter((code) => code !== recipe.language)],
  database: { url: databaseUrl.href },
  migrate: true, // over the recipe's schema this creates only the plugin's own settings table
  textSearch: { configuration: recipe.text_search }, // the recipe's fts vectors are built with it
  llmsFull: true, // /llms-full.txt: every public article in one document
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

// An item's page, /<collection>/<slug> (the recipe's page URLs): find it as the Public policy reads it
// (the recipe's rsc follows that rule), hand its id to resourceLinks, then render it. Hidden and missing
// items alike fall through to the 404 below. Ids: the collection numbered k has k * 10^12 + its key.
const served = new Map(collections.map((c) => [c.collection, Number(c.number)]))
app.get('/:collection/:slug', findItem, agent.resourceLinks({ id: 'id' }), renderItem)

async function findItem(req, res, next) {
  const k = served.get(req.params.collection)
  if (k === undefined) return next('route')
  const { rows } = await sql`
    SELECT r.id, r.title, r.body, r.language FROM ${sql.table(req.params.collection)} t
    JOIN rsc r ON r.id = ${k}::bigint * 1000000000000 + t.id
    WHERE t.slug = ${req.params.slug} AND ${anonymousVisible('r')}`.execute(db)
  if (!rows.length) return next('route')
  res.locals.item = rows[0]
  req.params.id = String(rows[0].id) // what resourceLinks reads
  next()
}

async function renderItem(req, res) {
  const { item } = res.locals
  const language = item.language[0]
  const head = await agent.headLinks(req, item.id, { language }) // the Link values as <link> elements
  const title = escapeHtml(localize(item.title, language))
  res.type('html').send(`<!doctype html><html lang="${language}"><head><meta charset="utf-8"><title>${title}</title>${head}</head>
<body><h1>${title}</h1>${localize(item.body, language) ?? ''}</body></html>`) // body: Directus's rich-text HTML
}

// The plugin's entity URIs (<base>/id/<id>): browsers go on to the item's page.
app.get('/id/:id', async (req, res, next) => {
  if (!/^[1-9][0-9]{0,15}$/.test(req.params.id)) return next()
  const item = await db.selectFrom('rsc').select('page_url').where('id', '=', Number(req.params.id)).where(anonymousVisible()).executeTakeFirst()
  const url = typeof item?.page_url === 'string' ? item.page_url : item?.page_url && Object.values(item.page_url)[0]
  if (!url) return next()
  res.redirect(303, url)
})

app.use((req, res) => res.status(404).type('html').send('<!doctype html><title>Not found</title><h1>Not found</h1>'))

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on http://localhost:${server.address().port}/`)
})
