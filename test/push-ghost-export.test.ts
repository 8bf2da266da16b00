import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backends, type TestDatabase } from './support/backends.js';
import { connectMcp } from './support/mcp-client.js';
import { REPO_ROOT } from './support/repo.js';

/**
 * The Ghost recipe beside a real Ghost, run verbatim: `import-export.mjs` imports Ghost's own content
 * export (test/fixtures/ghost-export/export.json, built from Ghost's exporter and schema), then
 * `host.mjs` with GHOST_URL serves it and follows Ghost's webhooks. Every public post is reachable and
 * cites Ghost's page; nothing of a hidden post, an internal tag or a staff row is anywhere an
 * anonymous agent can reach (every route crawled, MCP included); `__GHOST_URL__` is nowhere; an
 * unpublish delivered by webhook hides the post on the next read. One pass: PostgreSQL when
 * DATABASE_URL is set, else PGlite (a data directory).
 */

const GHOST = `${REPO_ROOT}examples/cms/ghost/`;
const EXPORT = `${REPO_ROOT}test/fixtures/ghost-export/export.json`;
const GHOST_URL = 'https://blog.example';
const SECRET = 'webhook-secret-for-tests';
const MARKER = /hidden-marker/i;

interface GhostPost {
  id: string;
  title: string;
  slug: string;
  type: string;
  status: string;
  visibility: string;
  html: string;
  plaintext: string;
  updated_at: string;
  published_at: string | null;
  [key: string]: unknown;
}
const data = JSON.parse(readFileSync(EXPORT, 'utf8')).db[0].data as {
  posts: GhostPost[];
  posts_meta: { post_id: string; email_only: boolean }[];
  tags: { id: string; name: string; slug: string; visibility: string }[];
  users: { id: string; name: string; slug: string; email: string }[];
  posts_tags: { post_id: string; tag_id: string }[];
};
const emailOnly = new Set(data.posts_meta.filter((m) => m.email_only).map((m) => m.post_id));
const publicPosts = data.posts.filter((p) => p.status === 'published' && p.visibility === 'public' && !emailOnly.has(p.id));

/** A webhook body as Ghost's serializer builds it: the post as the Admin API outputs it (absolute URLs, tags and authors). */
function webhookBody(post: Partial<GhostPost> & { id: string }, kind: 'post' | 'page' = 'post', previous: Record<string, unknown> = {}) {
  const tagIds = new Set(data.posts_tags.filter((pt) => pt.post_id === post.id).map((pt) => pt.tag_id));
  const tags = data.tags.filter((t) => tagIds.has(t.id)).map((t) => ({ ...t, url: `${GHOST_URL}/tag/${t.slug}/` }));
  const authors = [{ ...data.users[0]!, url: `${GHOST_URL}/author/${data.users[0]!.slug}/` }];
  const current = Object.keys(post).length > 1 ? { tags, authors, primary_tag: tags[0] ?? null, primary_author: authors[0], url: `${GHOST_URL}/${post.slug}/`, ...post } : {};
  return JSON.stringify({ [kind]: { current, previous } });
}

const signature = (body: string, secret = SECRET, t = Date.now()) => `sha256=${createHmac('sha256', secret).update(`${body}${t}`).digest('hex')}, t=${t}`;

const backend = backends.at(-1)!;

