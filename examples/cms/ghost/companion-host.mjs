// Beside a real Ghost: serves what import-export.mjs imported from Ghost's export, and keeps it
// current from Ghost's webhooks. No MariaDB: the plugin's tables (PostgreSQL with DATABASE_URL, or a
// PGlite directory with DATA_DIR) hold everything agents read, and every item cites Ghost's page.
//   DATABASE_URL=postgres://… PORT=3000 GHOST_URL=https://blog.example GHOST_WEBHOOK_SECRET=… node host.mjs
import express from 'express'
import { anonymousVisible, createAgentDiscovery } from 'express-agent-discovery'
import { ghostUrlFrom, pluginDatabase, putGhostVocabulary } from './ghost-content.mjs'
import { ghostWebhookRouter } from './ghost-webhooks.mjs'

const ghostUrl = ghostUrlFrom(process.env.GHOST_URL)
const secret = process.env.GHOST_WEBHOOK_SECRET

export const agent = await createAgentDiscovery({
  siteTitle: process.env.SITE_TITLE ?? 'Ghost blog',
  description: process.env.SITE_DESCRIPTION ?? `The posts of ${ghostUrl}, for agents.`,
  languages: ['en'],
  database: pluginDatabase(process.env),
  migrate: true,
  mcp: true, // the read-only MCP endpoint at /mcp
})
await putGhostVocabulary(agent.content)

const app = express()
app.use(agent.linkHeaders)
app.use(agent.router)

// Ghost's webhooks: every post.* and page.* event may point at <this site>/ghost/webhooks.
if (secret) app.use('/ghost/webhooks', ghostWebhookRouter({ content: agent.content, db: agent.database.db, ghostUrl, secret }))
else console.warn('GHOST_WEBHOOK_SECRET is not set: webhooks are refused (run import-export.mjs to update)')

// The plugin's entity URIs (<base>/id/<id>): agents get JSON or Markdown from agent.router; browsers
// go on to the post's page on Ghost.
app.get('/id/:id', async (req, res, next) => {
  if (!/^[1-9][0-9]{0,14}$/.test(req.params.id)) return next()
  const row = await agent.database.db
    .selectFrom('rsc as r')
    .select('r.page_url')
    .where('r.id', '=', Number(req.params.id))
    .where(anonymousVisible('r'))
    .executeTakeFirst()
  if (typeof row?.page_url !== 'string') return next()
  res.redirect(303, row.page_url)
})

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
app.get('/', (req, res, next) => {
  agent
    .headLinks(req)
    .then((head) => res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(agent.options.siteTitle)}</title>${head}</head>
<body><p>The posts of <a href="${escapeHtml(ghostUrl)}/">${escapeHtml(ghostUrl)}</a> for agents: <a href="/llms.txt">llms.txt</a>.</p></body></html>`), next)
})
app.use((req, res) => res.status(404).type('text').send('not found'))

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on http://localhost:${server.address().port}/`)
})
process.on('SIGTERM', () => {
  server.close()
  agent.close().then(() => process.exit(0))
})
