import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { REPO_ROOT } from './support/repo.js';
import mysql from 'mysql2/promise';
import { surfaceBackends, type TestDatabase } from './support/backends.js';

/**
 * The Ghost recipe (examples/cms/ghost/host.mjs), run as it is: a Ghost-shaped blog on MariaDB that
 * pushes its posts into the plugin's tables, on PGlite and on PostgreSQL.
 */

const HOST = `${REPO_ROOT}examples/cms/ghost/host.mjs`;
const REPO = REPO_ROOT;
const MYSQL = { host: process.env.MYSQL_HOST ?? '127.0.0.1', port: Number(process.env.MYSQL_PORT ?? 3306), user: 'root', password: '' };
const TOKEN = randomBytes(16).toString('hex');

async function mariadbReachable(): Promise<string | undefined> {
  try {
    const conn = await mysql.createConnection({ ...MYSQL, connectTimeout: 2000 });
    await conn.end();
    return undefined;
  } catch (error) {
    return `MariaDB is unreachable at ${MYSQL.host}:${MYSQL.port} (${(error as Error).message}); start it with \`start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd\``;
  }
}

/** host.mjs as a child process; resolves once it listens. */
async function startHost(env: Record<string, string | undefined>): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOST], { cwd: REPO, env: { ...process.env, PORT: '0', ADMIN_TOKEN: TOKEN, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`host.mjs did not start:\n${output}`)), 90_000);
    const check = () => {
      const match = /listening on (http:\/\/localhost:\d+)\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`host.mjs exited with ${code}:\n${output}`));
    });
  });
  return { child, base, output: () => output };
}

