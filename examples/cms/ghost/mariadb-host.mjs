// A Ghost-shaped blog on MariaDB/MySQL that serves its posts to agents through the push API (host.mjs
// without GHOST_URL). The CMS writes its own tables and then pushes each change into the plugin's
// tables (PostgreSQL with DATABASE_URL, else an embedded PGlite in memory); at start-up it reconciles
// the two.
//   ADMIN_TOKEN=secret MYSQL_DATABASE=test PORT=3000 node host.mjs
import express from 'express'
import mysql from 'mysql2/promise'
import { anonymousVisible, createAgentDiscovery } from 'express-agent-discovery'
import { createGhostTables, deletePost, publishedPostBySlug, savePost, setPostStatus, slugify } from './ghost-store.mjs'
import { ghostPageUrl, pushPost, putVocabulary, syncAll } from './ghost-push.mjs'

const mariadb = mysql.createPool({
  host: process.env.MYSQL_HOST ?? '127.0.0.1',
  port: Number(process.env.MYSQL_PORT ?? 3306),
  user: process.env.MYSQL_USER ?? 'root',
  password: process.env.MYSQL_PASSWORD ?? '',
  database: process.env.MYSQL_DATABASE ?? 'test',
  timezone: 'Z', // Ghost stores UTC
})
await createGhostTables(mariadb)

export const agent = await createAgentDiscovery({
  siteTitle: process.env.SITE_TITLE ?? 'Harbour Notes',
  description: 'A Ghost-style blog about the old harbour.',
  languages: ['en'],
  database: process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { memory: true },
  migrate: true,
  pageUrl: ghostPageUrl, // /<slug>/ for posts, /tag/<slug>/ for tags
})
const content = agent.content

// Start-up: the vocabulary, then whatever a crash or an outage left behind is repaired.
// SYNC_MAX_REMOVE (a count, or a share such as 25%) is the most a sync may remove; default 10 %.
await putVocabulary(content)
const maxRemove = /^\d+$/.test(process.env.SYNC_MAX_REMOVE ?? '') ? Number(process.env.SYNC_MAX_REMOVE) : process.env.SYNC_MAX_REMOVE
const sync = async () => {
  try {
    return await syncAll(content, mariadb, { maxRemove })
  } catch (error) {
    if (error.code !== 'remove_limit') throw error
    // The guard held: nothing was removed; serve what is stored and say why.
    console.error(`sync refused, nothing removed: ${error.message}`)
    return { removed: 0, pushed: 0, refused: error.detail }
  }
}
const startup = await sync()

const app = express()
app.use(agent.linkHeaders)
app.use(agent.router)

// The admin API: every save writes MariaDB first, then pushes. A failed push leaves the CMS right
// and the plugin behind; the answer says so, and the next sync (POST /ghost/api/admin/sync, or a
// restart) repairs it.
const admin = express.Router()
admin.use((req, res, next) => {
  const token = process.env.ADMIN_TOKEN
  if (!token || req.get('authorization') !== `Bearer ${token}`) return res.status(401).json({ error: 'unauthorized' })
  next()
})
admin.use(express.json({ limit: '1mb' }))

admin.post('/posts', async (req, res) => {
  const post = validPost(req.body)
  if (typeof post === 'string') return res.status(400).json({ error: post })
  const id = await savePost(mariadb, post)
  res.status(req.body.id ? 200 : 201).json({ id, ...(await pushed(id)) })
})
for (const [action, status] of [['publish', 'published'], ['unpublish', 'draft']]) {
  admin.post(`/posts/:id/${action}`, async (req, res) => {
    if (!(await setPostStatus(mariadb, req.params.id, status))) return res.status(404).json({ error: 'no such post' })
    res.json({ id: req.params.id, ...(await pushed(req.params.id)) })
  })
}
admin.post('/posts/:id/delete', async (req, res) => {
  if (!(await deletePost(mariadb, req.params.id))) return res.status(404).json({ error: 'no such post' })
  res.json({ id: req.params.id, ...(await pushed(req.params.id)) })
})
admin.post('/sync', async (req, res) => res.json(await sync()))
app.use('/ghost/api/admin', admin)

