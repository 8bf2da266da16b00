// Ghost's webhooks (Ghost Admin → Settings → Integrations → a custom integration → Add webhook) kept in
// step with the plugin's tables. Ghost POSTs one event per webhook (post.published, post.unpublished,
// post.published.edited, post.deleted, post.scheduled, page.* likewise) with the body its source builds
// (ghost/core/core/server/services/webhooks/serialize.js):
//   { "post": { "current": { …the post as the Admin API serializes it: html, plaintext, tags, authors… },
//               "previous": { …the attributes that changed, as they were… } } }   ("page" for pages)
// `current` is empty for a deleted post. With a secret, Ghost signs the body:
//   X-Ghost-Signature: sha256=<HMAC-SHA256 of body + timestamp, hex>, t=<timestamp in ms>
// The receiver acts on the post's state, not on the event's name: a post that is public now is
// pushed (with its tags and authors), anything else is removed. So every post and page event may
// point at the same URL, and a members, paid, tiers, draft, scheduled or sent post is never stored.
import { createHmac, timingSafeEqual } from 'node:crypto'
import express from 'express'
import { ContentPushError, sql } from 'express-agent-discovery'
import { authorId, authorResource, ghostDate, isPublicPost, isPublicTag, postResource, tagId, tagResource } from './ghost-content.mjs'

/** A signature older than this (or from the future) is refused: Ghost delivers at once and retries within minutes. */
const MAX_AGE_MS = 15 * 60_000

/** Whether `header` (X-Ghost-Signature) signs `body` with `secret`. */
export function validSignature(header, body, secret, now = Date.now()) {
  const match = /^sha256=([0-9a-f]{64}), t=(\d{1,16})$/.exec(String(header ?? ''))
  if (!match) return false
  const [, hex, t] = match
  if (Math.abs(now - Number(t)) > MAX_AGE_MS) return false
  const expected = createHmac('sha256', secret).update(Buffer.concat([body, Buffer.from(t)])).digest()
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'))
}

/** The stored `modified` of a post by its Ghost id, if the plugin holds it. */
async function storedModified(db, id) {
  const { rows } = await sql`SELECT r.modified FROM agent_discovery_external_id m JOIN rsc r ON r.id = m.rsc_id WHERE m.external_id = ${id}`.execute(db)
  return rows[0] ? new Date(rows[0].modified) : undefined
}

/**
 * Applies one post or page as Ghost sent it: pushed with its public tags and its authors when it is
 * public now, removed otherwise. A delivery older than what is stored (Ghost retries out of order) is
 * skipped. Returns what was done.
 */
export async function applyGhostPost(content, db, post, ghostUrl) {
  if (!isPublicPost(post)) return (await content.remove(post.id)).removed ? 'removed' : 'absent'
  const stored = await storedModified(db, post.id)
  const updated = ghostDate(post.updated_at)
  if (stored && updated && updated.getTime() < stored.getTime()) return 'stale'
  const tags = (post.tags ?? []).filter(isPublicTag)
  const authors = post.authors ?? []
  await content.putMany([...tags.map((t) => tagResource(t, ghostUrl)), ...authors.map((u) => authorResource(u, ghostUrl))])
  await content.put(postResource(post, ghostUrl))
  await content.setEdgesMany([
    { subject: post.id, predicate: 'tagged', objects: tags.map((t) => tagId(t.id)) },
    { subject: post.id, predicate: 'authored_by', objects: authors.map((u) => authorId(u.id)) },
  ])
  return 'pushed'
}

/**
 * The receiver: `POST <path>` and `POST <path>/<event>` (give every post and page event one of them),
 * answering 401 without a valid signature, 400 for a body that is not Ghost's, 503 when the push
 * failed on a lost connection (Ghost retries), 200 with what was done.
 */
export function ghostWebhookRouter({ content, db, ghostUrl, secret }) {
  const router = express.Router()
  const receive = async (req, res) => {
    if (!Buffer.isBuffer(req.body) || !validSignature(req.get('x-ghost-signature'), req.body, secret)) return res.status(401).json({ error: 'invalid or missing X-Ghost-Signature' })
    let payload
    try {
      payload = JSON.parse(req.body.toString('utf8'))
    } catch {
      return res.status(400).json({ error: 'the body is not JSON' })
    }
    const kind = payload?.post ? 'post' : payload?.page ? 'page' : undefined
    const event = kind && payload[kind]
    const post = event?.current && Object.keys(event.current).length ? { type: kind, ...event.current } : undefined
    const id = post?.id ?? event?.previous?.id
    if (!kind || typeof id !== 'string' || !/^[0-9a-f]{24}$/.test(id)) return res.status(400).json({ error: 'expected { post: { current, previous } } or { page: … } with a 24-hex id' })
    try {
      const done = post ? await applyGhostPost(content, db, post, ghostUrl) : (await content.remove(id)).removed ? 'removed' : 'absent'
      res.json({ id, done })
    } catch (error) {
      const retry = error instanceof ContentPushError && error.retryable
      console.error(`webhook for ${kind} ${id} failed${retry ? ' (Ghost retries it)' : ''}: ${error.message}`)
      res.status(retry ? 503 : error instanceof ContentPushError ? 422 : 500).json({ error: error.message })
    }
  }
  const raw = express.raw({ type: () => true, limit: '10mb' })
  router.post('/', raw, receive)
  router.post('/:event', raw, receive)
  return router
}
