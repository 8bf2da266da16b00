// Imports Ghost's own JSON export into the plugin's tables, and removes what the export no longer
// shows as public (run it again with a newer export to catch up):
//   DATABASE_URL=postgres://… GHOST_URL=https://blog.example node import-export.mjs ghost-export.json
// GHOST_URL is the blog's public URL: `__GHOST_URL__` in the content becomes it, and every item cites
// <GHOST_URL>/<slug>/. Then `node host.mjs` with the same DATABASE_URL and GHOST_URL serves it.
// BATCH_SIZE: items per transaction (default 500, the push API's default). MAX_REMOVE: the most the
// removal step may take of each category (a count, or a share such as 25%; default 10%): over it,
// nothing is removed and the import exits 1. A batch that fails with an error the push API calls
// `retryable` (a lost connection, a write racing another) is tried again from the first item not
// written (the error's `written`), three times, waiting 1, 4 and 10 s; one that ran past the
// database's statement time limit (`timeout`) is tried again in batches half the size.
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
const batchSize = Number(process.env.BATCH_SIZE ?? 500)
const maxRemove = /^\d+$/.test(process.env.MAX_REMOVE ?? '') ? Number(process.env.MAX_REMOVE) : process.env.MAX_REMOVE
const RETRY_DELAYS_MS = [1000, 4000, 10000]

/** Writes `items` with the bulk call `write`; after a retryable failure, again from the first item not written. */
async function bulk(write, items, onWritten = () => {}) {
  let done = 0
  let size = batchSize
  for (let attempt = 0; ; attempt++) {
    const start = done
    try {
      await write(items.slice(start), { batchSize: size, onProgress: ({ written }) => onWritten(start + written) })
      return
    } catch (error) {
      const shrink = error.code === 'timeout' && size > 1
      if (!(error.retryable || shrink) || attempt >= RETRY_DELAYS_MS.length) throw error
      done = start + (error.written ?? 0)
      if (shrink) size = Math.ceil(size / 2)
      process.stderr.write(`\n${error.message}; trying again from item ${done} in batches of ${size}\n`)
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]))
    }
  }
}

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
  await bulk(content.putMany, site.tags)
  await bulk(content.putMany, site.authors)
  await bulk(content.putMany, site.posts, (written) => process.stderr.write(`\rposts and pages: ${written}/${site.posts.length}`))
  process.stderr.write('\n')
  await bulk(content.setEdgesMany, site.edges)
  // What an earlier import pushed and this export no longer shows as public goes.
  let removed = 0
  for (const [categories, list] of [[['post', 'page'], site.posts], [['tag'], site.tags], [['author'], site.authors]]) {
    const report = await content.reconcile(list.map((r) => ({ id: r.id, modified: r.modified })), { categories, maxRemove })
    removed += report.removed.length
  }
  console.log(`imported ${site.posts.length} posts and pages (${site.hidden} not public, left out), ${site.tags.length} tags, ${site.authors.length} authors; removed ${removed}`)
} catch (error) {
  console.error(error.message)
  process.exitCode = 1
} finally {
  await agent.close()
}