describe(`examples/cms/ghost: Ghost's export and webhooks, no MariaDB [${backend.name}]`, () => {
  let dir: string;
  let database: TestDatabase | undefined;
  let env: Record<string, string>;
  let host: ChildProcess;
  let base: string;
  let output = '';

  const importExport = (file = EXPORT) => spawnSync(process.execPath, ['--import', 'tsx', `${GHOST}import-export.mjs`, file], { cwd: REPO_ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
  // A GET that failed on the network is tried once more on a new connection (a kept-alive socket the host
  // closed while an import ran is a known race of fetch); a second failure says what the host printed.
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(new URL(path, base), { headers, redirect: 'manual' })
      .catch(() => fetch(new URL(path, base), { headers, redirect: 'manual' }))
      .catch((error: Error) => {
        throw new Error(`${path}: ${error.message} (${String((error as { cause?: unknown }).cause)}); host.mjs printed:\n${output}`);
      });
  const searchAll = async (query = 'sort=newest') => {
    const items: { id: number; title: string; page_url: string; category: { name: string } }[] = [];
    for (let url: string | undefined = `/api/agent/search?${query}&pagelen=10`; url; ) {
      const body = (await (await get(url)).json()) as { result: { items: typeof items; next: boolean; next_url?: string } };
      items.push(...body.result.items);
      url = body.result.next ? body.result.next_url : undefined;
    }
    return items;
  };
  /** host.mjs with GHOST_URL, as the recipe says to run it; resolves once it listens. */
  async function startHost(): Promise<void> {
    output = '';
    host = spawn(process.execPath, ['--import', 'tsx', `${GHOST}host.mjs`], { cwd: REPO_ROOT, env: { ...process.env, ...env, PORT: '0', GHOST_WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
    host.stdout!.on('data', (chunk: Buffer) => (output += chunk));
    host.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`host.mjs did not start:\n${output}`)), 90_000);
      host.stdout!.on('data', () => {
        const match = /listening on (http:\/\/localhost:\d+)\//.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!.replace('localhost', '127.0.0.1'));
        }
      });
      host.once('exit', (code) => reject(new Error(`host.mjs exited with ${code}:\n${output}`)));
    });
  }
  async function stopHost(): Promise<void> {
    if (!host || host.exitCode !== null) return;
    const exited = once(host, 'exit');
    host.kill('SIGTERM');
    const timer = setTimeout(() => host.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  const webhook = (body: string, sig = signature(body), event = 'post.published') =>
    fetch(new URL(`/ghost/webhooks/${event}`, base), { method: 'POST', headers: { 'content-type': 'application/json', 'x-ghost-signature': sig }, body });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ead-ghost-export-'));
    if (backend.name === 'postgres') {
      database = await backend.open();
      env = { DATABASE_URL: database.url!, GHOST_URL };
    } else {
      env = { DATA_DIR: join(dir, 'pgdata'), GHOST_URL, DATABASE_URL: '' };
    }
    const imported = importExport();
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(imported.stdout, /^imported 24 posts and pages \(9 not public, left out\), 3 tags, 2 authors; removed 0$/m);
    await startHost();
  });
  after(async () => {
    await stopHost();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every public post and page is reachable by the search walk and cites <GHOST_URL>/<slug>/; tags and authors stay out of it', async () => {
    const items = await searchAll();
    assert.deepEqual(items.map((i) => i.title).sort(), publicPosts.map((p) => p.title).sort());
    const slugs = new Map(publicPosts.map((p) => [p.title, p.slug]));
    for (const item of items) assert.equal(item.page_url, `${GHOST_URL}/${slugs.get(item.title)}/`);
    assert.deepEqual([...new Set(items.map((i) => i.category.name))].sort(), ['page', 'post']);
    const llms = await (await get('/llms.txt')).text();
    const newest = llms.slice(llms.indexOf('## Newest'));
    assert.doesNotMatch(newest, /\[(News|Ferries|History|Mara Quayside|Tom Pilot)\]/, 'no tag or author among the newest');
  });

  it('tags (public ones) and authors (name and bio) are related to their posts; a tag reads as Ghost\'s tag page', async () => {
    const [item] = (await searchAll('text=midnight')).filter((i) => i.title === 'Night ferry');
    const related = (await (await get(`/api/agent/related/${item!.id}`)).json()) as { result: { items: { resource: { id: number; title: string; page_url: string } }[] } };
    const titles = related.result.items.map((i) => i.resource.title).sort();
    assert.deepEqual(titles, ['Ferries', 'Tom Pilot']);
    const ferries = related.result.items.find((i) => i.resource.title === 'Ferries')!.resource;
    assert.equal(ferries.page_url, `${GHOST_URL}/tag/ferries/`);
    const author = (await (await get(`/api/agent/resource/${related.result.items.find((i) => i.resource.title === 'Tom Pilot')!.resource.id}`)).json()) as { result: Record<string, unknown> };
    assert.equal(author.result.page_url, `${GHOST_URL}/author/tom/`);
    assert.doesNotMatch(JSON.stringify(author), /@blog\.example|\$2a\$/, 'no email, no password hash');
  });

  it('nothing hidden and no __GHOST_URL__ anywhere an anonymous agent can reach (every route crawled, MCP included)', async () => {
    const seen = new Set<string>();
    const queue = ['/', '/llms.txt', '/llms-full.txt', '/llms/post.txt', '/llms/page.txt', '/openapi.json', '/.well-known/api-catalog', '/api-help', '/.well-known/ard.json', '/api/agent/search?sort=newest', '/api/agent/schema', '/api/agent/schema?kind=predicate'];
    for (const { id } of await searchAll()) queue.push(`/api/agent/resource/${id}`, `/agent/resource/${id}/markdown`, `/api/agent/related/${id}`, `/id/${id}`);
    // Ids of the hidden rows, should a link lead there: every id up to the highest stored.
    for (let id = 1; id <= 60; id++) queue.push(`/api/agent/resource/${id}`, `/agent/resource/${id}/markdown`);
    let requests = 0;
    while (queue.length && requests < 1500) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      requests += 1;
      for (const accept of path.startsWith('/id/') ? ['application/json', 'text/markdown'] : ['*/*']) {
        const res = await get(path, { accept });
        const text = `${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${await res.text()}`;
        assert.doesNotMatch(text, MARKER, `${path} shows something hidden`);
        assert.ok(!text.includes('__GHOST_URL__'), `${path} holds __GHOST_URL__`);
        for (const [, url] of text.matchAll(/(http:\/\/127\.0\.0\.1:\d+\/[^\s"'<>)\]\\]*)/g)) {
          const next = url!.slice(base.length).replace(/&amp;/g, '&');
          if (!seen.has(next) && !next.startsWith('/mcp')) queue.push(next);
        }
      }
    }
    assert.ok(requests > 150, `crawled ${requests} URLs`);
    const mcp = await connectMcp(`${base}/mcp`);
    try {
      const texts: string[] = [JSON.stringify(await mcp.listTools())];
      for (const tool of (await mcp.listTools()).tools) {
        const args = tool.name === 'search' ? { text: 'harbour' } : {};
        texts.push(JSON.stringify(await mcp.callTool({ name: tool.name, arguments: args }).catch((e: Error) => e.message)));
      }
      const resources = await mcp.listResources();
      texts.push(JSON.stringify(resources));
      for (const r of resources.resources) texts.push(JSON.stringify(await mcp.readResource({ uri: r.uri })));
      for (const text of texts) {
        assert.doesNotMatch(text, MARKER);
        assert.ok(!text.includes('__GHOST_URL__'));
      }
      assert.ok(resources.resources.length > 0);
    } finally {
      await mcp.close();
    }
  });

  it('webhooks: unsigned or badly signed bodies are refused; an unpublish hides the post on the next read', async () => {
    const post = publicPosts.find((p) => p.title === 'Night ferry')!;
    const [item] = (await searchAll('text=midnight')).filter((i) => i.title === post.title);
    await get(`/api/agent/resource/${item!.id}`).then((r) => assert.equal(r.status, 200));
    const unpublished = webhookBody({ ...post, html: post.html.replaceAll('__GHOST_URL__', GHOST_URL), status: 'draft', updated_at: '2025-06-01T10:00:00.000Z' }, 'post', { status: 'published' });
    assert.equal((await webhook(unpublished, 'sha256=00, t=1')).status, 401);
    assert.equal((await webhook(unpublished, signature(unpublished, 'wrong'))).status, 401);
    assert.equal((await webhook(unpublished, signature(unpublished, SECRET, Date.now() - 3_600_000))).status, 401, 'a replayed old delivery');
    const res = await webhook(unpublished, undefined, 'post.unpublished');
    assert.equal(res.status, 200, output);
    assert.deepEqual(await res.json(), { id: post.id, done: 'removed' });
    assert.equal((await get(`/api/agent/resource/${item!.id}`)).status, 404);
    assert.equal((await searchAll('text=midnight')).length, 0);
    // Published again (a later edit): back, with its URL placeholder resolved.
    const republished = webhookBody({ ...post, html: `<p>Midnight again: <a href="__GHOST_URL__/tide-tables/">tides</a></p>`, updated_at: '2025-06-02T10:00:00.000Z' });
    assert.deepEqual(await (await webhook(republished)).json(), { id: post.id, done: 'pushed' });
    const [back] = await searchAll('text=midnight');
    const read = (await (await get(`/api/agent/resource/${back!.id}`)).json()) as { result: { content: string; page_url: string } };
    assert.equal(read.result.page_url, `${GHOST_URL}/night-ferry/`);
    assert.match(read.result.content, /https:\/\/blog\.example\/tide-tables\//);
    // An older delivery arriving late changes nothing.
    assert.deepEqual(await (await webhook(webhookBody({ ...post, title: 'Stale title', updated_at: '2025-01-01T00:00:00.000Z' }))).json(), { id: post.id, done: 'stale' });
  });

  it('webhooks: a members, paid or scheduled post is never stored; a deletion removes', async () => {
    const members = data.posts.find((p) => p.visibility === 'members' && p.type === 'post')!;
    const asPublished = webhookBody({ ...members, status: 'published', updated_at: '2025-07-01T00:00:00.000Z' });
    assert.deepEqual(await (await webhook(asPublished)).json(), { id: members.id, done: 'absent' });
    const scheduled = data.posts.find((p) => p.status === 'scheduled')!;
    assert.deepEqual(await (await webhook(webhookBody(scheduled), undefined, 'post.scheduled')).json(), { id: scheduled.id, done: 'absent' });
    const page = publicPosts.find((p) => p.type === 'page')!;
    const deleted = webhookBody({ id: page.id }, 'page', { id: page.id, title: page.title });
    assert.deepEqual(await (await webhook(deleted, undefined, 'page.deleted')).json(), { id: page.id, done: 'removed' });
    assert.ok(!(await searchAll()).some((i) => i.title === page.title));
    const everything = JSON.stringify(await searchAll());
    assert.doesNotMatch(everything, MARKER);
    assert.equal((await webhook('{"post":{"current":{"id":"../etc"}}}')).status, 400);
  });

  it('importing a newer export converges: what it no longer shows as public is removed', async () => {
    const newer = JSON.parse(readFileSync(EXPORT, 'utf8'));
    const rows = newer.db[0].data.posts as GhostPost[];
    const gone = rows.find((p) => p.title === 'Harbour log 3')!;
    gone.status = 'draft';
    gone.title = 'Harbour log 3 HIDDEN-MARKER draft again';
    const file = join(dir, 'newer.json');
    writeFileSync(file, JSON.stringify(newer));
    // A PGlite directory is open in one process at a time: the host stops while the import runs.
    if (backend.name === 'pglite') await stopHost();
    const run = importExport(file);
    if (backend.name === 'pglite') await startHost();
    assert.equal(run.status, 0, run.stderr);
    // The page and the post the webhooks removed come back from the export; the draft goes.
    assert.match(run.stdout, /imported 23 posts and pages \(10 not public, left out\), 3 tags, 2 authors; removed 1$/m);
    const titles = (await searchAll()).map((i) => i.title);
    assert.equal(titles.length, 23);
    assert.ok(!titles.some((t) => MARKER.test(t) || t === 'Harbour log 3'));
  });
});
