// The Ghost-shaped CMS's own store on MariaDB/MySQL: Ghost's table and column names (a subset),
// 24-hex object ids, and the reads and writes the host's admin routes make. Nothing here knows the plugin.
import { randomBytes } from 'node:crypto'

/** Ghost's tables, as far as the recipe uses them. */
export async function createGhostTables(mariadb) {
  await mariadb.query(`CREATE TABLE IF NOT EXISTS posts (
    id varchar(24) PRIMARY KEY,
    title varchar(2000) NOT NULL,
    slug varchar(191) NOT NULL UNIQUE,
    html longtext,
    custom_excerpt varchar(2000),
    status varchar(50) NOT NULL DEFAULT 'draft',
    visibility varchar(50) NOT NULL DEFAULT 'public',
    published_at datetime,
    created_at datetime NOT NULL,
    updated_at datetime NOT NULL
  ) CHARACTER SET utf8mb4`)
  await mariadb.query(`CREATE TABLE IF NOT EXISTS tags (
    id varchar(24) PRIMARY KEY,
    name varchar(191) NOT NULL,
    slug varchar(191) NOT NULL UNIQUE,
    description text,
    visibility varchar(50) NOT NULL DEFAULT 'public',
    created_at datetime NOT NULL,
    updated_at datetime NOT NULL
  ) CHARACTER SET utf8mb4`)
  await mariadb.query(`CREATE TABLE IF NOT EXISTS posts_tags (
    id varchar(24) PRIMARY KEY,
    post_id varchar(24) NOT NULL,
    tag_id varchar(24) NOT NULL,
    sort_order int NOT NULL DEFAULT 0,
    UNIQUE KEY posts_tags_post_tag (post_id, tag_id)
  ) CHARACTER SET utf8mb4`)
}

/** A new object id the way Ghost makes them (MongoDB's ObjectId: a 4-byte time, then 8 random bytes). */
export function objectId() {
  const time = Math.floor(Date.now() / 1000).toString(16).padStart(8, '0')
  return time + randomBytes(8).toString('hex')
}

/** Ghost's DATETIME columns have second precision: a timestamp as they store it. */
const now = () => new Date(Math.floor(Date.now() / 1000) * 1000)

/** Ghost slugs: lowercase letters, digits and hyphens. */
export const slugify = (text) =>
  String(text).toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 90) || 'untitled'

/**
 * Saves a post and its tags in one MariaDB transaction (tags by name, created when new) and returns
 * the post's id. `post.id` given: updates that post; `published_at` is set on first publication.
 */
export async function savePost(mariadb, post) {
  const conn = await mariadb.getConnection()
  try {
    await conn.beginTransaction()
    const id = post.id ?? objectId()
    const at = now()
    const [rows] = await conn.query('SELECT published_at FROM posts WHERE id = ? FOR UPDATE', [id])
    if (post.id && rows.length === 0) throw Object.assign(new Error('no such post'), { status: 404 })
    const publishedAt = rows[0]?.published_at ?? (post.status === 'published' ? at : null)
    await conn.query(
      `INSERT INTO posts (id, title, slug, html, custom_excerpt, status, visibility, published_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE title = VALUES(title), slug = VALUES(slug), html = VALUES(html), custom_excerpt = VALUES(custom_excerpt),
         status = VALUES(status), visibility = VALUES(visibility), published_at = VALUES(published_at), updated_at = VALUES(updated_at)`,
      [id, post.title, post.slug, post.html, post.excerpt ?? null, post.status, post.visibility, publishedAt, at, at],
    )
    await conn.query('DELETE FROM posts_tags WHERE post_id = ?', [id])
    for (const [order, name] of (post.tags ?? []).entries()) {
      const slug = slugify(name)
      await conn.query('INSERT IGNORE INTO tags (id, name, slug, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [
        objectId(), name, slug, name.startsWith('#') ? 'internal' : 'public', at, at,
      ])
      const [[tag]] = await conn.query('SELECT id FROM tags WHERE slug = ?', [slug])
      await conn.query('INSERT INTO posts_tags (id, post_id, tag_id, sort_order) VALUES (?, ?, ?, ?)', [objectId(), id, tag.id, order])
    }
    await conn.commit()
    return id
  } catch (error) {
    await conn.rollback()
    throw error
  } finally {
    conn.release()
  }
}

/** Sets a post's status (`draft` to unpublish); false when there is no such post. */
export async function setPostStatus(mariadb, id, status) {
  const [result] = await mariadb.query('UPDATE posts SET status = ?, updated_at = ? WHERE id = ?', [status, now(), id])
  return result.affectedRows > 0
}

/** Deletes a post and its tag links; false when there is no such post. */
export async function deletePost(mariadb, id) {
  await mariadb.query('DELETE FROM posts_tags WHERE post_id = ?', [id])
  const [result] = await mariadb.query('DELETE FROM posts WHERE id = ?', [id])
  return result.affectedRows > 0
}

/** A post with its tags (in order), or undefined. */
export async function readPost(mariadb, id) {
  const [[post]] = await mariadb.query('SELECT * FROM posts WHERE id = ?', [id])
  if (!post) return undefined
  const [tags] = await mariadb.query(
    'SELECT t.* FROM posts_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = ? ORDER BY pt.sort_order',
    [id],
  )
  return { ...post, tags }
}

/** A published post by slug, for the human page. */
export async function publishedPostBySlug(mariadb, slug) {
  const [[post]] = await mariadb.query("SELECT * FROM posts WHERE slug = ? AND status = 'published'", [slug])
  return post
}

/**
 * Every post the site shows to anyone (published and public), as the sync needs them: id and
 * updated_at, streamed row by row (a large site's list is never held in memory at once).
 */
export async function* publishedPostIds(mariadb) {
  const rows = mariadb.pool.query("SELECT id, updated_at FROM posts WHERE status = 'published' AND visibility = 'public' ORDER BY id").stream()
  for await (const row of rows) yield row
}

/** Every tag: id, name, visibility and updated_at. */
export async function allTagIds(mariadb) {
  const [rows] = await mariadb.query('SELECT id, name, visibility, updated_at FROM tags ORDER BY id')
  return rows
}

/** A tag by id. */
export async function readTag(mariadb, id) {
  const [[tag]] = await mariadb.query('SELECT * FROM tags WHERE id = ?', [id])
  return tag
}
