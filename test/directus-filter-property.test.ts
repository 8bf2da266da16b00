import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readDirectusModel } from '../src/recipes/directus/directus-model.js';
import { planRecipe } from '../src/recipes/directus/recipe-plan.js';
import { recipeSql } from '../src/recipes/directus/recipe-sql.js';
import type { RecipeRequest } from '../src/recipes/directus/recipe-request.js';
import { createDirectusDatabase, type DirectusDatabase } from './fixtures/directus/fixture-database.js';

/**
 * The translator of Directus's filter language (PL/pgSQL, in the recipe) against an independent
 * reading of the same filters: random filters of the subset over the fixture's articles (their own
 * fields, the many-to-one author, the many-to-many tags through the junction, `_and`/`_or`, `$NOW`),
 * evaluated by PostgreSQL from the translation and by a reference evaluator written here from
 * Directus's semantics (three-valued, as its SQL is), must select the same articles; and set as the
 * Public policy's rule in `directus_permissions`, the visibility the triggers compute must be exactly
 * the rule's answer now, and never wider at a later instant.
 */

type Row = Record<string, string | number | null>;
type T = boolean | null; // SQL's three values

const and = (a: T, b: T): T => (a === false || b === false ? false : a === null || b === null ? null : true);
const or = (a: T, b: T): T => (a === true || b === true ? true : a === null || b === null ? null : false);
const not = (a: T): T => (a === null ? null : !a);

interface Data {
  articles: Row[];
  authors: Map<number, Row>;
  tags: Map<number, Row>;
  junction: Row[];
}

/** The column types the reference compares by. */
const TYPES: Record<string, Record<string, 'int' | 'text' | 'time'>> = {
  articles: { id: 'int', status: 'text', slug: 'text', title: 'text', author: 'int', date_published: 'time' },
  authors: { id: 'int', name: 'text', slug: 'text' },
  tags: { id: 'int', name: 'text', slug: 'text' },
  articles_tags: { id: 'int', articles_id: 'int', tags_id: 'int' },
};

