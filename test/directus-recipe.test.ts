import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../src/cli/run.js';
import { REPO_ROOT } from './support/repo.js';
import { connectMcp } from './support/mcp-client.js';
import { createDirectusDatabase, LEAK, type DirectusDatabase } from './fixtures/directus/fixture-database.js';
import { eachLimited, startRecipeHost, stopHost } from './support/recipe-host.js';

/**
 * The Directus recipe (examples/cms/directus), run as a user would: the fixture's Directus 12 database
 * (its own dump, seeded), `setup.sh` (the generator over Directus's model, its SQL applied, `doctor`)
 * and `host.mjs` as they are. Every answer is checked against SQL over Directus's own tables (never the
 * recipe's): the Public policy's rule written by hand here, as its README states it. Every article the
 * Public policy cannot read carries the word `quokkasecret`, so any leak shows.
 */

const REPO = REPO_ROOT;
const RECIPE = `${REPO}examples/cms/directus/`;
const SITE = 'https://news.example';
const SPAN = 1_000_000_000_000;
const run = promisify(execFile);

/** The Public policy's rule of the fixture, over Directus's `articles t`. */
const PUBLIC = `t.status = 'published' AND t.date_published <= (now() AT TIME ZONE 'UTC')`;
/** The same with the rule change the issue names: hide the articles tagged `sponsored`. */
const PUBLIC_UNSPONSORED = `${PUBLIC} AND NOT EXISTS (SELECT 1 FROM articles_tags j JOIN tags g ON g.id = j.tags_id WHERE j.articles_id = t.id AND g.slug = 'sponsored')`;
const RULE = { _and: [{ status: { _eq: 'published' } }, { date_published: { _lte: '$NOW' } }] };

