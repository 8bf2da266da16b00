// From the Ghost-shaped tables to the plugin's push API (`agent.content`): the vocabulary, one post
// or tag at a time on the save paths, and the whole site at start-up (reconcile, then re-push).
import { allTagIds, publishedPostIds, readPost, readTag } from './ghost-store.mjs'

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

/** The site's vocabulary: the categories `post` and `tag`, and the predicate `tagged` between them. */
export async function putVocabulary(content) {
  await content.putCategory({ name: 'post', title: 'Posts', summary: 'Everything the site publishes.' })
  await content.putCategory({ name: 'tag', title: 'Tags' })
  await content.putPredicate({ name: 'tagged', title: 'Tagged', subjects: ['post'], objects: ['tag'] })
}

/** Pushes one tag (internal `#` tags stay private). */
export async function pushTag(content, tag) {
  return content.put({
    id: tag.id, // Ghost's 24-hex id: the push API maps it to a numeric id
    name: nameOf('tag', tag.slug),
    category: 'tag',
    title: tag.name,
    summary: tag.description ?? undefined,
    visibility: tag.visibility === 'public' ? 'public' : 'internal',
    created: tag.created_at,
    modified: tag.updated_at,
  })
}

/**
 * Pushes one post as it is in the CMS now: published or scheduled posts are written (with their tags
 * and `tagged` edges), anything else is removed from the plugin's tables. Returns the numeric id the
 * facade serves it under, or null when it is not served.
 */
export async function pushPost(content, mariadb, id) {
  const post = await readPost(mariadb, id)
  if (!post || !['published', 'scheduled'].includes(post.status)) {
    await content.remove(id)
    return null
  }
  for (const tag of post.tags) await pushTag(content, tag)
  const { id: rscId } = await content.put({
    id: post.id,
    name: nameOf('post', post.slug),
    category: 'post',
    title: post.title,
    summary: post.custom_excerpt ?? undefined,
    body: post.html ?? '',
    visibility: post.visibility, // 'public', or members/paid/tiers: private to the plugin
    publication_start: post.published_at ?? post.updated_at, // a scheduled post becomes visible then
    created: post.created_at,
    modified: post.updated_at, // what reconcile compares
  })
  await content.setEdges({ subject: post.id, predicate: 'tagged', objects: post.tags.map((t) => t.id) })
  return rscId
}

/**
 * Brings the plugin's tables in line with the CMS (at start-up, or after a failed push): removes what
 * the CMS no longer publishes, then pushes what is missing or out of date. Returns the counts.
 */
export async function syncAll(content, mariadb) {
  const tags = await allTagIds(mariadb)
  const tagReport = await content.reconcile(tags.map((t) => ({ id: t.id, modified: t.updated_at })), { categories: ['tag'] })
  for (const id of [...tagReport.stale, ...tagReport.missing]) await pushTag(content, await readTag(mariadb, id))
  const posts = async function* () {
    for await (const row of publishedPostIds(mariadb)) yield { id: row.id, modified: row.updated_at }
  }
  const postReport = await content.reconcile(posts(), { categories: ['post'] })
  for (const id of [...postReport.stale, ...postReport.missing]) await pushPost(content, mariadb, id)
  return {
    removed: postReport.removed.length + tagReport.removed.length,
    pushed: postReport.stale.length + postReport.missing.length + tagReport.stale.length + tagReport.missing.length,
  }
}
