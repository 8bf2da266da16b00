import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { runCli } from '../src/cli/run.js';
import { createAgentDiscovery } from '../src/index.js';
import { createDirectusDatabase, type DirectusDatabase } from './fixtures/directus/fixture-database.js';

/**
 * The `views directus` command and the SQL it writes, in this process: what bad input gets (a
 * collection without a slug or a date, an unknown collection, a key that is not an integer, wrong
 * options: an error naming what to pass), every kind of rule outside the subset (the collection
 * hidden, the reason in `access_notice`, `doctor` and the admin page), a rule through a many-to-one
 * relation followed when the related row changes, translations as languages, and `doctor`'s hint
 * about `--search-path`.
 */

const SPAN = 1_000_000_000_000;
const FIXTURE_FLAGS = ['--collection', 'articles:/articles/{slug}', '--collection', 'authors', '--collection', 'tags', '--map', 'authors.date=none', '--map', 'tags.date=none'];
const RULE = { _and: [{ status: { _eq: 'published' } }, { date_published: { _lte: '$NOW' } }] };

async function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { env, out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describe('the views directus command line', () => {
  it('names the CMS and the database, and refuses a wrong option with the usage', async () => {
    const none = await cli(['views']);
    assert.equal(none.code, 2);
    assert.match(none.err, /name the CMS: views directus/);
    const other = await cli(['views', 'wordpress'], { DATABASE_URL: 'postgres://localhost/x' });
    assert.equal(other.code, 2);
    assert.match(other.err, /unknown CMS "wordpress" \(the generator knows: directus, strapi;/);
    const noDb = await cli(['views', 'directus']);
    assert.equal(noDb.code, 2);
    assert.match(noDb.err, /no database: set DATABASE_URL, or pass --database-url <url>/);
    const map = await cli(['views', 'directus', '--map', 'articles.when=date_published'], { DATABASE_URL: 'postgres://localhost/x' });
    assert.equal(map.code, 2);
    assert.match(map.err, /"when" is not a role; the roles are title, slug, summary, body, date, created, modified/);
    const site = await cli(['views', 'directus', '--site-url', 'news.example'], { DATABASE_URL: 'postgres://localhost/x' });
    assert.match(site.err, /--site-url: "news\.example" is not an http\(s\) URL/);
    const pattern = await cli(['views', 'directus', '--collection', 'articles:articles/{slug}'], { DATABASE_URL: 'postgres://localhost/x' });
    assert.match(pattern.err, /the page URL pattern must be a path starting with \//);
    const same = await cli(['views', 'directus', '--schema', 'public'], { DATABASE_URL: 'postgres://localhost/x' });
    assert.match(same.err, /--schema: the recipe needs a schema of its own, not Directus's \(public\)/);
    const help = await cli(['views', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: express-agent-discovery views directus/);
    assert.match((await cli(['--help'])).out, /^ {2}views +write the SQL of the views road/m);
  });
});

describe('the views directus generator over the fixture', { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let fixture: DirectusDatabase;
  const generate = (...args: string[]) => cli(['views', 'directus', '--database-url', fixture.url, ...args]);
  const setRule = (rule: unknown, collection = 'articles') =>
    fixture.sql(`UPDATE directus_permissions SET permissions = $1::json WHERE collection = $2 AND action = 'read'`, [JSON.stringify(rule), collection]);
  const problem = async (collection = 'articles') =>
    (await fixture.sql<{ problem: string | null }>(`SELECT problem FROM agent.access_rule WHERE collection = $1`, [collection]))[0]?.problem ?? null;
  const visible = async () =>
    (await fixture.sql<{ id: number }>(`SELECT id::int AS id FROM agent.rsc WHERE id < ${SPAN} AND visibility = 'public' AND publication_start <= now() AND (publication_end IS NULL OR publication_end > now()) ORDER BY 1`)).map((r) => r.id);
  const publicIds = async (extra = 'true') =>
    (await fixture.sql<{ id: number }>(`SELECT t.id FROM articles t WHERE t.status = 'published' AND t.date_published <= (now() AT TIME ZONE 'UTC') AND ${extra} ORDER BY 1`)).map((r) => r.id);

  before(async () => {
    fixture = await createDirectusDatabase('generator', 120);
  });

  after(async () => {
    await fixture?.drop();
  });

  it('asks for the mapping of a collection without a date or a slug, and refuses a key that is not an integer', async () => {
    const all = await generate();
    assert.equal(all.code, 2, all.err);
    assert.match(all.err, /collection authors has no date field \(looked for date_published, .*\): name it \(--map authors\.date=<field>\) or serve it undated \(--map authors\.date=none/);
    assert.equal(all.out, '', 'no SQL');
    await fixture.sql(`CREATE TABLE notes (id serial PRIMARY KEY, title varchar(255), date_created timestamptz);
      CREATE TABLE tokens (id uuid PRIMARY KEY, title varchar(255), slug varchar(255), date_created timestamptz);
      INSERT INTO directus_collections (collection) VALUES ('notes'), ('tokens')`);
    const slug = await generate('--collection', 'notes');
    assert.equal(slug.code, 2);
    assert.match(slug.err, /collection notes has no slug field for its page URLs: give the pattern of its pages \(--collection notes:\/notes\/\{id\}\) or its slug field \(--map notes\.slug=<field>\)/);
    assert.equal((await generate('--collection', 'notes:/notes/{id}')).code, 0, 'with a pattern it is served');
    const uuid = await generate('--collection', 'tokens');
    assert.match(uuid.err, /collection tokens: its primary key is id \(uuid\); the generator serves collections whose primary key is one integer column/);
    const unknown = await generate('--collection', 'posts');
    assert.match(unknown.err, /--collection posts: there is no collection "posts" with a table in schema public \(its collections: articles, articles_tags, authors, notes, tags, tokens\)/);
    const field = await generate(...FIXTURE_FLAGS, '--map', 'articles.summary=teaser');
    assert.match(field.err, /--map articles\.summary=teaser: collection articles has no field "teaser"/);
    const zone = await generate(...FIXTURE_FLAGS, '--time-zone', 'Mars/Olympus');
    assert.match(zone.err, /--time-zone: "Mars\/Olympus" is not a time zone PostgreSQL knows/);
    await fixture.sql(`DELETE FROM directus_collections WHERE collection IN ('notes', 'tokens'); DROP TABLE notes, tokens`);
  });

  it('writes the recipe and reports each rule; applied, it serves what the Public policy reads', async () => {
    const run = await generate(...FIXTURE_FLAGS, '--site-url', 'https://news.example/');
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /^-- Generated by express-agent-discovery views directus --database-url postgres:/);
    assert.match(run.err, /articles: category articles, ids id, pages at https:\/\/news\.example\/articles\/\{slug\}/);
    assert.match(run.err, /authors: category authors, ids 1000000000000 \+ id/);
    assert.match(run.err, /predicate has_tags: articles\.tags → tags \(through articles_tags\)/);
    await fixture.sql(run.out);
    assert.deepEqual(await visible(), await publicIds());
    const triggers = async () => (await fixture.sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgname LIKE 'agent\\_%'`))[0]!.n;
    const first = await triggers();
    const again = await generate(...FIXTURE_FLAGS, '--site-url', 'https://news.example/');
    await fixture.sql(again.out);
    assert.deepEqual(await visible(), await publicIds(), 'applied again: the same rows');
    assert.equal(await triggers(), first, 'applied again: the same triggers, none twice');
  });

  it('hides the collection whose rule is outside the subset, whatever is wrong with it, and says why', async () => {
    const cases: [unknown, RegExp][] = [
      [{ title: { _contains: 'ferry' } }, /the operator _contains \(on articles\.title\) is outside the subset/],
      [{ _not: { status: { _eq: 'draft' } } }, /the logical operator _not is outside the subset/],
      [['status'], /a filter must be a JSON object, found array/],
      ['published', /a filter must be a JSON object, found string/],
      [{ colour: { _eq: 'red' } }, /the field colour does not exist in articles/],
      [{ status: { slug: { _eq: 'x' } } }, /the field articles\.status is not a relation the recipe can follow/],
      [{ author: { _some: { slug: { _eq: 'x' } } } }, /_some on articles\.author: _some and _none apply to one-to-many and many-to-many fields only/],
      [{ author: { _eq: '$CURRENT_USER' } }, /the dynamic variable \$CURRENT_USER is outside the subset/],
      [{ date_published: { _lte: '$NOW(-1 day)' } }, /the dynamic variable \$NOW\(-1 day\) is outside the subset/],
      [{ status: { _eq: 'published', _neq: 'draft' } }, /must hold exactly one operator or field \(Directus reads only the first\)/],
      [{ author: { date_created: { _lte: '$NOW' } } }, /the field date_created does not exist in authors/],
      [{ id: { _eq: 'seven' } }, /invalid input syntax for type integer: "seven"/],
      [{ _or: [{ tags: { tags_id: { slug: { _eq: 'a' } } } }, { tags: { tags_id: { slug: { _eq: 'b' } } } }] }, /names the same one-to-many field twice without _some or _none/],
      [{ status: { _in: { a: 1 } } }, /_in on articles\.status needs an array of values/],
    ];
    for (const [rule, reason] of cases) {
      await setRule(rule);
      assert.match((await problem()) ?? 'followed', reason, JSON.stringify(rule));
      assert.deepEqual(await visible(), [], `${JSON.stringify(rule)}: every article hidden`);
    }
    const notices = await fixture.sql<{ subject: string; notice: string }>('SELECT subject, notice FROM agent.access_notice');
    assert.deepEqual(notices.map((n) => n.subject), ['articles']);
    await setRule(RULE);
    assert.equal(await problem(), null);
    assert.deepEqual(await visible(), await publicIds());

    await fixture.sql(`UPDATE directus_permissions SET fields = 'id,title,slug' WHERE collection = 'articles'`);
    assert.match((await problem()) ?? '', /the Public policy may not read body, date_published, date_updated, summary, which the recipe serves/);
    assert.deepEqual(await visible(), []);
    await fixture.sql(`UPDATE directus_permissions SET fields = '*' WHERE collection = 'articles'`);
    await fixture.sql(`DELETE FROM directus_permissions WHERE collection = 'tags'`);
    await setRule({ _and: [...RULE._and, { tags: { _none: { tags_id: { slug: { _eq: 'sponsored' } } } } }] });
    assert.match((await problem()) ?? '', /the rule reads tags, which the Public policy may not read in full/);
    await fixture.sql(`INSERT INTO directus_permissions (collection, action, permissions, fields, policy)
      SELECT 'tags', 'read', NULL, '*', policy FROM directus_permissions WHERE collection = 'articles'`);
    assert.equal(await problem(), null);
    assert.deepEqual(await visible(), await publicIds(`NOT EXISTS (SELECT 1 FROM articles_tags j JOIN tags g ON g.id = j.tags_id WHERE j.articles_id = t.id AND g.slug = 'sponsored')`));
    await fixture.sql(`DELETE FROM directus_access WHERE role IS NULL AND "user" IS NULL`);
    assert.deepEqual(await visible(), [], 'no Public policy: nothing is readable');
    assert.equal(await problem(), null, 'which is a rule, not a problem');
    await fixture.sql(`INSERT INTO directus_access (id, role, "user", policy, sort) VALUES ('38182bd2-0cf5-49a3-a4bc-c45623c8e733', NULL, NULL, 'abf8a154-5b1c-4a46-ac9c-7300570f4f17', 1)`);
    await setRule(RULE);
    assert.deepEqual(await visible(), await publicIds());
  });

  it('follows a rule through a many-to-one field when the related row changes', async () => {
    await setRule({ _and: [...RULE._and, { author: { slug: { _neq: 'ben-quay' } } }] });
    const notBen = `t.author IS DISTINCT FROM 2`;
    assert.deepEqual(await visible(), await publicIds(notBen));
    await fixture.sql(`UPDATE authors SET slug = 'ben' WHERE id = 2`);
    assert.deepEqual(await visible(), await publicIds(), 'Ben renamed: his articles are readable');
    await fixture.sql(`UPDATE authors SET slug = 'ben-quay' WHERE id = 2`);
    assert.deepEqual(await visible(), await publicIds(notBen));
    const [{ id } = { id: 0 }] = await fixture.sql<{ id: number }>(`SELECT t.id FROM articles t WHERE t.author = 2 AND t.status = 'published' AND t.date_published < now() AT TIME ZONE 'UTC' LIMIT 1`);
    await fixture.sql(`UPDATE articles SET author = 1 WHERE id = $1`, [id]);
    assert.ok((await visible()).includes(id), 'moved to another author');
    await setRule(RULE);
  });

  it('doctor and the admin page say what is hidden; doctor suggests --search-path when the relations are in another schema', async () => {
    await setRule({ title: { _contains: 'ferry' } });
    const doctor = await cli(['doctor', '--database-url', fixture.url, '--search-path', 'agent,public']);
    assert.equal(doctor.code, 1);
    assert.match(doctor.out, /^Hidden because the CMS's access rule cannot be followed \(fail closed; 1\):\n✗ articles: the operator _contains/m);
    const json = await cli(['doctor', '--database-url', fixture.url, '--search-path', 'agent,public', '--json']);
    assert.deepEqual(JSON.parse(json.out).accessNotices.map((n: { subject: string }) => n.subject), ['articles']);

    const url = new URL(fixture.url);
    url.searchParams.set('options', '-c search_path=agent,public');
    const agent = await createAgentDiscovery({ siteTitle: 'News', languages: ['en-us'], database: { url: url.href }, migrate: true, isAdmin: () => true, adminSecret: 'x'.repeat(32) });
    const app = express();
    app.use('/admin/agent', agent.adminRouter);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const html = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/admin/agent/plans`)).text();
      assert.match(html, /<p role="alert" id="access-notices">/);
      assert.match(html, /<li><strong>articles<\/strong>: the operator _contains \(on articles\.title\) is outside the subset the recipe follows<\/li>/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await agent.close();
    }
    await setRule(RULE);

    const bare = await cli(['doctor', '--database-url', fixture.url]);
    assert.equal(bare.code, 1);
    assert.match(bare.err, /rsc: the relation is missing/);
    assert.match(bare.err, /The missing relations are in schema agent: run again with --search-path agent,public/);
  });

  it('serves a collection\'s translations as languages, each with its page URL, and follows their edits', async () => {
    await fixture.sql(`
      CREATE TABLE languages (code varchar(255) PRIMARY KEY, name varchar(255));
      INSERT INTO languages VALUES ('en-US', 'English'), ('de-DE', 'German');
      CREATE TABLE pages (id serial PRIMARY KEY, status varchar(255) NOT NULL DEFAULT 'draft', date_created timestamptz DEFAULT now());
      CREATE TABLE pages_translations (id serial PRIMARY KEY, pages_id integer REFERENCES pages (id) ON DELETE SET NULL,
        languages_code varchar(255) REFERENCES languages (code) ON DELETE SET NULL, title varchar(255), slug varchar(255), body text);
      INSERT INTO directus_collections (collection, hidden) VALUES ('languages', false), ('pages', false), ('pages_translations', true);
      INSERT INTO directus_fields (collection, field, special, interface) VALUES
        ('pages', 'translations', 'translations', 'translations'), ('pages', 'date_created', 'date-created', 'datetime'),
        ('pages_translations', 'body', NULL, 'input-rich-text-html');
      INSERT INTO directus_relations (many_collection, many_field, one_collection, one_field, junction_field) VALUES
        ('pages_translations', 'languages_code', 'languages', NULL, 'pages_id'),
        ('pages_translations', 'pages_id', 'pages', 'translations', 'languages_code');
      INSERT INTO directus_permissions (collection, action, permissions, fields, policy)
      SELECT c, 'read', CASE c WHEN 'pages' THEN '{"status":{"_eq":"published"}}'::json END, '*', 'abf8a154-5b1c-4a46-ac9c-7300570f4f17'
      FROM unnest(ARRAY['pages', 'pages_translations', 'languages']) AS c;
      INSERT INTO pages (status) VALUES ('published'), ('draft');
      INSERT INTO pages_translations (pages_id, languages_code, title, slug, body) VALUES
        (1, 'en-US', 'Harbour hours', 'harbour-hours', '<p>Open at dawn.</p>'), (1, 'de-DE', 'Hafenzeiten', 'hafenzeiten', '<p>Offen ab Sonnenaufgang.</p>'),
        (2, 'en-US', 'Draft', 'draft', '<p>Not yet.</p>')`);
    const run = await generate(...FIXTURE_FLAGS, '--collection', 'pages:/{lang}/pages/{slug}', '--site-url', 'https://news.example');
    assert.equal(run.code, 0, run.err);
    await fixture.sql(run.out);
    const k = 3;
    const row = async (item: number) => (await fixture.sql(`SELECT language, title, page_url, body, visibility FROM agent.rsc WHERE id = $1`, [k * SPAN + item]))[0];
    assert.deepEqual(await row(1), {
      language: ['en-us', 'de-de'],
      title: { 'en-us': 'Harbour hours', 'de-de': 'Hafenzeiten' },
      page_url: { 'en-us': 'https://news.example/en-us/pages/harbour-hours', 'de-de': 'https://news.example/de-de/pages/hafenzeiten' },
      body: { 'en-us': '<p>Open at dawn.</p>', 'de-de': '<p>Offen ab Sonnenaufgang.</p>' },
      visibility: 'public',
    });
    assert.equal((await row(2))!.visibility, 'restricted', 'a draft page');
    await fixture.sql(`UPDATE pages_translations SET title = 'Hafen' WHERE languages_code = 'de-DE'`);
    assert.deepEqual((await row(1))!.title, { 'en-us': 'Harbour hours', 'de-de': 'Hafen' });
    await fixture.sql(`DELETE FROM pages_translations WHERE languages_code = 'de-DE'`);
    assert.deepEqual((await row(1))!.language, ['en-us']);
  });

  it('forgets what a TRUNCATE empties, and follows a rule over a truncated table', async () => {
    await setRule({ _and: [...RULE._and, { tags: { _some: { tags_id: { slug: { _eq: 'harbour' } } } } }] });
    assert.ok((await visible()).length > 0);
    await fixture.sql('TRUNCATE articles_tags');
    assert.deepEqual(await visible(), [], 'no article is tagged harbour any more');
    const edges = await fixture.sql<{ n: number }>(`SELECT count(*)::int AS n FROM agent.edge e JOIN agent.resource p ON p.id = e.predicate_id WHERE p.name = 'has_tags'`);
    assert.equal(edges[0]!.n, 0);
    await setRule(RULE);
    assert.ok((await visible()).length > 0);
    await fixture.sql('TRUNCATE articles CASCADE');
    assert.deepEqual(await visible(), []);
    assert.equal((await fixture.sql<{ n: number }>(`SELECT count(*)::int AS n FROM agent.resource WHERE collection_no = 0`))[0]!.n, 0);
  });
});
