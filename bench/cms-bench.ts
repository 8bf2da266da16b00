/**
 * The Wiki.js recipe (examples/cms/wikijs) against the plugin's own schema, same content, same server.
 *
 * Generates the Wiki.js 2.x fixture (test/fixtures/wikijs-2/schema.sql) in bulk, in the seed's shapes,
 * at `BENCH_PAGES_PER_LOCALE` pages per locale (default 100,000; en and de), applies the recipe's SQL
 * files with psql (database `ead_bench_wikijs`), and loads the same resources, vocabulary and edges
 * into the plugin's own migrated schema (`migrateToLatest`, database `ead_bench_wikijs_native`). Both
 * are kept between runs. Then two plugin instances (both `textSearch: english`) are measured over HTTP
 * side by side, alternating in each round: the first search page (sort=newest), page 50 of its keyset
 * walk, a rare word, a common word, an absent word, the predicate list and a resource read, with p50s, the ratio
 * recipe/native, and deep/first on each side. Both must answer the same ids.
 *
 *   npx tsx bench/cms-bench.ts            (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import express from 'express';
import pg from 'pg';
import { createAgentDiscovery, type AgentDiscovery } from '../src/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { openDatabase } from '../src/db/connection.js';
import { keptDatabase } from './kept-database.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PER_LOCALE = Number(process.env.BENCH_PAGES_PER_LOCALE ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const REPO = fileURLToPath(new URL('..', import.meta.url));
const RECIPE = `${REPO}examples/cms/wikijs/`;
const RECIPE_DB = 'ead_bench_wikijs';
const NATIVE_DB = 'ead_bench_wikijs_native';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const log = (line: string) => process.stdout.write(`${line}\n`);

const psql = (url: string, args: string[]) => {
  const r = spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`psql ${args.join(' ')} failed`);
};

/** The words of the seed, per locale. */
const WORDS = {
  en: ['harbour', 'ferry', 'network', 'deployment', 'kubernetes', 'backup', 'database', 'onboarding', 'policy', 'security',
    'monitoring', 'alerting', 'release', 'incident', 'runbook', 'storage', 'gateway', 'certificate', 'migration', 'latency',
    'schedule', 'budget', 'customer', 'invoice', 'warehouse', 'pipeline', 'compiler', 'library', 'cluster', 'firewall'],
  de: ['hafen', 'fähre', 'netzwerk', 'bereitstellung', 'sicherung', 'datenbank', 'einarbeitung', 'richtlinie', 'sicherheit',
    'überwachung', 'alarmierung', 'veröffentlichung', 'störung', 'betriebshandbuch', 'speicher', 'zertifikat', 'migration',
    'latenz', 'zeitplan', 'haushalt', 'kunde', 'rechnung', 'lager', 'pipeline', 'übersetzer', 'bibliothek', 'firewall'],
};
const FILLER = {
  en: 'The team reviews this procedure every quarter and records the outcome in the change log. Ask in the support channel when a step is unclear.',
  de: 'Das Team prüft dieses Verfahren jedes Quartal und hält das Ergebnis im Änderungsprotokoll fest. Fragen Sie im Support-Kanal, wenn ein Schritt unklar ist.',
};

/**
 * The seed's shapes (test/fixtures/wikijs-2/seed.mjs) in set-based SQL: the same users, groups (Guests
 * with the deny rule on internal/), tags; pages en then de with about 12 % hidden (draft, internal/,
 * isPrivate, future start, ended), 100 per locale sharing one createdAt, the render's structure and
 * sizes; 0 to 6 links per page within its locale (5 % of pages with a broken one), 0 to 4 tags.
 */
