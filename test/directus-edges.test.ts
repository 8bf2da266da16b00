import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import request from 'supertest';
import { runCli } from '../src/cli/run.js';
import { createAgentDiscovery } from '../src/index.js';
import { createDirectusDatabase, LICENCE_SQL, type DirectusDatabase } from './fixtures/directus/fixture-database.js';
import { REPO_ROOT } from './support/repo.js';

/**
 * What a real Directus 12 showed the generator (on the Directus 12 fixture): an unlicensed Directus
 * ignores a filtered Public rule (nothing served, a notice; a licence stored or removed is followed);
 * the translations pattern with fields left in the collection applies; a never-edited item's
 * `modified` is its creation and applying again moves no `modified`; the change feed lists only what
 * has a page; a composite key is named as such; every collection the generator cannot serve is
 * reported in one run; setup.sh takes the collections as arguments.
 */

const run = promisify(execFile);
const FLAGS = ['--collection', 'articles:/articles/{slug}', '--collection', 'authors', '--collection', 'tags', '--map', 'authors.date=none', '--map', 'tags.date=none'];
const PUBLIC = `t.status = 'published' AND t.date_published <= (now() AT TIME ZONE 'UTC')`;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { env: {}, out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describe('a Directus without a licence, and one with', { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let fixture: DirectusDatabase;
  const visibleArticles = async () =>
    (await fixture.sql<{ id: number }>(`SELECT id::int AS id FROM agent.rsc WHERE id < 1000000000000 AND visibility = 'public' AND publication_start <= now() AND (publication_end IS NULL OR publication_end > now()) ORDER BY 1`)).map((r) => r.id);
  const publicIds = async () => (await fixture.sql<{ id: number }>(`SELECT t.id FROM articles t WHERE ${PUBLIC} ORDER BY 1`)).map((r) => r.id);
  const notices = async () => fixture.sql<{ subject: string; notice: string }>(`SELECT subject, notice FROM agent.access_notice ORDER BY 1`);

  before(async () => {
    fixture = await createDirectusDatabase('licence', 80, { licensed: false });
  });
  after(async () => {
    await fixture?.drop();
  });

  it('serves nothing of a filtered rule while no licence is stored, says so everywhere, and follows the licence both ways', async () => {
    const generated = await cli(['views', 'directus', '--database-url', fixture.url, ...FLAGS]);
    assert.equal(generated.code, 0, generated.err);
    assert.match(generated.err, /articles: .*\n {4}rule: HIDDEN, the rule cannot be followed: no Directus licence is stored .*Directus Core ignores the Public policy's filtered read rule on articles/);
    assert.match(generated.err, /authors: .*\n {4}rule: every item/, 'an unfiltered rule is enforced without a licence');
    await fixture.sql(generated.out);
    assert.deepEqual(await visibleArticles(), [], 'unlicensed: no article');
    assert.match((await notices())[0]!.notice, /no Directus licence is stored/);
    const authors = await fixture.sql<{ n: number }>(`SELECT count(*)::int AS n FROM agent.rsc WHERE id / 1000000000000 = 1 AND visibility = 'public'`);
    assert.ok(authors[0]!.n > 0, 'authors (no filter) are served');
    const doctor = await cli(['doctor', '--database-url', fixture.url, '--search-path', 'agent,public']);
    assert.equal(doctor.code, 1, 'doctor: a finding');
    assert.match(doctor.out + doctor.err, /articles: no Directus licence is stored/);

    await fixture.sql(LICENCE_SQL);
    const expected = await publicIds();
    assert.ok(expected.length > 30);
    assert.deepEqual(await visibleArticles(), expected, 'licensed: the filter followed on the next read');
    assert.deepEqual(await notices(), []);

    await fixture.sql(`UPDATE directus_settings SET license_token = NULL`);
    assert.deepEqual(await visibleArticles(), [], 'the licence gone: hidden again');
    assert.equal((await notices()).length, 1);
    await fixture.sql(LICENCE_SQL);
    assert.deepEqual(await visibleArticles(), expected);
  });
});

describe('the generator on the edges a real Directus showed', { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let fixture: DirectusDatabase;
  const generate = (...args: string[]) => cli(['views', 'directus', '--database-url', fixture.url, ...args]);

  before(async () => {
    fixture = await createDirectusDatabase('edges', 60);
  });
  after(async () => {
    await fixture?.drop();
  });

  it('reports every collection it cannot serve in one run, a composite key as composite', async () => {
    await fixture.sql(`CREATE TABLE pairs (a integer, b integer, title varchar(255), slug varchar(255), date_created timestamptz, PRIMARY KEY (a, b));
      CREATE TABLE tokens (id uuid PRIMARY KEY, title varchar(255), slug varchar(255), date_created timestamptz);
      INSERT INTO directus_collections (collection) VALUES ('pairs'), ('tokens')`);
    const all = await generate('--collection', 'pairs', '--collection', 'tokens', '--collection', 'authors');
    assert.equal(all.code, 2);
    assert.equal(all.out, '');
    assert.match(all.err, /3 collections cannot be served as asked:/);
    assert.match(all.err, /collection pairs: its primary key is composite \(a, b\)/);
    assert.match(all.err, /collection tokens: its primary key is id \(uuid\)/);
    assert.match(all.err, /collection authors has no date field/);
    await fixture.sql(`DELETE FROM directus_collections WHERE collection IN ('pairs', 'tokens'); DROP TABLE pairs, tokens`);
  });

  it('a never-edited item is modified when it was created, and applying again moves no modified', async () => {
    await fixture.sql(`UPDATE articles SET date_updated = NULL WHERE id IN (1, 2)`);
    const first = await generate(...FLAGS);
    assert.equal(first.code, 0, first.err);
    await fixture.sql(first.out);
    const modified = async () => fixture.sql<{ id: number; modified: Date }>(`SELECT id::float8 AS id, modified FROM agent.resource ORDER BY id`);
    const rows = await fixture.sql<{ same: boolean }>(`SELECT r.modified = (t.date_published AT TIME ZONE 'UTC') AS same FROM agent.resource r JOIN articles t ON r.id = t.id WHERE t.id IN (1, 2)`);
    assert.deepEqual(rows.map((r) => r.same), [true, true], 'date_updated null: the item date');
    const before = await modified();
    await fixture.sql(first.out);
    assert.deepEqual(await modified(), before, 'applied again: every modified as it was (undated authors and tags too)');
    await fixture.sql(`UPDATE tags SET name = name || ' (renamed)' WHERE id = 1`);
    const tag = await fixture.sql<{ recent: boolean }>(`SELECT modified > now() - interval '1 minute' AS recent FROM agent.resource WHERE id = 2000000000001`);
    assert.equal(tag[0]!.recent, true, 'an undated item is modified by a write');
  });

  it('serves translations with fields left in the collection (the SQL applies), and never writes SQL that would not apply', async () => {
    await fixture.sql(`
      CREATE TABLE languages (code varchar(255) PRIMARY KEY, name varchar(255));
      INSERT INTO languages VALUES ('en-US', 'English'), ('nl-NL', 'Dutch');
      CREATE TABLE guides (id serial PRIMARY KEY, title varchar(255), summary text, date_created timestamptz DEFAULT now());
      CREATE TABLE guides_translations (id serial PRIMARY KEY, guides_id integer, languages_code varchar(255), slug varchar(255), body text);
      INSERT INTO directus_collections (collection, hidden) VALUES ('languages', true), ('guides', false), ('guides_translations', true);
      INSERT INTO directus_fields (collection, field, special, interface) VALUES ('guides', 'translations', 'translations', 'translations');
      INSERT INTO directus_relations (many_collection, many_field, one_collection, one_field, junction_field) VALUES
        ('guides_translations', 'languages_code', 'languages', NULL, 'guides_id'),
        ('guides_translations', 'guides_id', 'guides', 'translations', 'languages_code');
      INSERT INTO directus_permissions (collection, action, permissions, fields, policy)
      SELECT c, 'read', NULL, '*', 'abf8a154-5b1c-4a46-ac9c-7300570f4f17' FROM unnest(ARRAY['guides', 'guides_translations', 'languages']) AS c;
      INSERT INTO guides (title, summary) VALUES ('Harbour guide', 'Where the ferries leave.');
      INSERT INTO guides_translations (guides_id, languages_code, slug, body) VALUES
        (1, 'en-US', 'harbour-guide', '<p>Pier one.</p>'), (1, 'nl-NL', 'havengids', '<p>Steiger een.</p>')`);
    const run1 = await generate(...FLAGS, '--collection', 'guides:/{lang}/guides/{slug}', '--map', 'guides.date=date_created');
    assert.equal(run1.code, 0, run1.err);
    await fixture.sql(run1.out);
    const [row] = await fixture.sql(`SELECT language, title, summary, page_url, body, fts::text LIKE '%harbour%' AS searchable FROM agent.rsc WHERE id = 3000000000001`);
    assert.deepEqual(row, {
      language: ['en-us', 'nl-nl'],
      title: { 'en-us': 'Harbour guide', 'nl-nl': 'Harbour guide' },
      summary: { 'en-us': 'Where the ferries leave.', 'nl-nl': 'Where the ferries leave.' },
      page_url: { 'en-us': '/en-us/guides/harbour-guide', 'nl-nl': '/nl-nl/guides/havengids' },
      body: { 'en-us': '<p>Pier one.</p>', 'nl-nl': '<p>Steiger een.</p>' },
      searchable: true,
    });
    // The body left in the collection: the same body in every language.
    await fixture.sql(`ALTER TABLE guides_translations DROP COLUMN body; ALTER TABLE guides ADD COLUMN body text; UPDATE guides SET body = '<p>Both.</p>'`);
    const run2 = await generate(...FLAGS, '--collection', 'guides:/{lang}/guides/{slug}', '--map', 'guides.date=date_created');
    assert.equal(run2.code, 0, run2.err);
    await fixture.sql(run2.out);
    const [again] = await fixture.sql(`SELECT body FROM agent.rsc WHERE id = 3000000000001`);
    assert.deepEqual(again!.body, { 'en-us': '<p>Both.</p>', 'nl-nl': '<p>Both.</p>' });
    // A model the SQL cannot apply to (a field's type PostgreSQL cannot compare) is refused, nothing written.
    await fixture.sql(`ALTER TABLE guides_translations ALTER COLUMN guides_id TYPE text`);
    const broken = await generate(...FLAGS, '--collection', 'guides:/{lang}/guides/{slug}', '--map', 'guides.date=date_created');
    assert.equal(broken.code, 2, broken.err);
    assert.equal(broken.out, '');
    assert.match(broken.err, /the recipe for this model would not apply \(nothing written\): .*operator does not exist/);
    await fixture.sql(`ALTER TABLE guides_translations ALTER COLUMN guides_id TYPE integer USING guides_id::integer`);
  });

  it('the change feed lists only what has a page: no category or predicate', async () => {
    const agent = await createAgentDiscovery({
      siteTitle: 'News',
      database: { url: `${fixture.url}?options=${encodeURIComponent('-c search_path=agent,public')}` },
      migrate: true,
      llmsFull: false,
    });
    try {
      const app = express().use(agent.router);
      const ids: number[] = [];
      let url: string | undefined = '/api/agent/changes?pagelen=100';
      while (url) {
        const { result }: { result: { items: { type: string; id: number }[]; next: boolean; next_url: string } } = (await request(app).get(url).set('accept', 'application/json').expect(200)).body;
        ids.push(...result.items.filter((i: { type: string }) => i.type === 'changed').map((i: { id: number }) => i.id));
        url = result.next ? new URL(result.next_url).pathname + new URL(result.next_url).search : undefined;
      }
      assert.ok(ids.length > 40);
      assert.deepEqual(ids.filter((id) => id >= 9_000_000_000_000_000), [], 'no vocabulary entry');
      const articles = (await fixture.sql<{ id: number }>(`SELECT t.id FROM articles t WHERE ${PUBLIC}`)).map((r) => r.id);
      for (const id of articles) assert.ok(ids.includes(id), `article ${id} in the feed`);
    } finally {
      await agent.close();
    }
  });

  it('setup.sh takes the collections as arguments', async () => {
    const work = mkdtempSync(join(tmpdir(), 'directus-setup-'));
    try {
      const out = await run('bash', ['examples/cms/directus/setup.sh', '--collection', 'articles:/news/{slug}', '--collection', 'authors', '--map', 'authors.date=none'], {
        cwd: REPO_ROOT,
        env: { ...process.env, DATABASE_URL: fixture.url, RECIPE_SQL: join(work, 'r.sql'), EXPRESS_AGENT_DISCOVERY: `${process.execPath} --import tsx src/cli/main.ts` },
      });
      assert.match(out.stderr + out.stdout, /pages at \/news\/\{slug\}/);
      assert.doesNotMatch(out.stderr + out.stdout, /tags: category/);
      const served = await fixture.sql<{ collection: string }>(`SELECT collection FROM agent.collection ORDER BY number`);
      assert.deepEqual(served.map((r) => r.collection), ['articles', 'authors']);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

