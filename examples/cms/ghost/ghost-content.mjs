// What of a Ghost site agents may read, and how it maps to the push API: one rule for the export
// importer, the webhook receiver and the MariaDB-shaped CMS of host.mjs.
//
// The rule is stricter than Ghost's own site: only posts and pages that are published AND public are
// pushed. Members, paid and tiers posts (and any member filter) are hidden entirely, not stored
// with a private flag; drafts, scheduled posts and sent newsletters (email only) are not pushed until
// they are public (Ghost sends post.published then). Internal tags (`#…`) are never pushed.

/** The site's vocabulary: posts and pages, tags and authors (vocabulary: kept out of search and the newest lists). */
export async function putGhostVocabulary(content) {
  await content.putCategory({ name: 'post', title: 'Posts', summary: 'Everything the site publishes.' })
  await content.putCategory({ name: 'page', title: 'Pages' })
  await content.putCategory({ name: 'tag', title: 'Tags', vocabulary: true })
  await content.putCategory({ name: 'author', title: 'Authors', vocabulary: true })
  await content.putPredicate({ name: 'tagged', title: 'Tagged', subjects: ['post', 'page'], objects: ['tag'] })
  await content.putPredicate({ name: 'authored_by', title: 'Written by', subjects: ['post', 'page'], objects: ['author'] })
}

/** A Ghost datetime (MySQL's ISO string, SQLite's `2025-01-02 03:04:05` in UTC, a Date) as a Date; undefined when absent. */
export function ghostDate(value) {
  if (value === null || value === undefined || value === '') return undefined
  if (value instanceof Date) return value
  const text = String(value)
  const date = new Date(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(text) ? `${text.replace(' ', 'T')}Z` : text)
  return Number.isNaN(date.getTime()) ? undefined : date
}

/** Ghost booleans: true/false from MySQL, 1/0 from SQLite. */
const truthy = (value) => value === true || value === 1 || value === '1' || value === 'true'

/**
 * Whether a post or page (an export row, or a webhook's `current`) is public on the site: Ghost's
 * `published` status, `public` visibility, and not an email-only newsletter. (A `published_at` still
 * ahead is pushed as `publication_start`: the plugin serves it from then on.)
 */
export function isPublicPost(post, emailOnly = false) {
  if (!post || post.status !== 'published' || post.visibility !== 'public' || truthy(emailOnly) || truthy(post.email_only)) return false
  return post.type === undefined || post.type === 'post' || post.type === 'page'
}

/** A public tag: Ghost's `public` visibility (internal tags are `#`-named and `internal`). */
export const isPublicTag = (tag) => Boolean(tag) && tag.visibility === 'public' && !String(tag.name ?? '').startsWith('#')

/** Replaces Ghost's `__GHOST_URL__` placeholder (stored in content since Ghost 4) with the site's URL. */
export function resolveGhostUrl(text, ghostUrl) {
  return typeof text === 'string' ? text.replaceAll('__GHOST_URL__', ghostUrl) : text
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' }

/** The text of HTML, for an excerpt when Ghost gave no plaintext. */
const htmlText = (html) => String(html ?? '').replace(/<[^>]*>/g, ' ').replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e) => ENTITIES[e])

/**
 * The excerpt agents see: `custom_excerpt` when the author wrote one, else the start of the text
 * (Ghost's own excerpt is the plaintext's first 500 characters), cut at a word.
 */
export function excerptOf(post, ghostUrl) {
  if (post.custom_excerpt) return resolveGhostUrl(post.custom_excerpt, ghostUrl)
  const text = resolveGhostUrl(post.plaintext ?? htmlText(post.html), ghostUrl).replace(/\s+/g, ' ').trim()
  if (text.length <= 500) return text || undefined
  const cut = text.slice(0, 500)
  return `${cut.slice(0, cut.lastIndexOf(' ') > 400 ? cut.lastIndexOf(' ') : 500)}…`
}

/** Tags and authors get string ids of their own kind, so that no Ghost id of another table can meet them. */
export const tagId = (id) => `tag:${id}`
export const authorId = (id) => `author:${id}`

/** A post or page as the push API's resource, citing Ghost's page of it (`<GHOST_URL>/<slug>/`). */
export function postResource(post, ghostUrl) {
  const feature = resolveGhostUrl(post.feature_image, ghostUrl)
  return {
    id: post.id,
    category: post.type === 'page' ? 'page' : 'post',
    title: post.title,
    summary: excerptOf(post, ghostUrl),
    body: resolveGhostUrl(post.html ?? '', ghostUrl),
    publication_start: ghostDate(post.published_at),
    created: ghostDate(post.created_at),
    modified: ghostDate(post.updated_at) ?? ghostDate(post.created_at),
    page_url: `${ghostUrl}/${post.slug}/`,
    props: feature ? { feature_image: feature, featured: truthy(post.featured) } : { featured: truthy(post.featured) },
  }
}

/** A public tag as a resource (`<GHOST_URL>/tag/<slug>/`). */
export function tagResource(tag, ghostUrl) {
  return {
    id: tagId(tag.id),
    category: 'tag',
    title: tag.name,
    summary: resolveGhostUrl(tag.description ?? undefined, ghostUrl) || undefined,
    created: ghostDate(tag.created_at),
    modified: ghostDate(tag.updated_at) ?? ghostDate(tag.created_at),
    page_url: `${ghostUrl}/tag/${tag.slug}/`,
  }
}

/** An author as a resource (`<GHOST_URL>/author/<slug>/`): name and bio only, never the email or anything else of the staff row. */
export function authorResource(user, ghostUrl) {
  return {
    id: authorId(user.id),
    category: 'author',
    title: user.name,
    summary: user.bio || undefined,
    created: ghostDate(user.created_at),
    modified: ghostDate(user.updated_at) ?? ghostDate(user.created_at),
    page_url: `${ghostUrl}/author/${user.slug}/`,
  }
}

/** The site's public URL from GHOST_URL (`https://blog.example`, no trailing slash); throws naming the variable when it is not one. */
export function ghostUrlFrom(value) {
  let url
  try {
    url = new URL(value ?? '')
  } catch {
    throw new Error(`GHOST_URL must be the blog's public URL, such as https://blog.example (got ${JSON.stringify(value ?? '')})`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('GHOST_URL must be an http(s) URL')
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

/** The plugin's database from the environment: DATABASE_URL (PostgreSQL), else DATA_DIR (an embedded PGlite directory). */
export function pluginDatabase(env) {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL }
  if (env.DATA_DIR) return { dataDir: env.DATA_DIR }
  throw new Error('set DATABASE_URL (PostgreSQL) or DATA_DIR (a PGlite data directory) for the plugin\'s tables')
}
