// Ghost's own JSON export (Ghost Admin → Settings → Advanced → Import/Export → "Export content") to
// the push API: what of it is public, as resources and edges. Ghost writes the file from its tables
// (posts, posts_meta, posts_tags, posts_authors, tags, users, settings, …), wrapped as { db: [{ meta, data }] }.
import { authorId, authorResource, isPublicPost, isPublicTag, postResource, tagId, tagResource } from './ghost-content.mjs'

/** The tables of an export file (`{ db: [{ meta, data }] }` as downloaded, or `{ meta, data }`). */
export function exportTables(file) {
  const data = file?.db?.[0]?.data ?? file?.data
  if (!data || !Array.isArray(data.posts)) throw new Error('not a Ghost content export: expected { db: [{ meta, data: { posts, … } }] }')
  return data
}

/** Rows of a join table grouped by `key`, in `sort_order`. */
function groupBy(rows = [], key) {
  const groups = new Map()
  for (const row of [...rows].sort((a, b) => (a.sort_order ?? 0) - (b.sort_order ?? 0))) {
    if (!groups.has(row[key])) groups.set(row[key], [])
    groups.get(row[key]).push(row)
  }
  return groups
}

/**
 * What an export holds for agents: the public posts and pages, the public tags and the authors they
 * use (nothing of any other row), and the edges between them, in the push API's shapes; `hidden`
 * counts the posts and pages left out.
 */
export function publicContent(data, ghostUrl) {
  const emailOnly = new Map((data.posts_meta ?? []).map((m) => [m.post_id, m.email_only]))
  const posts = data.posts.filter((p) => isPublicPost(p, emailOnly.get(p.id)))
  const tagsOf = groupBy(data.posts_tags, 'post_id')
  const authorsOf = groupBy(data.posts_authors, 'post_id')
  const tagsById = new Map((data.tags ?? []).filter(isPublicTag).map((t) => [t.id, t]))
  const usersById = new Map((data.users ?? []).map((u) => [u.id, u]))
  const usedTags = new Map()
  const usedAuthors = new Map()
  const edges = []
  for (const post of posts) {
    const tags = (tagsOf.get(post.id) ?? []).map((pt) => tagsById.get(pt.tag_id)).filter(Boolean)
    const authors = (authorsOf.get(post.id) ?? []).map((pa) => usersById.get(pa.author_id)).filter(Boolean)
    for (const t of tags) usedTags.set(t.id, t)
    for (const u of authors) usedAuthors.set(u.id, u)
    edges.push({ subject: post.id, predicate: 'tagged', objects: tags.map((t) => tagId(t.id)) })
    edges.push({ subject: post.id, predicate: 'authored_by', objects: authors.map((u) => authorId(u.id)) })
  }
  return {
    posts: posts.map((p) => postResource(p, ghostUrl)),
    tags: [...usedTags.values()].map((t) => tagResource(t, ghostUrl)),
    authors: [...usedAuthors.values()].map((u) => authorResource(u, ghostUrl)),
    edges,
    hidden: data.posts.length - posts.length,
  }
}

/** A setting of the export (`title`, `description`, `locale`), if it has it. */
export const exportSetting = (data, key) => (data.settings ?? []).find((s) => s.key === key)?.value ?? undefined
