// From the Ghost-shaped tables to the plugin's push API (`agent.content`): the vocabulary, one post
// or tag at a time on the save paths, and the whole site at start-up (reconcile, then re-push).
import { allTagIds, publishedPostIds, readPost, readTag } from './ghost-store.mjs'
import { excerptOf, ghostDate, isPublicPost, isPublicTag } from './ghost-content.mjs'

// Resource names carry the slug, so the `pageUrl` option can build Ghost's URLs: a post's slug
// `harbour-lights` is the name `post_harbour_lights` (/harbour-lights/), a tag's `news` is `tag_news`
// (/tag/news/). Ghost's slugs have no underscores, so the mapping goes both ways.
const NAME = /^[a-z][a-z0-9_]{0,99}$/
const nameOf = (prefix, slug) => {
  const name = `${prefix}_${slug.replaceAll('-', '_')}`
  return NAME.test(name) ? name : null
}

/** The `pageUrl` option: Ghost's page of each resource, from its name. */
export function ghostPageUrl({ id, name, category }) {
  if (category === 'post' && name?.startsWith('post_')) return `/${name.slice(5).replaceAll('_', '-')}/`
  if (category === 'tag' && name?.startsWith('tag_')) return `/tag/${name.slice(4).replaceAll('_', '-')}/`
  return `/id/${id}`
}

/**
 * The site's vocabulary: the categories `post` and `tag` (tags are vocabulary: readable and related,
 * but kept out of search and the newest lists), and the predicate `tagged` between them.
 */
export async function putVocabulary(content) {
  await content.putCategory({ name: 'post', title: 'Posts', summary: 'Everything the site publishes.' })
  await content.putCategory({ name: 'tag', title: 'Tags', vocabulary: true })
  await content.putPredicate({ name: 'tagged', title: 'Tagged', subjects: ['post'], objects: ['tag'] })
}

/** Pushes one tag; an internal (`#`) tag is never stored (removed if it was). */
export async function pushTag(content, tag) {
  if (!isPublicTag(tag)) return content.remove(tag.id)
  return content.put({
    id: tag.id, // Ghost's 24-hex id: the push API maps it to a numeric id
    name: nameOf('tag', tag.slug),
    category: 'tag',
    title: tag.name,
    summary: tag.description ?? undefined,
    created: tag.created_at,
    modified: tag.updated_at,
  })
}

/**
 * Pushes one post as it is in the CMS now: a published, public post is written (with its public tags
 * and `tagged` edges); anything else (a draft, a scheduled post, a members or paid post, a deleted
 * one) is removed from the plugin's tables, so it is never stored (ghost-content.mjs has the rule).
 * Returns the numeric id the facade serves it under, or null when it is not served.
 */
export async function pushPost(content, mariadb, id) {
  const post = await readPost(mariadb, id)
  if (!post || !isPublicPost(post)) {
    await content.remove(id)
    return null
  }
  const tags = post.tags.filter(isPublicTag)
  for (const tag of tags) await pushTag(content, tag)
  const { id: rscId } = await content.put({
    id: post.id,
    name: nameOf('post', post.slug),
    category: 'post',
    title: post.title,
    summary: excerptOf(post, ''), // custom_excerpt, else the start of the text
    body: post.html ?? '',
    publication_start: ghostDate(post.published_at) ?? post.updated_at, // published by a status change alone: from its last save
    created: post.created_at,
    modified: post.updated_at, // what reconcile compares
  })
  await content.setEdges({ subject: post.id, predicate: 'tagged', objects: tags.map((t) => t.id) })
  return rscId
}

/**
 * Brings the plugin's tables in line with the CMS (at start-up, or after a failed push): removes what
 * the CMS no longer publishes, then pushes what is missing or out of date. Returns the counts.
 * `maxRemove` is reconcile's guard (default 10 % of each category): a sync that would remove more
 * removes nothing and throws (`code: 'remove_limit'`).
 */
export async function syncAll(content, mariadb, { maxRemove } = {}) {
  const tags = (await allTagIds(mariadb)).filter(isPublicTag)
  const tagReport = await content.reconcile(tags.map((t) => ({ id: t.id, modified: t.updated_at })), { categories: ['tag'], maxRemove })
  for (const id of [...tagReport.stale, ...tagReport.missing]) await pushTag(content, await readTag(mariadb, id))
  const posts = async function* () {
    for await (const row of publishedPostIds(mariadb)) yield { id: row.id, modified: row.updated_at }
  }
  const postReport = await content.reconcile(posts(), { categories: ['post'], maxRemove })
  for (const id of [...postReport.stale, ...postReport.missing]) await pushPost(content, mariadb, id)
  return {
    removed: postReport.removed.length + tagReport.removed.length,
    pushed: postReport.stale.length + postReport.missing.length + tagReport.stale.length + tagReport.missing.length,
  }
}
