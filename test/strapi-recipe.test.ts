import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { runCli } from '../src/cli/run.js';
import { REPO_ROOT } from './support/repo.js';
import { eachLimited, startRecipeHost, stopHost } from './support/recipe-host.js';
import { createStrapiDatabase, LEAK, STRAPI_FIXTURE, type StrapiDatabase } from './fixtures/strapi/fixture-database.js';
import { databaseUrl } from './fixtures/directus/fixture-database.js';

/**
 * The Strapi 5 recipe (examples/cms/strapi), run as a user would over the Strapi 5.54.0 fixture:
 * `setup.sh` (the generator over Strapi's tables and the project's model files, its SQL applied,
 * `doctor`) and `host.mjs` as they are. What is served is checked against SQL over Strapi's own
 * tables (the fixture README's query for the Public role): exactly the published articles of both
 * locales, with their published titles; the marker `wombatsecret` (every draft-only text, private
 * field and author email) and the tag names (the Public role may not read tags) in no answer; an
 * unpublish, an edit published, and the removal of the Public role's find followed on the next read;
 * an unknown component served around and noticed. Then what bad input gets from the generator.
 */

const RECIPE = `${REPO_ROOT}examples/cms/strapi/`;
const SITE = 'https://news.example';
const run = promisify(execFile);
const TAG_NAMES = /Election Watch|Climate Desk/;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { env: {}, out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describe('examples/cms/strapi: a Strapi 5 database served through the generated recipe (tables kept by triggers)', { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let fixture: StrapiDatabase;
  let host: { child: ChildProcess; base: string };
  let workDir: string;
  let setupOutput = '';
  const seen: { what: string; text: string }[] = [];
  const local = (path: string) => (path.startsWith(SITE) ? `${host.base}${path.slice(SITE.length)}` : path.startsWith('http') ? path : `${host.base}${path}`);
  async function get(path: string): Promise<{ status: number; text: string }> {
    const res = await fetch(local(path), { redirect: 'manual' });
    const text = await res.text();
    seen.push({ what: path, text: [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n') + '\n\n' + text });
    return { status: res.status, text };
  }
  async function walk(path: string): Promise<any[]> {
    const items: any[] = [];
    let next: string | null = path;
    for (let pages = 0; next; pages++) {
      assert.ok(pages < 100, `${path}: the walk does not end`);
      const res = await get(next);
      assert.equal(res.status, 200, `${next}: ${res.text}`);
      const { result } = JSON.parse(res.text);
      items.push(...result.items);
      next = result.next ? result.next_url : null;
    }
    return items;
  }
  /** The public articles of a locale as Strapi's REST API lists them (the fixture README's SQL): page URL → published title. */
  const published = async (locale: string) =>
    new Map((await fixture.sql<{ url: string; title: string }>(
      `SELECT $2 || '/' || a.locale || '/articles/' || a.slug AS url, a.title FROM articles a
       WHERE a.published_at IS NOT NULL AND a.locale = $1
         AND EXISTS (SELECT 1 FROM up_permissions p JOIN up_permissions_role_lnk l ON l.permission_id = p.id JOIN up_roles r ON r.id = l.role_id
                     WHERE r.type = 'public' AND p.action = 'api::article.article.find')`, [locale, SITE])).map((r) => [r.url, r.title]));
  /** What the host serves of a locale: page URL → title, from search walked to its end. */
  const served = async (locale: string) =>
    new Map((await walk(`/api/agent/search?cat=articles&language=${locale}&pagelen=100`)).filter((i) => i.language === locale).map((i) => [i.page_url as string, i.title as string]));

  /** Runs setup.sh as a user would (the generator, psql, doctor): its output. */
  const setup = async () => {
    const { stdout, stderr } = await run('bash', [`${RECIPE}setup.sh`], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: fixture.url,
        SITE_URL: SITE,
        STRAPI_PROJECT: `${STRAPI_FIXTURE}model`,
        RECIPE_SQL: join(workDir, 'recipe.sql'),
        EXPRESS_AGENT_DISCOVERY: `${process.execPath} --import tsx src/cli/main.ts`,
      },
    });
    return stdout + stderr;
  };
  /** The row version of every resource in the recipe's `rsc`. */
  const versions = async () => new Map((await fixture.sql<{ id: string; v: string }>(`SELECT id::text, xmin::text AS v FROM agent.rsc`)).map((r) => [r.id, r.v]));
  const changedSince = (before: Map<string, string>, after: Map<string, string>) =>
    [...new Set([...before.keys(), ...after.keys()])].filter((id) => before.get(id) !== after.get(id)).sort();

  before(async () => {
    fixture = await createStrapiDatabase('recipe');
    workDir = mkdtempSync(join(tmpdir(), 'strapi-recipe-'));
    setupOutput = await setup();
    host = await startRecipeHost(`${RECIPE}host.mjs`, fixture.url, SITE);
  });

  after(async () => {
    if (host) await stopHost(host.child);
    await fixture?.drop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('setup.sh serves the types the Public role may read, names what it leaves out, and doctor finds no hidden rule', () => {
    assert.match(setupOutput, /serving: api::about\.about api::article\.article api::author\.author api::category\.category/);
    assert.match(setupOutput, /api::article\.article: category articles, .*pages at https:\/\/news\.example\/\{locale\}\/articles\/\{slug\}/);
    assert.match(setupOutput, /api::tag\.tag: not served, the Public role may not find or findOne it/);
    assert.match(setupOutput, /never served \(private or password\/email\): internal_notes/);
    assert.match(setupOutput, /never served \(private or password\/email\): email/);
    assert.doesNotMatch(setupOutput, /predicate .*tags/, 'tags are not named');
    assert.doesNotMatch(setupOutput, /Hidden because/);
  });

  it('serves exactly the published articles of both locales, with their published titles', async () => {
    for (const locale of ['en', 'nl']) {
      const expected = await published(locale);
      assert.equal(expected.size, locale === 'en' ? 249 : 72);
      assert.deepEqual(new Map([...(await served(locale))].sort()), new Map([...expected].sort()), locale);
    }
  });

  it('reads, Markdown, pages and documents: the published versions, nothing private, no tag', async () => {
    // The 44 documents with a newer draft (its title differs), in both languages; and the about page.
    const drafted = await fixture.sql<{ url: string; locale: string; title: string }>(
      `SELECT $1 || '/' || p.locale || '/articles/' || p.slug AS url, p.locale, p.title FROM articles p JOIN articles d
         ON d.document_id = p.document_id AND d.locale = p.locale AND d.published_at IS NULL
       WHERE p.published_at IS NOT NULL AND d.title <> p.title`, [SITE]);
    assert.equal(drafted.length, 44);
    const byUrl = new Map<string, number>();
    for (const locale of ['en', 'nl']) {
      for (const i of await walk(`/api/agent/search?cat=articles&language=${locale}&pagelen=100`)) byUrl.set(i.page_url, i.id);
    }
    // Every third of them read three ways (the rest are in search, llms-full.txt and the feed below).
    await eachLimited(drafted.filter((_, i) => i % 3 === 0), 4, async (d) => {
      const id = byUrl.get(d.url)!;
      const read = await get(`/api/agent/resource/${id}?language=${d.locale}`);
      assert.equal(read.status, 200);
      assert.equal(JSON.parse(read.text).result.title, d.title);
      const md = await get(`/agent/resource/${id}/markdown?language=${d.locale}`);
      assert.equal(md.status, 200);
      const page = await get(d.url);
      assert.equal(page.status, 200, d.url);
      assert.ok(page.text.includes(`<title>${d.title.replace(/'/g, '&#39;')}</title>`), `${d.url}: the published title`);
    });
    const drafts = await fixture.sql<{ url: string }>(`SELECT $1 || '/' || d.locale || '/articles/' || d.slug AS url FROM articles d
      WHERE d.published_at IS NULL AND NOT EXISTS (SELECT 1 FROM articles p WHERE p.published_at IS NOT NULL AND p.document_id = d.document_id AND p.locale = d.locale AND p.slug = d.slug) LIMIT 20`, [SITE]);
    assert.ok(drafts.length > 10);
    for (const d of drafts) assert.equal((await get(d.url)).status, 404, `${d.url}: a draft's page`);
    const about = await get('/about');
    assert.equal(about.status, 200);
    for (const path of ['/llms.txt', '/llms-full.txt', '/api/agent/search?text=harbour&pagelen=100', '/api/agent/schema', '/api/agent/changes?pagelen=100']) {
      assert.equal((await get(path)).status, 200, path);
    }
    const someId = byUrl.values().next().value!;
    assert.equal((await get(`/api/agent/related/${someId}`)).status, 200);
    const leaks = seen.filter((s) => s.text.includes(LEAK) || TAG_NAMES.test(s.text)).map((s) => s.what);
    assert.deepEqual(leaks, [], 'no draft text, private field or tag name in any answer');
  });

  it('composes blocks and the dynamic zone to Markdown, in order, with the media on the site', async () => {
    const [row] = await fixture.sql<{ url: string }>(`SELECT $1 || '/en/articles/' || a.slug AS url FROM articles a
      WHERE a.published_at IS NOT NULL AND a.locale = 'en'
        AND EXISTS (SELECT 1 FROM articles_cmps c WHERE c.entity_id = a.id AND c.component_type = 'shared.quote')
        AND EXISTS (SELECT 1 FROM articles_cmps c WHERE c.entity_id = a.id AND c.component_type = 'shared.rich-text')
        AND EXISTS (SELECT 1 FROM articles_cmps c WHERE c.entity_id = a.id AND c.component_type = 'shared.media') ORDER BY a.id LIMIT 1`, [SITE]);
    const item = (await walk(`/api/agent/search?cat=articles&pagelen=100`)).find((i) => i.page_url === row!.url);
    const md = (await get(`/agent/resource/${item.id}/markdown`)).text;
    assert.match(md, /^## /m, 'a blocks heading');
    assert.match(md, /^> /m, 'a quote');
    assert.match(md, /^> — /m, 'the quote\'s attribution');
    assert.match(md, /^### /m, 'the rich text\'s Markdown heading');
    assert.match(md, /!\[[^\]]*\]\(https:\/\/news\.example\/uploads\/[^)]+\)/, 'an image on the site');
    assert.doesNotMatch(md, /\\#|\*\*\*\*/, 'Markdown not escaped twice');
    // A document in both locales: its page links its language versions (hreflang).
    const [both] = await fixture.sql<{ en: string; nl: string }>(`SELECT $1 || '/en/articles/' || e.slug AS en, $1 || '/nl/articles/' || n.slug AS nl
      FROM articles e JOIN articles n ON n.document_id = e.document_id AND n.locale = 'nl' AND n.published_at IS NOT NULL
      WHERE e.locale = 'en' AND e.published_at IS NOT NULL ORDER BY e.id LIMIT 1`, [SITE]);
    const res = await fetch(local(both!.nl));
    assert.equal(res.status, 200);
    const link = res.headers.get('link') ?? '';
    assert.ok(link.includes(`<${both!.en}>; rel="alternate"; type="text/html"; hreflang="en"`), link);
    assert.ok(link.includes(`<${both!.nl}>; rel="alternate"; type="text/html"; hreflang="nl"`), link);
    // The Dutch page's Markdown and JSON alternates are the Dutch version (the page's language, not the site's first).
    assert.match(link, /\/agent\/resource\/\d+\/markdown\?language=nl>; rel="alternate"; type="text\/markdown"[^,]*hreflang="nl"/, link);
    assert.doesNotMatch(link, /markdown\?language=en>/, link);
  });

  it('follows an unpublish, an edit published, and the removal of the Public role\'s find', async () => {
    const [doc] = await fixture.sql<{ document_id: string; slug: string; title: string }>(
      `SELECT p.document_id, p.slug, p.title FROM articles p WHERE p.published_at IS NOT NULL AND p.locale = 'en'
         AND EXISTS (SELECT 1 FROM articles n WHERE n.document_id = p.document_id AND n.locale = 'nl' AND n.published_at IS NOT NULL) ORDER BY p.id LIMIT 1`);
    const enUrl = `${SITE}/en/articles/${doc!.slug}`;
    await fixture.edit(`SELECT pg_temp.strapi_unpublish('${doc!.document_id}', 'en');`);
    assert.equal((await get(enUrl)).status, 404, 'unpublished: its page is gone');
    const en = await served('en');
    assert.equal(en.has(enUrl), false);
    assert.equal(en.size, 248);
    assert.equal((await served('nl')).size, 72, 'the Dutch version stays');

    await fixture.edit(`UPDATE articles SET title = 'Harbour reopens after the storm', updated_at = now() AT TIME ZONE 'utc'
        WHERE document_id = '${doc!.document_id}' AND locale = 'en' AND published_at IS NULL;
      SELECT pg_temp.strapi_publish('${doc!.document_id}', 'en');`);
    const after = await served('en');
    assert.equal(after.size, 249);
    const [slug] = await fixture.sql<{ slug: string }>(`SELECT slug FROM articles WHERE document_id = $1 AND locale = 'en' AND published_at IS NOT NULL`, [doc!.document_id]);
    assert.equal(after.get(`${SITE}/en/articles/${slug!.slug}`), 'Harbour reopens after the storm');

    await fixture.sql(`DELETE FROM up_permissions p USING up_permissions_role_lnk l, up_roles r
      WHERE l.permission_id = p.id AND r.id = l.role_id AND r.type = 'public' AND p.action IN ('api::article.article.find', 'api::article.article.findOne')`);
    assert.equal((await get('/api/agent/search?cat=articles')).status, 400, 'no find: the articles category is hidden too');
    const listed = await walk('/api/agent/search?pagelen=100');
    assert.ok(listed.length > 0, 'authors and categories stay');
    assert.deepEqual(listed.filter((i) => i.page_url.includes('/articles/')), [], 'no find: no article listed');
    assert.equal((await get(`${SITE}/en/articles/${slug!.slug}`)).status, 404);
    assert.doesNotMatch((await get('/llms.txt')).text, /\/articles\//);
    await fixture.sql(`INSERT INTO up_permissions (document_id, action, created_at, updated_at, published_at)
        SELECT substr(md5(random()::text), 1, 24), a, now() AT TIME ZONE 'utc', now() AT TIME ZONE 'utc', now() AT TIME ZONE 'utc'
        FROM unnest(ARRAY['api::article.article.find', 'api::article.article.findOne']) a;
      INSERT INTO up_permissions_role_lnk (permission_id, role_id, permission_ord)
        SELECT p.id, r.id, 1 FROM up_permissions p, up_roles r WHERE r.type = 'public' AND p.action IN ('api::article.article.find', 'api::article.article.findOne')
          AND NOT EXISTS (SELECT 1 FROM up_permissions_role_lnk l WHERE l.permission_id = p.id)`);
    assert.equal((await served('en')).size, 249, 'find granted again');

    // Strapi's stored model makes a served field private (a restart after editing schema.json): closed, with a notice.
    const { value } = (await fixture.sql<{ value: string }>(`SELECT value FROM strapi_core_store_settings WHERE key = 'strapi_content_types_schema'`))[0]!;
    await fixture.sql(`UPDATE strapi_core_store_settings SET value = jsonb_set(value::jsonb, '{api::article.article,__schema__,attributes,summary,private}', 'true')::text
      WHERE key = 'strapi_content_types_schema'`);
    assert.deepEqual((await walk('/api/agent/search?pagelen=100')).filter((i) => i.page_url.includes('/articles/')), [], 'closed: no article listed');
    const [notice] = await fixture.sql<{ subject: string; notice: string }>(`SELECT subject, notice FROM agent.access_notice`);
    assert.equal(notice!.subject, 'api::article.article');
    assert.match(notice!.notice, /no longer lets the Public role read every field the recipe serves/);
    await fixture.sql(`UPDATE strapi_core_store_settings SET value = $1 WHERE key = 'strapi_content_types_schema'`, [value]);
    assert.equal((await served('en')).size, 249, 'the model as it was: served again');
  });

  it('serves an item without a component it does not know, says so, and never a 5xx', async () => {
    const [a] = await fixture.sql<{ id: number; slug: string }>(`SELECT id, slug FROM articles WHERE published_at IS NOT NULL AND locale = 'en' ORDER BY id LIMIT 1`);
    await fixture.sql(`INSERT INTO articles_cmps (entity_id, cmp_id, component_type, field, "order") VALUES ($1, 1, 'shared.slider', 'sections', 99)`, [a!.id]);
    await fixture.sql(`UPDATE articles SET body = body || '[{"type": "carousel", "children": []}]'::jsonb WHERE id = $1`, [a!.id]);
    const page = await get(`${SITE}/en/articles/${a!.slug}`);
    assert.equal(page.status, 200);
    const notices = await fixture.sql<{ notice: string }>(`SELECT notice FROM agent.access_notice ORDER BY 1`);
    assert.equal(notices.length, 2);
    assert.match(notices[0]!.notice, /the component shared\.slider is not in the model the recipe was generated from, left out/);
    assert.match(notices[1]!.notice, /blocks node types not rendered \(left out\): carousel; the rest is served/);
    const doctor = await cli(['doctor', '--database-url', fixture.url, '--search-path', 'agent,public']);
    assert.equal(doctor.code, 1);
    assert.match(doctor.out + doctor.err, /shared\.slider/);
  });

  it('follows a relation link, a component, a file and a new locale; every other resource keeps its row version', async () => {
    const [a] = await fixture.sql<{ id: number; document_id: string; slug: string }>(`SELECT p.id, p.document_id, p.slug FROM articles p
      WHERE p.published_at IS NOT NULL AND p.locale = 'en'
        AND EXISTS (SELECT 1 FROM articles_cmps c WHERE c.entity_id = p.id AND c.component_type = 'shared.quote')
        AND EXISTS (SELECT 1 FROM articles_cmps c WHERE c.entity_id = p.id AND c.component_type = 'shared.media')
        AND EXISTS (SELECT 1 FROM articles d WHERE d.document_id = p.document_id AND d.locale = 'en' AND d.published_at IS NULL)
      ORDER BY p.id DESC LIMIT 1`);
    const item = (await walk('/api/agent/search?cat=articles&pagelen=100')).find((i) => i.page_url === `${SITE}/en/articles/${a!.slug}`);
    const id = String(item.id);
    const before = await versions();

    // Its author changed (the link row re-pointed, as an editor picking another author and publishing does).
    const [other] = await fixture.sql<{ id: number; slug: string }>(`SELECT au.id, au.slug FROM authors au WHERE au.published_at IS NOT NULL
      AND au.id NOT IN (SELECT l.author_id FROM articles_author_lnk l JOIN articles x ON x.id = l.article_id WHERE x.document_id = $1) ORDER BY au.id LIMIT 1`, [a!.document_id]);
    await fixture.sql(`UPDATE articles_author_lnk SET author_id = $1 WHERE article_id IN (SELECT id FROM articles WHERE document_id = $2 AND published_at IS NOT NULL)`, [other!.id, a!.document_id]);
    const related = JSON.parse((await get(`/api/agent/related/${id}`)).text).result.items;
    assert.deepEqual(related.filter((r: any) => r.predicate.name === 'author').map((r: any) => r.resource.page_url), [`${SITE}/authors/${other!.slug}`]);

    // A component of its published row edited; one of its draft row too (never read).
    await fixture.sql(`UPDATE components_shared_quotes q SET quote = 'Ferries will run all night' FROM articles_cmps c
      WHERE c.entity_id = $1 AND c.component_type = 'shared.quote' AND q.id = c.cmp_id`, [a!.id]);
    await fixture.sql(`UPDATE components_shared_quotes q SET quote = 'Draft quote ${LEAK}' FROM articles_cmps c JOIN articles d ON d.id = c.entity_id
      WHERE d.document_id = $1 AND d.locale = 'en' AND d.published_at IS NULL AND c.component_type = 'shared.quote' AND q.id = c.cmp_id`, [a!.document_id]);
    let md = (await get(`/agent/resource/${id}/markdown`)).text;
    assert.match(md, /^> Ferries will run all night/m);
    assert.ok(!md.includes(LEAK), 'the draft\'s component is not read');
    assert.deepEqual(changedSince(before, await versions()), [id], 'only the edited document\'s row was written');

    // The alternative text of a file one of its media components shows.
    await fixture.sql(`UPDATE files SET alternative_text = 'The night ferry' WHERE id = (SELECT m.file_id FROM articles_cmps c
      JOIN files_related_mph m ON m.related_id = c.cmp_id AND m.related_type = 'shared.media' WHERE c.entity_id = $1 AND c.component_type = 'shared.media' ORDER BY c."order" LIMIT 1)`, [a!.id]);
    md = (await get(`/agent/resource/${id}/markdown`)).text;
    assert.match(md, /!\[The night ferry\]\(https:\/\/news\.example\/uploads\//);

    // A locale added in Strapi, and the document published in it.
    await fixture.sql(`INSERT INTO i18n_locale (document_id, name, code, created_at, updated_at, published_at)
      VALUES ('frenchlocale000000000000', 'French (fr)', 'fr', now(), now(), now())`);
    await fixture.sql(`INSERT INTO articles (document_id, title, slug, summary, body, locale, published_at, created_at, updated_at)
      SELECT document_id, 'Le ferry de nuit', slug, summary, body, 'fr', now() AT TIME ZONE 'utc', now() AT TIME ZONE 'utc', now() AT TIME ZONE 'utc'
      FROM articles WHERE id = $1`, [a!.id]);
    const read = JSON.parse((await get(`/api/agent/resource/${id}`)).text).result;
    assert.ok(read.available_languages.includes('fr') && read.available_languages.includes('en'), read.available_languages.join());
    const page = await get(`${SITE}/fr/articles/${a!.slug}`);
    assert.equal(page.status, 200);
    assert.ok(page.text.includes('<title>Le ferry de nuit</title>'));
  });

  it('a refresh waits for a concurrent one and reads what it committed: a permission removed meanwhile is never overwritten', async () => {
    const [doc] = await fixture.sql<{ id: number; slug: string }>(`SELECT id, slug FROM articles WHERE published_at IS NOT NULL AND locale = 'en' ORDER BY id DESC LIMIT 1`);
    const [row] = await fixture.sql<{ id: string }>(`SELECT id::text FROM agent.rsc WHERE page_url ->> 'en' = $1`, [`${SITE}/en/articles/${doc!.slug}`]);
    const [link] = await fixture.sql<{ id: number; permission_id: number; role_id: number; permission_ord: number }>(`SELECT l.id, l.permission_id, l.role_id, l.permission_ord
      FROM up_permissions_role_lnk l JOIN up_permissions p ON p.id = l.permission_id JOIN up_roles r ON r.id = l.role_id
      WHERE r.type = 'public' AND p.action = 'api::article.article.find'`);
    const [editor, admin, holder] = [new pg.Client({ connectionString: fixture.url }), new pg.Client({ connectionString: fixture.url }), new pg.Client({ connectionString: fixture.url })];
    await Promise.all([editor.connect(), admin.connect(), holder.connect()]);
    const waiting = async (client: pg.Client) => {
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      return async () => {
        for (let i = 0; i < 200; i++) {
          const [w] = await fixture.sql<{ e: string | null }>(`SELECT wait_event_type AS e FROM pg_stat_activity WHERE pid = $1`, [pid]);
          if (w?.e === 'Lock') return;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        throw new Error(`backend ${pid} never waited on a lock`);
      };
    };
    const [adminWaits, editorWaits] = [await waiting(admin), await waiting(editor)];
    try {
      // The article's row of rsc held, so that the admin's refresh (the find removed) stops on it at commit.
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM agent.rsc WHERE id = $1 FOR UPDATE`, [row!.id]);
      await admin.query('BEGIN');
      await admin.query(`DELETE FROM up_permissions_role_lnk WHERE id = $1`, [link!.id]);
      const adminCommit = admin.query('COMMIT');
      await adminWaits();
      // Meanwhile an editor's edit of that article commits: its refresh must not see the find the admin removed.
      await editor.query('BEGIN');
      await editor.query(`UPDATE articles SET title = 'Edited while the find was removed', updated_at = now() AT TIME ZONE 'utc' WHERE id = $1`, [doc!.id]);
      const editorCommit = editor.query('COMMIT');
      await editorWaits();
      await holder.query('ROLLBACK');
      await Promise.all([adminCommit, editorCommit]);
      const [kept] = await fixture.sql<{ visibility: string; title: string }>(`SELECT visibility, title ->> 'en' AS title FROM agent.rsc WHERE id = $1`, [row!.id]);
      assert.deepEqual(kept, { visibility: 'restricted', title: 'Edited while the find was removed' });
      assert.equal((await get(`${SITE}/en/articles/${doc!.slug}`)).status, 404);
      assert.deepEqual(await fixture.sql(`SELECT * FROM agent.access_notice WHERE notice LIKE 'following a write failed%'`), [], 'no refresh failed');
    } finally {
      await fixture.sql(`INSERT INTO up_permissions_role_lnk (id, permission_id, role_id, permission_ord) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
        [link!.id, link!.permission_id, link!.role_id, link!.permission_ord]);
      await Promise.all([editor.end(), admin.end(), holder.end()]);
    }
    assert.equal((await get(`${SITE}/en/articles/${doc!.slug}`)).status, 200, 'the find granted again');
  });

  it('hides a type whose write it cannot follow, with a notice, and serves it again when the recipe is applied again, with the same ids', async () => {
    const authors = async () => (await walk('/api/agent/search?pagelen=100')).filter((i) => i.page_url.includes('/authors/')).map((i) => `${i.id} ${i.page_url}`).sort();
    const listed = await authors();
    assert.ok(listed.length > 3);
    await fixture.sql(`ALTER TABLE authors RENAME COLUMN bio TO biography`);
    await fixture.sql(`UPDATE authors SET updated_at = now() AT TIME ZONE 'utc' WHERE id = (SELECT min(id) FROM authors WHERE published_at IS NOT NULL)`);
    assert.deepEqual(await authors(), [], 'closed: no author listed');
    const notices = await fixture.sql<{ subject: string; notice: string }>(`SELECT subject, notice FROM agent.access_notice WHERE subject = 'api::author.author'`);
    assert.equal(notices.length, 1);
    assert.match(notices[0]!.notice, /following a write failed: .*bio.* \(hidden until the recipe is generated and applied again\)/);
    assert.ok((await served('en')).size > 200, 'the other types are still served');

    await fixture.sql(`ALTER TABLE authors RENAME COLUMN biography TO bio`);
    const before = await versions();
    const again = await setup();
    assert.match(again, /applied /);
    assert.deepEqual(await authors(), listed, 'served again, under the same ids');
    const changed = changedSince(before, await versions());
    const author = (i: string) => i.length === 13 && i.startsWith('2');
    const vocabulary = (i: string) => i.length === 16 && i.startsWith('9');
    assert.ok(changed.some(author) && changed.every((i) => author(i) || vocabulary(i)), `only the authors' rows (and their category's and predicate's) were written again: ${changed.join(', ')}`);
  });
});

describe('views strapi: what bad input gets', { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let fixture: StrapiDatabase;
  let dir: string;
  before(async () => {
    fixture = await createStrapiDatabase('generator');
    dir = mkdtempSync(join(tmpdir(), 'strapi-model-'));
  });
  after(async () => {
    await fixture?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a database that is not Strapi 5, naming why', async () => {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const empty = `strapi_empty_${process.pid}`;
    await admin.query(`DROP DATABASE IF EXISTS ${empty}`);
    await admin.query(`CREATE DATABASE ${empty}`);
    try {
      const none = await cli(['views', 'strapi', '--database-url', databaseUrl(empty)]);
      assert.equal(none.code, 2);
      assert.match(none.err, /no Strapi tables in schema "public" of this database \(strapi_core_store_settings is missing\)/);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${empty} WITH (FORCE)`);
      await admin.end();
    }
    await fixture.sql(`ALTER TABLE categories RENAME COLUMN document_id TO entry_id`);
    const four = await cli(['views', 'strapi', '--database-url', fixture.url]);
    assert.equal(four.code, 2);
    assert.match(four.err, /table categories \(api::category\.category\) has no document_id column: this is not a Strapi 5 database \(Strapi 4/);
    await fixture.sql(`ALTER TABLE categories RENAME COLUMN entry_id TO document_id`);
    await fixture.sql(`ALTER TABLE up_permissions_role_lnk RENAME TO up_permissions_role_lnk_x`);
    const plugin = await cli(['views', 'strapi', '--database-url', fixture.url]);
    assert.match(plugin.err, /the users-permissions plugin's tables are missing \(up_permissions_role_lnk\)/);
    await fixture.sql(`ALTER TABLE up_permissions_role_lnk_x RENAME TO up_permissions_role_lnk`);
  });

  it('lists every problem of the model at once, writes nothing', async () => {
    mkdirSync(join(dir, 'src/api/article/content-types/article'), { recursive: true });
    mkdirSync(join(dir, 'src/components/shared'), { recursive: true });
    writeFileSync(join(dir, 'src/api/article/content-types/article/schema.json'), '{"kind": "collectionType", "collectionName": "articles", ');
    writeFileSync(join(dir, 'src/components/shared/quote.json'), '[]');
    await fixture.sql(`INSERT INTO i18n_locale (document_id, name, code) VALUES ('x', 'Broken', 'en US!')`);
    await fixture.sql(`ALTER TABLE abouts DROP CONSTRAINT abouts_pkey; ALTER TABLE abouts ADD PRIMARY KEY (id, document_id)`);
    const out = join(dir, 'recipe.sql');
    const bad = await cli(['views', 'strapi', '--database-url', fixture.url, '--model', dir, '--out', out]);
    assert.equal(bad.code, 2, bad.err);
    assert.match(bad.err, /problems, nothing written:/);
    assert.match(bad.err, /src\/api\/article\/content-types\/article\/schema\.json: .*JSON/);
    assert.match(bad.err, /src\/components\/shared\/quote\.json: not a JSON object/);
    assert.match(bad.err, /locale "en US!" \(i18n_locale\) is not a language tag/);
    assert.match(bad.err, /content type api::about\.about \(table abouts\): its primary key is id, document_id, not Strapi's integer id/);
    assert.equal(await import('node:fs').then((fs) => fs.existsSync(out)), false);
    const unknown = await cli(['views', 'strapi', '--database-url', fixture.url, '--type', 'posts']);
    assert.match(unknown.err, /--type posts: there is no content type "posts"/);
    const option = await cli(['views', 'strapi', '--database-url', fixture.url, '--type', 'article:articles']);
    assert.match(option.err, /--type "article:articles": expected <type>\[:<pattern>\]/);
    await fixture.sql(`DELETE FROM i18n_locale WHERE code = 'en US!'; ALTER TABLE abouts DROP CONSTRAINT abouts_pkey; ALTER TABLE abouts ADD PRIMARY KEY (id)`);
    const fine = await cli(['views', 'strapi', '--database-url', fixture.url, '--type', 'article:/news/{documentId}', '--upload-base', 'https://cdn.example/']);
    assert.equal(fine.code, 0, fine.err);
    assert.match(fine.err, /sections: a dynamic zone; its components are in the project's files: pass --model/);
    await fixture.sql(fine.out);
    const [row] = await fixture.sql<{ page: boolean; cdn: boolean; n: number }>(`SELECT bool_and(page_url ->> 'en' ~ '^/news/[a-z0-9]{24}$') AS page,
      bool_or(body ->> 'en' LIKE '%<img src="https://cdn.example/uploads/%') AS cdn, count(*)::int AS n FROM agent.rsc WHERE id < 1000000000000 AND language @> ARRAY['en']`);
    assert.deepEqual(row, { page: true, cdn: true, n: 249 }, 'the pattern with {documentId}, images on the upload base');
  });
});
