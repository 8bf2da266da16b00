// Imports Ghost's own JSON export into the plugin's tables, and removes what the export no longer
// shows as public (run it again with a newer export to catch up):
//   DATABASE_URL=postgres://… GHOST_URL=https://blog.example node import-export.mjs ghost-export.json
// GHOST_URL is the blog's public URL: `__GHOST_URL__` in the content becomes it, and every item cites
// <GHOST_URL>/<slug>/. Then `node host.mjs` with the same DATABASE_URL and GHOST_URL serves it.
import { readFile } from 'node:fs/promises'
import { createAgentDiscovery } from 'express-agent-discovery'
import { ghostUrlFrom, pluginDatabase, putGhostVocabulary } from './ghost-content.mjs'
import { exportSetting, exportTables, publicContent } from './ghost-export.mjs'

const file = process.argv[2]
if (!file) {
  console.error('usage: DATABASE_URL=… GHOST_URL=https://blog.example node import-export.mjs <ghost-export.json>')
  process.exit(2)
}
const ghostUrl = ghostUrlFrom(process.env.GHOST_URL)
const data = exportTables(JSON.parse(await readFile(file, 'utf8')))
const site = publicContent(data, ghostUrl)

const agent = await createAgentDiscovery({
  siteTitle: exportSetting(data, 'title') ?? 'Ghost',
  database: pluginDatabase(process.env),
  migrate: true,
  markdownWorkers: 0,
})
try {
  const content = agent.content
  await putGhostVocabulary(content)
  // Tags and authors first: the posts' edges point at them.
  await content.putMany(site.tags)
  await content.putMany(site.authors)
  await content.putMany(site.posts, { onProgress: ({ written }) => process.stderr.write(`\rposts and pages: ${written}/${site.posts.length}`) })
  process.stderr.write('\n')
  await content.setEdgesMany(site.edges)
  // What an earlier import pushed and this export no longer shows as public goes.
  let removed = 0
  for (const [categories, list] of [[['post', 'page'], site.posts], [['tag'], site.tags], [['author'], site.authors]]) {
    const report = await content.reconcile(list.map((r) => ({ id: r.id, modified: r.modified })), { categories })
    removed += report.removed.length
  }
  console.log(`imported ${site.posts.length} posts and pages (${site.hidden} not public, left out), ${site.tags.length} tags, ${site.authors.length} authors; removed ${removed}`)
} finally {
  await agent.close()
}