describe('examples/cms/directus: a Directus 12 database served through the generated views recipe', { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let fixture: DirectusDatabase;
  let host: { child: ChildProcess; base: string };
  let workDir: string;
  let setupOutput = '';
  /** Every response body and header value seen, checked for the leak marker at the end. */
  const seen: { what: string; text: string }[] = [];

  const sql = <R extends Record<string, any>>(text: string, values: unknown[] = []) => fixture.sql<R>(text, values);
  const publicIds = async (rule = PUBLIC) => (await sql<{ id: number }>(`SELECT t.id FROM articles t WHERE ${rule} ORDER BY t.id`)).map((r) => r.id);
  /** The doctor command, in this process. */
  async function doctor(): Promise<{ code: number; out: string }> {
    let out = '';
    const io = { env: {}, out: (text: string) => void (out += text), err: (text: string) => void (out += text) };
    const code = await runCli(['doctor', '--database-url', fixture.url, '--search-path', 'agent,public', '--text-search', 'english'], io);
    return { code, out };
  }

  /** A path of the host, or one of its absolute URLs (which name the public site, SITE_URL). */
  const local = (path: string) => (path.startsWith(SITE) ? `${host.base}${path.slice(SITE.length)}` : path.startsWith('http') ? path : `${host.base}${path}`);

  async function get(path: string, init: RequestInit = {}): Promise<{ status: number; text: string; headers: Headers }> {
    const res = await fetch(local(path), { redirect: 'manual', ...init });
    const text = await res.text();
    seen.push({ what: `${init.method ?? 'GET'} ${path}`, text: [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n') + '\n\n' + text });
    return { status: res.status, text, headers: res.headers };
  }

  async function getJson(path: string): Promise<any> {
    const res = await get(path);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return JSON.parse(res.text).result;
  }

  /** Follows next_url to the end; every item, in order. */
  async function walk(path: string): Promise<any[]> {
    const items: any[] = [];
    let next: string | null = path;
    for (let pages = 0; next; pages++) {
      assert.ok(pages < 1000, `${path}: the walk does not end`);
      const result = await getJson(next);
      items.push(...result.items);
      next = result.next ? result.next_url : null;
    }
    return items;
  }

  const servedArticles = async () => (await walk('/api/agent/search?cat=articles&pagelen=100')).map((i) => i.id as number);
  const status = async (id: number) => (await get(`/api/agent/resource/${id}`)).status;

  before(async () => {
    fixture = await createDirectusDatabase('recipe', 300);
    workDir = mkdtempSync(join(tmpdir(), 'directus-recipe-'));
    const setup = await run('bash', [`${RECIPE}setup.sh`], {
      cwd: REPO,
      env: {
        ...process.env,
        DATABASE_URL: fixture.url,
        SITE_URL: SITE,
        RECIPE_SQL: join(workDir, 'recipe.sql'),
        EXPRESS_AGENT_DISCOVERY: `${process.execPath} --import tsx src/cli/main.ts`,
      },
    });
    setupOutput = setup.stdout + setup.stderr;
    host = await startRecipeHost(`${RECIPE}host.mjs`, fixture.url, SITE);
    await fetch(`${host.base}/agent/resource/1/markdown`); // starts the Markdown worker threads
  });

  after(async () => {
    if (host) await stopHost(host.child);
    await fixture?.drop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('setup.sh generates the recipe from the model, applies it, and doctor finds every hot statement indexed', () => {
    assert.match(setupOutput, /articles: category articles, ids id, pages at https:\/\/news\.example\/articles\/\{slug\}/);
    assert.match(setupOutput, /rule: followed: \{"_and":\[\{"status":\{"_eq":"published"\}\},\{"date_published":\{"_lte":"\$NOW"\}\}\]\}/);
    assert.match(setupOutput, /predicate author: articles\.author → authors/);
    assert.match(setupOutput, /All 6 statements read through indexes/);
  });

  it('serves exactly the articles the Public policy reads: every search sort walked to its end', async () => {
    const expected = await publicIds();
    assert.ok(expected.length > 200, `${expected.length} public articles`);
    for (const sort of ['id', 'newest', 'oldest', 'modified']) {
      const ids = (await walk(`/api/agent/search?cat=articles&sort=${sort}&pagelen=37`)).map((i) => i.id as number);
      assert.equal(new Set(ids).size, ids.length, `${sort}: an item came twice`);
      assert.deepEqual([...ids].sort((a, b) => a - b), expected, sort);
    }
    const all = (await walk('/api/agent/search?pagelen=100')).map((i) => i.id as number).sort((a, b) => a - b);
    const authors = (await sql<{ id: number }>('SELECT id FROM authors ORDER BY id')).map((r) => SPAN + r.id);
    const tags = (await sql<{ id: number }>('SELECT id FROM tags ORDER BY id')).map((r) => 2 * SPAN + r.id);
    assert.deepEqual(all, [...expected, ...authors, ...tags], 'articles, then authors (10^12 + id), then tags (2 × 10^12 + id)');
    const newest = (await walk('/api/agent/search?cat=articles&sort=newest&pagelen=100')).map((i) => i.id as number);
    const byDate = (await sql<{ id: number }>(`SELECT t.id FROM articles t WHERE ${PUBLIC} ORDER BY t.date_published DESC, t.id`)).map((r) => r.id);
    assert.deepEqual(newest, byDate, 'newest: by date_published, read in the server zone');
  });

  it('reads every article by id: the readable ones citing <SITE_URL>/articles/<slug>, the others a 404 like a missing id', async () => {
    const articles = await sql<{ id: number; slug: string; title: string; visible: boolean }>(`SELECT t.id, t.slug, t.title, (${PUBLIC}) AS visible FROM articles t ORDER BY t.id`);
    const missing = await get('/api/agent/resource/999999');
    const missingMarkdown = await get('/agent/resource/999999/markdown');
    assert.equal(missing.status, 404);
    await eachLimited(articles, 4, async (a) => {
      const json = await get(`/api/agent/resource/${a.id}`);
      // Markdown: every hidden article, and every third readable one (the conversion is the slow part).
      const markdown = !a.visible || a.id % 3 === 0 ? await get(`/agent/resource/${a.id}/markdown`) : undefined;
      if (!a.visible) {
        assert.equal(json.status, 404, `hidden article ${a.id}`);
        assert.equal(json.text, missing.text.replace('999999', String(a.id)), `hidden article ${a.id} answers like a missing one`);
        assert.equal(markdown!.status, 404);
        assert.equal(markdown!.text, missingMarkdown.text.replace('999999', String(a.id)));
        return;
      }
      assert.equal(json.status, 200, `article ${a.id}: ${json.text}`);
      const read = JSON.parse(json.text).result;
      assert.equal(read.page_url, `${SITE}/articles/${a.slug}`);
      assert.equal(read.title, a.title);
      assert.equal(read.category?.name, 'articles');
      if (!markdown) return;
      assert.equal(markdown.status, 200);
      assert.match(markdown.text, new RegExp(`^url: "${SITE}/articles/${a.slug}"$`, 'm'));
    });
    assert.equal((await get(`/api/agent/resource/${SPAN + 1}`)).status, 200, 'author 1');
    assert.equal((await get(`/api/agent/resource/${3 * SPAN + 1}`)).status, 404, 'no fourth collection');
  });

  it('relates articles to their author and tags, both ways, as Directus\'s tables do, readable ends only', async () => {
    const [sample] = await sql<{ id: number }>(`SELECT t.id FROM articles t WHERE ${PUBLIC} ORDER BY t.id LIMIT 1`);
    const out = await walk(`/api/agent/related/${sample!.id}?pagelen=100`);
    const expectedOut = await sql<{ id: string; name: string }>(
      `SELECT (${SPAN}::bigint + author)::text AS id, 'author' AS name FROM articles WHERE id = $1
       UNION ALL SELECT DISTINCT (2 * ${SPAN}::bigint + tags_id)::text, 'has_tags' FROM articles_tags WHERE articles_id = $1 ORDER BY 2, 1`,
      [sample!.id],
    );
    assert.deepEqual(out.map((i) => ({ id: String(i.resource.id), name: i.predicate.name })).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)), expectedOut);
    for (const tag of await sql<{ id: number }>('SELECT id FROM tags ORDER BY id')) {
      const articles = (await walk(`/api/agent/related/${2 * SPAN + tag.id}?direction=in&pagelen=100`)).map((i) => i.resource.id as number);
      const expected = (await sql<{ id: number }>(`SELECT DISTINCT t.id FROM articles t JOIN articles_tags j ON j.articles_id = t.id WHERE j.tags_id = $1 AND ${PUBLIC} ORDER BY t.id`, [tag.id])).map((r) => r.id);
      assert.deepEqual(articles, expected, `the articles tagged ${tag.id}`);
    }
    const predicates = (await getJson('/api/agent/schema?kind=predicate')).items.map((i: any) => i.name).sort();
    assert.deepEqual(predicates, ['author', 'has_tags']);
  });

  it('serves the article pages at /articles/<slug> with the plugin\'s links; hidden articles are a 404', async () => {
    const articles = await sql<{ id: number; slug: string; visible: boolean }>(`SELECT t.id, t.slug, (${PUBLIC}) AS visible FROM articles t ORDER BY t.id`);
    await eachLimited(articles, 4, async (a) => {
      const page = await get(`/articles/${a.slug}`);
      if (!a.visible) return assert.equal(page.status, 404, `hidden article ${a.slug}`);
      assert.equal(page.status, 200, a.slug);
      assert.match(page.headers.get('link') ?? '', new RegExp(`/agent/resource/${a.id}/markdown\\?language=en-us>; rel="alternate"; type="text/markdown"`));
    });
  });

  it('follows edits of articles on the next read: unpublish, archive, a date in the future, publish, delete', async () => {
    const [{ id } = { id: 0 }] = await sql<{ id: number }>(`SELECT t.id FROM articles t WHERE ${PUBLIC} ORDER BY t.id DESC LIMIT 1`);
    assert.equal(await status(id), 200);
    await sql(`UPDATE articles SET status = 'draft' WHERE id = $1`, [id]);
    assert.equal(await status(id), 404, 'unpublished');
    await sql(`UPDATE articles SET status = 'archived' WHERE id = $1`, [id]);
    assert.equal(await status(id), 404, 'archived');
    await sql(`UPDATE articles SET status = 'published', date_published = (now() AT TIME ZONE 'UTC') + interval '2 days' WHERE id = $1`, [id]);
    assert.equal(await status(id), 404, 'published, dated the day after tomorrow');
    const [{ start } = { start: '' }] = await sql<{ start: string }>(`SELECT publication_start::text AS start FROM agent.resource WHERE id = $1`, [id]);
    const [{ due } = { due: '' }] = await sql<{ due: string }>(`SELECT (date_published AT TIME ZONE 'UTC')::text AS due FROM articles WHERE id = $1`, [id]);
    assert.equal(start, due, 'readable from its date on, read in the server zone (no write needed then)');
    await sql(`UPDATE articles SET date_published = (now() AT TIME ZONE 'UTC') - interval '1 hour' WHERE id = $1`, [id]);
    assert.equal(await status(id), 200, 'published an hour ago');
    assert.ok((await servedArticles()).includes(id));
    await sql(`UPDATE articles SET title = 'A ferry timetable, rewritten' WHERE id = $1`, [id]);
    assert.equal((await getJson(`/api/agent/resource/${id}`)).title, 'A ferry timetable, rewritten');
    assert.ok((await walk('/api/agent/search?text=timetable&pagelen=100')).some((i) => i.id === id), 'the text search follows the edit');
    await sql(`DELETE FROM articles WHERE id = $1`, [id]);
    assert.equal(await status(id), 404, 'deleted');
    assert.deepEqual(await servedArticles(), await publicIds());
  });

  it('follows changes of the Public policy\'s rule: a _none over tags, removed, an operator outside the subset (hidden, and doctor says why)', async () => {
    const setRule = (rule: unknown) => sql(`UPDATE directus_permissions SET permissions = $1::json WHERE collection = 'articles' AND action = 'read'`, [JSON.stringify(rule)]);
    await setRule({ _and: [...RULE._and, { tags: { _none: { tags_id: { slug: { _eq: 'sponsored' } } } } }] });
    const unsponsored = await publicIds(PUBLIC_UNSPONSORED);
    assert.ok(unsponsored.length < (await publicIds()).length, 'some public articles are tagged sponsored');
    assert.deepEqual(await servedArticles(), unsponsored, 'the articles tagged sponsored are hidden');
    const [sponsored] = await sql<{ id: number }>(`SELECT t.id FROM articles t WHERE ${PUBLIC} AND NOT (${PUBLIC_UNSPONSORED}) LIMIT 1`);
    assert.equal(await status(sponsored!.id), 404);

    const [plain] = await sql<{ id: number }>(`SELECT t.id FROM articles t WHERE ${PUBLIC_UNSPONSORED} ORDER BY t.id LIMIT 1`);
    await sql(`INSERT INTO articles_tags (articles_id, tags_id) SELECT $1, id FROM tags WHERE slug = 'sponsored'`, [plain!.id]);
    assert.equal(await status(plain!.id), 404, 'tagged sponsored now');
    await sql(`UPDATE tags SET slug = 'paid' WHERE slug = 'sponsored'`);
    assert.equal(await status(plain!.id), 200, 'its tag renamed: no longer sponsored');
    await sql(`UPDATE tags SET slug = 'sponsored' WHERE slug = 'paid'`);
    assert.equal(await status(plain!.id), 404);
    await sql(`DELETE FROM articles_tags WHERE articles_id = $1 AND tags_id = (SELECT id FROM tags WHERE slug = 'sponsored')`, [plain!.id]);
    assert.equal(await status(plain!.id), 200, 'the tag removed');

    await setRule(RULE);
    assert.deepEqual(await servedArticles(), await publicIds(), 'the _none removed');
    assert.equal(await status(sponsored!.id), 200);

    await setRule({ _and: [...RULE._and, { title: { _contains: 'ferry' } }] });
    assert.deepEqual(await servedArticles(), [], 'an operator outside the subset hides the collection');
    assert.equal((await walk('/api/agent/search?cat=authors&pagelen=100')).length, 6, 'the other collections are still served');
    const report = await doctor();
    assert.equal(report.code, 1);
    assert.match(report.out, /✗ articles: the operator _contains \(on articles\.title\) is outside the subset the recipe follows/);
    await setRule(RULE);
    assert.deepEqual(await servedArticles(), await publicIds());
    assert.equal((await doctor()).code, 0);
  });

  it('never shows a hidden article on any route: documents, llms-full.txt, search, reads, Markdown, related, MCP', async () => {
    for (const path of ['/', '/llms.txt', '/llms-full.txt', '/llms/articles.txt', '/api-help', '/openapi.json', '/.well-known/api-catalog', '/api/agent',
      '/api/agent/schema', '/api/agent/schema?kind=predicate']) {
      const res = await get(path);
      assert.equal(res.status, 200, `${path}: ${res.status}`);
    }
    assert.match(seen.find((s) => s.what === 'GET /llms-full.txt')!.text, /# /);
    for (const sort of ['newest', 'oldest', 'modified']) await walk(`/api/agent/search?sort=${sort}&pagelen=100`);
    assert.deepEqual(await walk(`/api/agent/search?text=${LEAK}`), []);
    const ids = [
      ...(await sql<{ id: number }>('SELECT id FROM articles ORDER BY id')).map((r) => r.id),
      ...(await sql<{ id: number }>('SELECT id FROM authors')).map((r) => SPAN + r.id),
      ...(await sql<{ id: number }>('SELECT id FROM tags')).map((r) => 2 * SPAN + r.id),
    ];
    await eachLimited(ids, 4, async (id) => {
      // Nothing points at an article: its inward page is read for every tenth.
      for (const direction of id < SPAN && id % 10 ? ['out'] : ['out', 'in']) {
        const res = await get(`/api/agent/related/${id}?direction=${direction}&pagelen=100`);
        assert.ok(res.status === 200 || res.status === 404, `related ${id}: ${res.status}`);
      }
    });
    const client = await connectMcp(`${host.base}/mcp`);
    try {
      const hidden = (await sql<{ id: number }>(`SELECT t.id FROM articles t WHERE NOT coalesce(${PUBLIC}, false) ORDER BY t.id LIMIT 10`)).map((r) => r.id);
      const results = [
        await client.callTool({ name: 'search', arguments: { text: LEAK } }),
        await client.callTool({ name: 'search', arguments: { sort: 'newest', pagelen: 100 } }),
        ...(await Promise.all(hidden.map((id) => client.callTool({ name: 'read_resource', arguments: { id } })))),
      ];
      seen.push({ what: 'MCP', text: JSON.stringify(results) });
      for (const result of results.slice(2) as { isError?: boolean }[]) assert.equal(result.isError, true, 'a hidden article is not found over MCP');
    } finally {
      await client.close();
    }
    const leaks = seen.filter((s) => s.text.toLowerCase().includes(LEAK)).map((s) => s.what);
    assert.deepEqual(leaks, [], `the leak marker appeared in ${leaks.length} responses`);
    assert.ok(seen.length > 1000, `${seen.length} responses checked`);
  });
});