async function stopHost(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

const skip = await mariadbReachable();

// The push road end to end (a CMS host over MariaDB): the push API it calls is the content suites' (both backends).
for (const backend of surfaceBackends) {
  describe(`examples/cms/ghost: a Ghost-shaped blog on MariaDB through the push API [${backend.name}]`, { skip }, () => {
    const database = `ghost_test_${process.pid}_${randomBytes(3).toString('hex')}`;
    let mariadb: mysql.Pool;
    let plugin: TestDatabase | undefined;
    let host: Awaited<ReturnType<typeof startHost>>;
    const env = () => ({ MYSQL_DATABASE: database, DATABASE_URL: plugin?.url, SYNC_MAX_REMOVE: '50%' });

    const admin = (path: string, body?: unknown, token = TOKEN) =>
      fetch(`${host.base}/ghost/api/admin${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
    const get = (path: string) => fetch(`${host.base}${path}`, { redirect: 'manual' });
    const search = async (text: string) => {
      const res = await get(`/api/agent/search?text=${encodeURIComponent(text)}`);
      assert.equal(res.status, 200);
      return ((await res.json()) as { result: { items: { id: number; title: string; page_url: string }[] } }).result.items;
    };

    before(async () => {
      const root = await mysql.createConnection(MYSQL);
      await root.query(`CREATE DATABASE ${database}`);
      await root.end();
      mariadb = mysql.createPool({ ...MYSQL, database, timezone: 'Z' });
      // PostgreSQL: a fresh database the host migrates and keeps across its restart.
      if (backend.name === 'postgres') plugin = await backend.open();
      host = await startHost(env());
    });
    after(async () => {
      if (host) await stopHost(host.child);
      await plugin?.close();
      await mariadb?.query(`DROP DATABASE IF EXISTS ${database}`);
      await mariadb?.end();
    });

    it('admin routes need the token and refuse bad input with 400', async () => {
      assert.equal((await admin('/posts', { title: 'x' }, 'wrong')).status, 401);
      assert.equal((await admin('/posts', { title: '' })).status, 400);
      assert.equal((await admin('/posts', { title: 'x', slug: 'Bad Slug' })).status, 400);
      assert.equal((await admin('/posts', { title: 'x', id: 'not-hex' })).status, 400);
      assert.equal((await admin('/posts', { title: 'x', id: '0123456789abcdef01234567' })).status, 404);
      assert.equal((await admin('/posts/0123456789abcdef01234567/publish')).status, 404);
    });

    it('a draft is not served; published, it is read through the facade by search, its 24-hex id mapped to a numeric id', async () => {
      const created = await admin('/posts', { title: 'Harbour lights', html: '<p>The lighthouse keeper writes at dawn.</p>', tags: ['News', '#internal'] });
      assert.equal(created.status, 201);
      const draft = (await created.json()) as { id: string; rsc_id: number | null; pushed: boolean };
      assert.match(draft.id, /^[0-9a-f]{24}$/);
      assert.deepEqual([draft.pushed, draft.rsc_id], [true, null]);
      assert.deepEqual(await search('lighthouse'), []);

      const published = (await (await admin(`/posts/${draft.id}/publish`)).json()) as { rsc_id: number };
      assert.equal(typeof published.rsc_id, 'number');
      const [item, ...rest] = await search('lighthouse');
      assert.equal(rest.length, 0);
      assert.equal(item!.id, published.rsc_id);
      assert.equal(item!.title, 'Harbour lights');
      assert.equal(item!.page_url, `${host.base}/harbour-lights/`, 'the pageUrl option builds /<slug>/');

      const read = await get(`/api/agent/resource/${published.rsc_id}`);
      assert.equal(read.status, 200);
      const resource = ((await read.json()) as { result: { title: string; content: string } }).result;
      assert.equal(resource.title, 'Harbour lights');
      assert.match(resource.content, /lighthouse keeper/);
      const related = (await (await get(`/api/agent/related/${published.rsc_id}`)).json()) as { result: { items: { resource: { title: string } }[] } };
      assert.deepEqual(related.result.items.map((i) => i.resource.title), ['News'], 'the internal tag stays private');

      const page = await get('/harbour-lights/');
      assert.equal(page.status, 200);
      assert.match(page.headers.get('link')!, /rel="alternate"; type="text\/markdown"/);
      assert.equal((await get(`/id/${published.rsc_id}`)).headers.get('location'), '/harbour-lights/');

      const edited = (await (await admin('/posts', { id: draft.id, title: 'Harbour lights, revised', slug: 'harbour-lights', html: '<p>The lighthouse keeper.</p>', status: 'published' })).json()) as { rsc_id: number };
      assert.equal(edited.rsc_id, published.rsc_id, 'the same 24-hex id, the same numeric id');
      assert.deepEqual((await search('lighthouse')).map((i) => i.title), ['Harbour lights, revised']);

      const unpublished = (await (await admin(`/posts/${draft.id}/unpublish`)).json()) as { rsc_id: number | null };
      assert.equal(unpublished.rsc_id, null);
      assert.equal((await get(`/api/agent/resource/${published.rsc_id}`)).status, 404);
      assert.deepEqual(await search('lighthouse'), []);
      assert.equal((await get('/harbour-lights/')).status, 404);
    });

    it('members-only posts are never pushed (hidden entirely); deleted posts are removed', async () => {
      const members = (await (await admin('/posts', { title: 'Members lounge', html: '<p>secret quay</p>', status: 'published', visibility: 'members' })).json()) as { pushed: boolean; rsc_id: number | null };
      assert.deepEqual([members.pushed, members.rsc_id], [true, null]);
      const open = (await (await admin('/posts', { title: 'Open quay', html: '<p>open quay</p>', status: 'published' })).json()) as { id: string; rsc_id: number };
      assert.equal((await search('quay')).length, 1);
      assert.equal((await (await admin(`/posts/${open.id}/delete`)).json() as { rsc_id: null }).rsc_id, null);
      assert.deepEqual(await search('quay'), []);
    });

    it('at start-up, reconcile repairs what changed in MariaDB without a push', async () => {
      const kept = (await (await admin('/posts', { title: 'Tide tables', html: '<p>tide tables</p>', status: 'published' })).json()) as { id: string };
      const hidden = (await (await admin('/posts', { title: 'Old ferry', html: '<p>ferry times</p>', status: 'published' })).json()) as { id: string };
      // Edits behind the push API's back (a crashed sync): one post unpublished, one published, one retitled.
      await mariadb.query("UPDATE posts SET status = 'draft', updated_at = NOW() WHERE id = ?", [hidden.id]);
      await mariadb.query(
        "INSERT INTO posts (id, title, slug, html, status, visibility, published_at, created_at, updated_at) VALUES ('5f2b9c1e8a4d3b0017a1c2d3', 'Night ferry', 'night-ferry', '<p>ferry at night</p>', 'published', 'public', NOW(), NOW(), NOW())",
      );
      await mariadb.query("UPDATE posts SET title = 'Tide tables 2026', updated_at = DATE_ADD(updated_at, INTERVAL 1 SECOND) WHERE id = ?", [kept.id]);
      await stopHost(host.child);
      host = await startHost(env());
      assert.match(host.output(), /synced at start-up/);
      assert.deepEqual((await search('ferry')).map((i) => i.title), ['Night ferry']);
      assert.deepEqual((await search('tide')).map((i) => i.title), ['Tide tables 2026']);
      const [night] = await search('night');
      assert.equal((await get(`/api/agent/resource/${night!.id}`)).status, 200, 'the 24-hex id inserted in MariaDB is served by its numeric id');
    });
  });
}