/** Pushes a post after its save: the numeric id agents read it by (null when not served). */
async function pushed(id) {
  try {
    return { pushed: true, rsc_id: await pushPost(content, mariadb, id) }
  } catch (error) {
    console.error(`push of post ${id} failed, the next sync repairs it: ${error.message}`)
    return { pushed: false, rsc_id: null }
  }
}

function validPost(body) {
  const text = (v, max) => v === undefined || (typeof v === 'string' && v.length <= max)
  if (!body || typeof body !== 'object') return 'a JSON object is expected'
  if (body.id !== undefined && !/^[0-9a-f]{24}$/.test(body.id)) return 'id: a 24-hex id'
  if (typeof body.title !== 'string' || !body.title.trim() || body.title.length > 2000) return 'title: 1 to 2,000 characters'
  if (body.slug !== undefined && !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(body.slug)) return 'slug: lowercase letters, digits and hyphens'
  if (!text(body.html, 1_000_000) || !text(body.excerpt, 2000)) return 'html or excerpt: too long, or not text'
  if (!['draft', 'published', 'scheduled', undefined].includes(body.status)) return 'status: draft, published or scheduled'
  if (!['public', 'members', 'paid', undefined].includes(body.visibility)) return 'visibility: public, members or paid'
  if (body.tags !== undefined && !(Array.isArray(body.tags) && body.tags.length <= 50 && body.tags.every((t) => text(t, 191) && t.trim()))) return 'tags: up to 50 names'
  return {
    id: body.id,
    title: body.title,
    slug: body.slug ?? slugify(body.title),
    html: body.html ?? '',
    excerpt: body.excerpt,
    status: body.status ?? 'draft',
    visibility: body.visibility ?? 'public',
    tags: body.tags,
  }
}

// The human pages: Ghost's URLs, with the plugin's links in <head> and the Link header.
app.get('/', (req, res, next) => {
  agent.headLinks(req).then((head) => res.type('html').send(page(agent.options.siteTitle, head, '<p><a href="/llms.txt">llms.txt</a></p>')), next)
})
app.get('/:slug/', async (req, res, next) => {
  if (!/^[a-z0-9-]{1,95}$/.test(req.params.slug)) return next()
  const post = await publishedPostBySlug(mariadb, req.params.slug)
  if (!post || post.visibility !== 'public') return next()
  const name = `post_${post.slug.replaceAll('-', '_')}` // the resource's name (ghost-push.mjs)
  await agent.setResourceHeaders(req, res, name)
  res.type('html').send(page(post.title, await agent.headLinks(req, name), post.html ?? '')) // Ghost's rendered HTML
})

// The plugin's entity URIs (<base>/id/<id>): agents get JSON or Markdown from agent.router, browsers
// go on to the Ghost page.
app.get('/id/:id', async (req, res, next) => {
  if (!/^[1-9][0-9]{0,14}$/.test(req.params.id)) return next()
  const db = agent.database.db
  const row = await db
    .selectFrom('rsc as r')
    .innerJoin('rsc as c', 'c.id', 'r.category_id')
    .select(['r.id', 'r.name', 'c.name as category'])
    .where('r.id', '=', Number(req.params.id))
    .where(anonymousVisible('r'))
    .executeTakeFirst()
  if (!row?.name) return next()
  res.redirect(303, ghostPageUrl(row))
})

app.use((req, res) => res.status(404).type('html').send(page('Not found', '', '')))
app.use((error, req, res, next) => {
  if (res.headersSent) return next(error)
  const status = error.code === 'ER_DUP_ENTRY' ? 409 : error.status >= 400 && error.status < 500 ? error.status : 500
  if (status === 500) console.error(error)
  res.status(status).json({ error: status === 500 ? 'internal error' : error.message })
})

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
function page(title, head, body) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${head}</head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
}

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`synced at start-up: ${startup.removed} removed, ${startup.pushed} pushed`)
  console.log(`listening on http://localhost:${server.address().port}/`)
})
process.on('SIGTERM', () => {
  server.close()
  Promise.all([agent.close(), mariadb.end()]).then(() => process.exit(0))
})