function bulkFixture(n: number): string {
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const arr = (a: string[]) => `ARRAY[${a.map(lit).join(',')}]`;
  const now = `'2019-01-01T00:00:00.000Z'`;
  return `
SELECT setseed(0.42);
INSERT INTO authentication (key, config, "domainWhitelist", "autoEnrollGroups", "strategyKey", "displayName")
  VALUES ('local', '{}', '{"v":[]}', '{"v":[]}', 'local', 'Local');
INSERT INTO editors (key, "isEnabled", config) VALUES ('markdown', true, '{}'), ('ckeditor', true, '{}');
INSERT INTO locales (code, name, "nativeName", availability, "createdAt", "updatedAt")
  VALUES ('en', 'English', 'English', 100, ${now}, ${now}), ('de', 'German', 'Deutsch', 100, ${now}, ${now});
INSERT INTO groups (id, name, permissions, "pageRules", "isSystem", "createdAt", "updatedAt") VALUES
  (1, 'Administrators', '["manage:system"]', '[{"id":"admin","deny":false,"match":"START","roles":["manage:system"],"path":"","locales":[]}]', true, ${now}, ${now}),
  (2, 'Guests', '["read:pages","read:assets","read:comments"]',
    '[{"id":"guest","deny":false,"match":"START","roles":["read:pages","read:assets","read:comments"],"path":"","locales":[]},
      {"id":"nointernal","deny":true,"match":"START","roles":["read:pages","read:assets","read:comments","read:source","read:history"],"path":"internal","locales":[]}]',
    true, ${now}, ${now});
SELECT setval('groups_id_seq', 2);
INSERT INTO users (email, name, "isSystem", "isActive", "isVerified", "createdAt", "updatedAt")
  SELECT e, n, false, true, true, ${now}, ${now}
  FROM (VALUES ('admin@example.com', 'Administrator'), ('guest@example.com', 'Guest'), ('anna@example.com', 'Anna Berger'), ('tom@example.com', 'Tom Hale')) v (e, n);
INSERT INTO tags (tag, title, "createdAt", "updatedAt")
  SELECT t, initcap(t), ${now}, ${now}
  FROM unnest(${arr([...WORDS.en, 'getting started', 'how-to', 'faq', 'архив', 'q3-2024', 'legacy', 'draft-review', 'api', 'ops', 'hr'])}) t;

CREATE TEMP TABLE gen AS
WITH w (locale, words, filler) AS (VALUES ('en', ${arr(WORDS.en)}, ${lit(FILLER.en)}), ('de', ${arr(WORDS.de)}, ${lit(FILLER.de)}))
SELECT w.locale, i, w.words, w.filler,
  w.words[1 + floor(random() * array_length(w.words, 1))::int] AS a,
  w.words[1 + floor(random() * array_length(w.words, 1))::int] AS b,
  (ARRAY['guides','howto','reference','teams','projects','policies'])[1 + floor(random() * 6)::int] AS section,
  random() AS r,
  CASE WHEN i % 5 = 0 AND i < 500 THEN timestamptz '2021-03-01T00:00:00Z'
       ELSE timestamptz '2019-01-01T00:00:00Z' + random() * (timestamptz '2025-10-01T00:00:00Z' - timestamptz '2019-01-01T00:00:00Z') END AS created,
  floor(random() * 401)::int AS updated_days
FROM w CROSS JOIN generate_series(0, ${n} - 1) i;

INSERT INTO pages (path, hash, title, description, "isPrivate", "isPublished", "privateNS", "publishStartDate", "publishEndDate", content, render, toc,
  "contentType", "createdAt", "updatedAt", "editorKey", "localeCode", "authorId", "creatorId", extra)
SELECT CASE WHEN kind = 'internal' THEN 'internal/' ELSE section || '/' END || a || '/' || b || '-' || i,
  md5(locale || i), title, description, kind = 'isPrivate', kind <> 'draft', NULL,
  CASE WHEN kind = 'future' THEN '2031-01-01' WHEN i % 17 = 0 THEN to_char((created + interval '1 day') AT TIME ZONE 'UTC', 'YYYY-MM-DD') ELSE '' END,
  CASE WHEN kind = 'ended' THEN '2020-01-01' ELSE '' END,
  '# ' || title, render, '[]', 'markdown',
  to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  to_char((created + updated_days * interval '1 day') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'markdown', locale, 1 + i % 4, 1 + i % 4, '{"js":"","css":""}'
FROM (
  SELECT g.*, k.kind,
    CASE WHEN locale = 'en' THEN initcap(a) || ' and ' || b || ': notes ' || i ELSE initcap(a) || ' und ' || b || ': Notizen ' || i END
      || CASE WHEN k.kind = 'public' THEN '' ELSE ' classifiedzebra' END AS title,
    CASE WHEN locale = 'en' THEN 'How we handle ' || a || ' and ' || b || '.' ELSE 'Wie wir mit ' || a || ' und ' || b || ' umgehen.' END
      || CASE WHEN k.kind = 'public' THEN '' ELSE ' classifiedzebra' END AS description,
    '<h1 class="toc-header" id="overview"><a href="#overview" class="toc-anchor">¶</a> ' || CASE WHEN locale = 'en' THEN 'Overview' ELSE 'Überblick' END || E'</h1>\\n' ||
    '<p>This page covers <strong>' || a || '</strong> and <em>' || b || '</em>. ' || CASE WHEN k.kind = 'public' THEN '' ELSE 'classifiedzebra internal note.' END || E'</p>\\n' ||
    repeat('<p>' || filler || ' ' || words[1 + (i * 7) % array_length(words, 1)] || ' ' || words[1 + (i * 13) % array_length(words, 1)] || E'.</p>\\n',
      CASE WHEN i % 10 = 0 THEN 40 + i % 51 ELSE 4 + i % 11 END) ||
    '<table><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody><tr><td>' || a || '</td><td>' || b || E'</td></tr></tbody></table>\\n' AS render
  FROM gen g CROSS JOIN LATERAL (SELECT CASE WHEN g.r < 0.04 THEN 'draft' WHEN g.r < 0.07 THEN 'internal' WHEN g.r < 0.08 THEN 'isPrivate'
    WHEN g.r < 0.10 THEN 'future' WHEN g.r < 0.12 THEN 'ended' ELSE 'public' END AS kind) k
  ORDER BY locale = 'de', i
) x;

CREATE TEMP TABLE link_pick AS
SELECT DISTINCT p.id AS page_id, b.first_id + floor(random() * b.n)::int AS target_id
FROM pages p
JOIN (SELECT "localeCode", min(id) AS first_id, count(*) AS n FROM pages GROUP BY 1) b ON b."localeCode" = p."localeCode"
CROSS JOIN LATERAL generate_series(1, floor(random() * 7)::int + (p.id * 0)) k;
INSERT INTO "pageLinks" (path, "localeCode", "pageId")
SELECT t.path, t."localeCode", l.page_id FROM link_pick l JOIN pages t ON t.id = l.target_id WHERE l.target_id <> l.page_id;
INSERT INTO "pageLinks" (path, "localeCode", "pageId") SELECT 'missing/page-' || p.id, p."localeCode", p.id FROM pages p WHERE random() < 0.05;
INSERT INTO "pageTags" ("pageId", "tagId")
SELECT DISTINCT p.id, 1 + floor(random() * 40)::int + (k * 0) FROM pages p CROSS JOIN LATERAL generate_series(1, floor(random() * 5)::int + (p.id * 0)) k;
ANALYZE;`;
}