/** A Datetime without zone, written in UTC (the fixture's server zone), as milliseconds. */
const ms = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`);

/** Directus's semantics of one condition on a column (operator.ts), in three values. */
function condition(type: 'int' | 'text' | 'time', value: string | number | null, op: string, arg: unknown, at: number): T {
  const cast = (v: unknown): number | string => (v === '$NOW' ? at : type === 'int' ? Number(v) : type === 'time' ? ms(String(v)) : String(v));
  const col = value === null ? null : type === 'time' ? ms(String(value)) : type === 'int' ? Number(value) : String(value);
  if (op === '_null') return arg === false ? col !== null : col === null;
  if (op === '_nnull') return arg === false ? col === null : col !== null;
  if ((op === '_eq' || op === '_neq') && arg === null) return op === '_eq' ? col === null : col !== null;
  if (col === null) return null;
  if (op === '_eq') return col === cast(arg);
  if (op === '_neq') return not(col === cast(arg));
  if (op === '_in' || op === '_nin') {
    const list = arg as unknown[];
    if (!list.length) return op === '_nin';
    const found = list.some((v) => col === cast(v));
    return op === '_in' ? found : !found;
  }
  const c = cast(arg);
  return op === '_lt' ? col < c : op === '_lte' ? col <= c : op === '_gt' ? col > c : col >= c;
}

function evaluate(data: Data, coll: string, node: Record<string, unknown>, row: Row, at: number): T {
  let result: T = true;
  for (const [key, value] of Object.entries(node)) {
    if (key === '_and' || key === '_or') {
      const list = value as Record<string, unknown>[];
      if (key === '_or' && list.some((e) => Object.keys(e).length === 0)) continue;
      if (!list.length) continue;
      const parts = list.map((e) => evaluate(data, coll, e, row, at));
      result = and(result, parts.reduce(key === '_and' ? and : or));
      continue;
    }
    const condition_ = (typeof value === 'object' && value !== null ? value : { _eq: value }) as Record<string, unknown>;
    const [op, arg] = Object.entries(condition_)[0]!;
    if (coll === 'articles' && key === 'tags') {
      const children = data.junction.filter((j) => j.articles_id === row.id);
      const sub = (op === '_some' || op === '_none' ? arg : condition_) as Record<string, unknown>;
      const some = children.some((j) => evaluate(data, 'articles_tags', sub, j, at) === true);
      result = and(result, op === '_none' ? !some : some);
    } else if (!op.startsWith('_')) {
      const [target, lookup] = coll === 'articles' ? ['authors', data.authors] as const : ['tags', data.tags] as const;
      const joined = lookup.get(Number(row[key])) ?? {};
      result = and(result, evaluate(data, target, condition_, joined, at));
    } else {
      result = and(result, condition(TYPES[coll]![key]!, row[key] ?? null, op, arg, at));
    }
  }
  return result;
}

describe('the Directus filter translator against PostgreSQL, for random filters of the subset', { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let fixture: DirectusDatabase;
  let data: Data;
  let slugs: { articles: string[]; authors: string[]; tags: string[] };
  let dates: string[];

  before(async () => {
    fixture = await createDirectusDatabase('property', 300);
    const request: RecipeRequest = {
      collections: [{ name: 'articles', pattern: '/articles/{slug}' }, { name: 'authors', pattern: undefined }, { name: 'tags', pattern: undefined }],
      mappings: new Map([['authors', new Map([['date', null]])], ['tags', new Map([['date', null]])]]),
      predicates: new Map(),
      siteUrl: undefined,
      recipeSchema: 'agent',
      directusSchema: 'public',
      timeZone: 'UTC',
      textSearch: 'simple',
      language: undefined,
    };
    const client = await fixture.pool.connect();
    try {
      const plan = planRecipe(await readDirectusModel(client, 'public', 'agent'), request);
      await client.query(recipeSql(plan));
    } finally {
      client.release();
    }
    const articles = await fixture.sql<Row>('SELECT id, status, slug, title, author, date_published::text AS date_published FROM articles ORDER BY id');
    data = {
      articles,
      authors: new Map((await fixture.sql<Row>('SELECT id, name, slug FROM authors')).map((r) => [Number(r.id), r])),
      tags: new Map((await fixture.sql<Row>('SELECT id, name, slug FROM tags')).map((r) => [Number(r.id), r])),
      junction: await fixture.sql<Row>('SELECT id, articles_id, tags_id FROM articles_tags'),
    };
    slugs = {
      articles: articles.slice(0, 5).map((a) => String(a.slug)),
      authors: [...data.authors.values()].map((a) => String(a.slug)),
      tags: [...data.tags.values()].map((t) => String(t.slug)),
    };
    dates = articles.flatMap((a) => (a.date_published ? [String(a.date_published)] : [])).filter((_, i) => i % 37 === 0);
  });

  after(async () => {
    await fixture?.drop();
  });

  /** Random filters of the subset over articles. */
  function filters(): fc.Arbitrary<Record<string, unknown>> {
    const equality = (values: fc.Arbitrary<unknown>) => fc.oneof(
      values.map((v) => ({ _eq: v })), values.map((v) => ({ _neq: v })),
      fc.array(values, { maxLength: 3 }).map((v) => ({ _in: v })), fc.array(values, { maxLength: 3 }).map((v) => ({ _nin: v })),
      fc.constantFrom(true, false).map((b) => ({ _null: b })), fc.constantFrom(true, false).map((b) => ({ _nnull: b })),
      fc.constantFrom({ _eq: null }, { _neq: null }),
    );
    const ordered = (values: fc.Arbitrary<unknown>) => fc.oneof(
      equality(values),
      fc.tuple(fc.constantFrom('_lt', '_lte', '_gt', '_gte'), values).map(([op, v]) => ({ [op]: v })),
    );
    const id = fc.integer({ min: 0, max: 310 });
    const status = fc.constantFrom('published', 'draft', 'archived', 'gone');
    const when = fc.oneof(fc.constant('$NOW'), fc.constantFrom(...dates));
    const tagCondition = fc.oneof(
      equality(fc.constantFrom(...slugs.tags, 'nope')).map((c) => ({ tags_id: { slug: c } })),
      ordered(fc.integer({ min: 0, max: 9 })).map((c) => ({ tags_id: c })),
    );
    const leaf = fc.oneof(
      equality(status).map((c) => ({ status: c })),
      status.map((s) => ({ status: s })),
      ordered(id).map((c) => ({ id: c })),
      ordered(fc.integer({ min: 0, max: 7 })).map((c) => ({ author: c })),
      fc.tuple(fc.constantFrom('_lt', '_lte', '_gt', '_gte'), when).map(([op, v]) => ({ date_published: { [op]: v } })),
      fc.constantFrom(true, false).map((b) => ({ date_published: { _null: b } })),
      equality(fc.constantFrom(...slugs.articles, 'nope')).map((c) => ({ slug: c })),
      equality(fc.constantFrom(...slugs.authors, 'nope')).map((c) => ({ author: { slug: c } })),
      fc.tuple(fc.constantFrom('_some', '_none'), tagCondition).map(([op, c]) => ({ tags: { [op]: c } })),
      fc.constant({}),
    );
    return fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.tuple(fc.constantFrom('_and', '_or'), fc.array(tie('node'), { maxLength: 3 })).map(([k, v]) => ({ [k]: v })),
        fc.tuple(leaf, leaf).map(([a, b]) => ({ ...b, ...a })),
      ),
    })).node;
  }

  const expected = (filter: Record<string, unknown>, at: number) =>
    data.articles.filter((a) => evaluate(data, 'articles', filter, a, at) === true).map((a) => Number(a.id));

  it('selects exactly the articles the reference selects, at random instants', async () => {
    await fc.assert(
      fc.asyncProperty(filters(), fc.integer({ min: -40, max: 40 }), async (filter, days) => {
        const at = Date.now() + days * 86_400_000;
        const [{ r } = { r: { sql: '' } }] = await fixture.sql<{ r: { sql: string } }>(`SELECT agent.directus_filter_sql('articles', $1::jsonb, 't', 's', '[]') AS r`, [JSON.stringify(filter)]);
        const rows = await fixture.sql<{ id: number }>(
          `SELECT t.id FROM public.articles t, (SELECT $1::timestamptz AS p_at) p WHERE coalesce(${r.sql}, false) ORDER BY t.id`,
          [new Date(at).toISOString()],
        );
        assert.deepEqual(rows.map((x) => x.id), expected(filter, at), `${JSON.stringify(filter)} → ${r.sql}`);
      }),
      { numRuns: 250 },
    );
  });

  it('set as the Public policy\'s rule, gives each article the window the rule has from now on', async () => {
    const visibleAt = (instant: string) => fixture.sql<{ id: number }>(
      `SELECT id::int AS id FROM agent.rsc WHERE id < 1000000000000 AND is_published AND visibility = 'public'
         AND publication_start <= $1::timestamptz AND (publication_end IS NULL OR publication_end > $1::timestamptz) ORDER BY id`,
      [instant],
    );
    await fc.assert(
      fc.asyncProperty(filters(), fc.integer({ min: 1, max: 40 }), async (filter, days) => {
        await fixture.sql('UPDATE directus_permissions SET permissions = $1::json WHERE collection = $2', [JSON.stringify(filter), 'articles']);
        const [rule] = await fixture.sql<{ problem: string | null }>(`SELECT problem FROM agent.access_rule WHERE collection = 'articles'`);
        assert.equal(rule!.problem, null, JSON.stringify(filter));
        // The database's clock, to the microsecond (a window may start at the very instant of the update).
        const [clock] = await fixture.sql<{ at: string; ms: string }>(`SELECT now()::text AS at, floor(extract(epoch FROM now()) * 1000)::text AS ms`);
        const now = Number(clock!.ms);
        const nowRows = await visibleAt(clock!.at);
        assert.deepEqual(nowRows.map((x) => x.id), expected(filter, now), `now: ${JSON.stringify(filter)}`);
        const later = now + days * 86_400_000;
        const allowed = new Set(expected(filter, later));
        const wider = (await visibleAt(new Date(later).toISOString())).filter((x) => !allowed.has(x.id));
        assert.deepEqual(wider, [], `${days} days later, readable though the rule says no: ${JSON.stringify(filter)}`);
      }),
      { numRuns: 60 },
    );
  });
});
