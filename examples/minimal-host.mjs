// A minimal host: `npm install express express-agent-discovery`, then `node minimal-host.mjs`.
import express from 'express'
import { anonymousVisible, createAgentDiscovery, localize } from 'express-agent-discovery'

export const agent = await createAgentDiscovery({
  siteTitle: 'Harbour Example',
  description: 'Articles about the old harbour.',
  languages: ['en', 'nl'],
  // PostgreSQL when DATABASE_URL is set, else the embedded PGlite ({ dataDir: './data' } keeps it on disk)
  database: process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { memory: true },
  migrate: true, // creates the content tables when they are missing
  pageUrl: ({ id, language }) => `/${language}/page/${id}`,
})

const app = express()
app.use(agent.linkHeaders) // once, before your routes: merges every Link value into one header
app.use(agent.router) // at the root: discovery documents, /api/agent/*, Markdown, /id/:id negotiation

// Your home page: the middleware adds the site-level Link values (agents look at `HEAD /` first).
app.get('/', (req, res, next) => {
  agent.headLinks(req).then((head) => res.type('html').send(`<!doctype html><html><head><title>Harbour Example</title>${head}</head>
<body><a href="/llms.txt">llms.txt</a></body></html>`), next)
})
// Your resource pages: resourceLinks adds the Link values in the page's language, and answers
// agents that prefer Markdown (when the resource is public) before your handler runs.
const pageLinks = agent.resourceLinks({ id: 'id', language: 'lang' })
app.get('/:lang/page/:id', pageLinks, (req, res, next) => renderPage(req, res, next).catch(next))
// Browsers reach /id/:id after agent.router has answered agents that asked for Markdown or JSON.
app.get('/id/:id', (req, res) => res.redirect(303, `/en/page/${encodeURIComponent(req.params.id)}`))

async function renderPage(req, res, next) {
  const { lang } = req.params
  const id = Number(req.params.id)
  if (!agent.options.languages.includes(lang) || !Number.isSafeInteger(id)) return next()
  const page = await agent.database.db
    .selectFrom('rsc')
    .select(['title', 'body'])
    .where('id', '=', id)
    .where(anonymousVisible()) // published, public, inside its publication window
    .executeTakeFirst()
  if (!page) return next()
  res.append('Link', '<https://hub.example.org/>; rel="hub"') // your own Link values are kept
  const head = await agent.headLinks(req, id) // the same links as <link> elements, for <head>
  const title = escapeHtml(localize(page.title, lang))
  res.type('html').send(`<!doctype html><html lang="${lang}"><head><title>${title}</title>${head}</head>
<body><h1>${title}</h1>${localize(page.body, lang)}</body></html>`) // body: your CMS's trusted HTML
}

const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const port = Number(process.env.PORT ?? 3000)
const server = app.listen(port)
server.on('listening', () => console.log(`listening on http://localhost:${server.address().port}/`))
server.on('error', (error) => {
  // A port already taken (or not allowed) is said plainly, and the host stops.
  console.error(error.code === 'EADDRINUSE' ? `port ${port} is in use: stop what listens there, or set PORT` : `cannot listen on port ${port}: ${error.message}`)
  agent.close().finally(() => process.exit(1))
})