async function scalar(url: string, text: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query(text)).rows[0]?.n ?? 0);
  } catch {
    return -1;
  } finally {
    await client.end();
  }
}

async function recreate(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  return keptDatabase(SERVER, name);
}

/** The Wiki.js database with the recipe applied, generated unless already there at this size. */
async function recipeDatabase(): Promise<string> {
  let url = await keptDatabase(SERVER, RECIPE_DB);
  if ((await scalar(url, `SELECT count(*) AS n FROM agent.rsc WHERE id < 2147483000`)) === 2 * PER_LOCALE) return url;
  url = await recreate(RECIPE_DB);
  let t = Date.now();
  log(`generating the Wiki.js fixture at ${PER_LOCALE.toLocaleString('en')} pages per locale (kept in ${RECIPE_DB})...`);
  psql(url, ['-f', `${REPO}test/fixtures/wikijs-2/schema.sql`]);
  psql(url, ['-c', bulkFixture(PER_LOCALE)]);
  log(`  ${((Date.now() - t) / 1000).toFixed(0)} s; applying the recipe...`);
  for (const file of readdirSync(RECIPE).filter((f) => f.endsWith('.sql')).sort()) {
    t = Date.now();
    psql(url, ['-f', `${RECIPE}${file}`]);
    log(`  ${file}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  return url;
}

/**
 * The plugin's own schema (migrateToLatest) holding the recipe's resources, vocabulary and edges as
 * they are: same ids, same text vectors (the fts trigger is off during the load), so both answer alike.
 */
async function nativeDatabase(recipeUrl: string): Promise<string> {
  let url = await keptDatabase(SERVER, NATIVE_DB);
  if ((await scalar(url, `SELECT count(*) AS n FROM rsc WHERE id < 2147483000`)) === 2 * PER_LOCALE) return url;
  url = await recreate(NATIVE_DB);
  log(`loading the same content into the plugin's own schema (kept in ${NATIVE_DB})...`);
  const content = await openDatabase({ url });
  await migrateToLatest(content.db);
  await content.close();
  const from = new pg.Client({ connectionString: recipeUrl, options: '-c search_path=agent,public' });
  const to = new pg.Client({ connectionString: url });
  await from.connect();
  await to.connect();
  const t = Date.now();
  const columns = 'id, name, category_id, is_published, visibility, publication_start, publication_end, created, modified, language, title, summary, body, blocks, props, seo_noindex, uri, license, attribution, fts, page_url';
  const copy = async (select: string, table: string) => {
    const { rows } = await from.query<{ batch: string | null }>(`SELECT json_agg(t)::text AS batch FROM (${select}) t`);
    if (rows[0]?.batch) await to.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [rows[0].batch]);
  };
  await to.query('ALTER TABLE rsc DISABLE TRIGGER rsc_fts_trigger');
  await to.query('BEGIN');
  await copy(`SELECT ${columns} FROM rsc WHERE id > 2147483000`, 'rsc');
  await copy('SELECT id, parent_id, is_noindex FROM category', 'category');
  await copy('SELECT predicate_id, is_subject, category_id FROM predicate_category', 'predicate_category');
  await to.query('COMMIT');
  const step = 5000;
  for (let id = 0; id < 2 * PER_LOCALE + step; id += step) {
    await copy(`SELECT ${columns} FROM rsc WHERE id > ${id} AND id <= ${id + step}`, 'rsc');
  }
  await copy('SELECT id, subject_id, predicate_id, object_id, seq, created FROM edge', 'edge');
  await to.query('ALTER TABLE rsc ENABLE TRIGGER rsc_fts_trigger');
  await to.query('ANALYZE');
  log(`  ${((Date.now() - t) / 1000).toFixed(0)} s`);
  await from.end();
  await to.end();
  return url;
}

async function serve(agent: AgentDiscovery): Promise<{ server: Server; base: string }> {
  const app = express();
  app.use(agent.router);
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

async function timed(url: string): Promise<{ ms: number; result: any }> {
  const t = process.hrtime.bigint();
  const res = await fetch(url);
  const body = (await res.json()) as { result: any };
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, result: body.result };
}

const ids = (result: any) => JSON.stringify(result.items.map((i: any) => i.id ?? i.resource?.id));

async function main(): Promise<void> {
  const recipeUrl = await recipeDatabase();
  const nativeUrl = await nativeDatabase(recipeUrl);
  const withSearchPath = new URL(recipeUrl);
  withSearchPath.searchParams.set('options', '-c search_path=agent,public');
  const common = { siteTitle: 'Bench wiki', languages: ['en', 'de'], textSearch: { configuration: 'english' }, migrate: true };
  const sides = {
    recipe: await createAgentDiscovery({ ...common, database: { url: withSearchPath.href, poolSize: 4 } }),
    native: await createAgentDiscovery({ ...common, database: { url: nativeUrl, poolSize: 4 } }),
  };
  const servers = { recipe: await serve(sides.recipe), native: await serve(sides.native) };

  // The requests, each the same path on both sides but page 50 (its own continuation on each side).
  const rare = String(PER_LOCALE - 7); // a title number: "notes N" and "Notizen N", two pages
  const same = (path: string) => ({ recipe: path, native: path });
  const paths: Record<string, { recipe: string; native: string }> = {
    'search, first page (newest)': same('/api/agent/search?sort=newest&pagelen=20'),
    'search, page 50 (keyset)': same(''),
    [`text=${rare} (rare)`]: same(`/api/agent/search?text=${rare}&pagelen=20`),
    'text=ferry (common, English pages only)': same('/api/agent/search?text=ferry&pagelen=20'),
    'text, absent word': same('/api/agent/search?text=zzqxabsent&pagelen=20'),
    'schema, kind=predicate': same('/api/agent/schema?kind=predicate'),
    'resource read (JSON)': same(''),
  };
  for (const side of ['recipe', 'native'] as const) {
    let next = `${servers[side].base}${paths['search, first page (newest)']![side]}`;
    for (let page = 1; page < 50; page++) next = (await timed(next)).result.next_url;
    paths['search, page 50 (keyset)']![side] = next.slice(servers[side].base.length);
  }
  const { result: deep } = await timed(servers.recipe.base + paths['search, page 50 (keyset)']!.recipe);
  paths['resource read (JSON)'] = same(`/api/agent/resource/${deep.items[0].id}`); // a page from deep in the walk
  for (const [name, path] of Object.entries(paths)) {
    const [a, b] = [await timed(servers.recipe.base + path.recipe), await timed(servers.native.base + path.native)];
    const alike = name.startsWith('resource') ? a.result.id === b.result.id : ids(a.result) === ids(b.result);
    if (!alike) throw new Error(`${name}: the recipe and the plugin's schema answer differently`);
  }

  const times: Record<string, { recipe: number[]; native: number[] }> = {};
  for (const name of Object.keys(paths)) times[name] = { recipe: [], native: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? (['native', 'recipe'] as const) : (['recipe', 'native'] as const);
    for (const [name, path] of Object.entries(paths)) {
      for (const side of order) times[name]![side].push((await timed(servers[side].base + path[side])).ms);
    }
  }

  const p50 = (name: string, side: 'recipe' | 'native') => pct(times[name]![side], 50);
  log(`\nWiki.js recipe vs the plugin's own schema: ${(2 * PER_LOCALE).toLocaleString('en')} pages, PostgreSQL, ${ROUNDS} alternating rounds over HTTP`);
  log('\n| request | recipe p50 ms | native p50 ms | recipe/native |');
  log('|---|---|---|---|');
  for (const name of Object.keys(paths)) {
    log(`| ${name} | ${p50(name, 'recipe').toFixed(2)} | ${p50(name, 'native').toFixed(2)} | ${(p50(name, 'recipe') / p50(name, 'native')).toFixed(2)} |`);
  }
  for (const side of ['recipe', 'native'] as const) {
    log(`deep/first (${side}): ${(p50('search, page 50 (keyset)', side) / p50('search, first page (newest)', side)).toFixed(2)}`);
  }
  for (const side of ['recipe', 'native'] as const) {
    servers[side].server.close();
    await sides[side].close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
