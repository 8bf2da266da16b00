import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { backends, type TestDatabase } from './support/backends.js';
import { startTcpProxy } from './support/tcp-proxy.js';
import { createContentWriter, ContentPushError, type ContentWriter, type Database, type ResourceInput } from '../src/index.js';
import { openDatabase } from '../src/db/connection.js';

/**
 * `putMany` writes what `put` one by one writes (the same stored state, whatever the batch size, with
 * repeated ids and refused items); a refused item fails only its batch, which leaves nothing; a lost
 * connection or a terminated backend is `unavailable` and retryable, and leaves nothing partial.
 */

const STRING_IDS = ['5f2b9c1e8a4d3b0017a1c2d3', '5f2b9c1e8a4d3b0017a1c2d4', 'c1a2b3', 'uuid-0001', 'uuid-0002', 'ghost-a'];
const NUMERIC_IDS = [7001, 7002, 7003];
const DAY = 86_400_000;

const resourceArb: fc.Arbitrary<ResourceInput> = fc
  .record({
    id: fc.constantFrom<string | number>(...STRING_IDS, ...NUMERIC_IDS),
    category: fc.constantFrom('post', 'page'),
    title: fc.oneof(fc.string({ maxLength: 12 }), fc.record({ en: fc.string({ maxLength: 8 }), nl: fc.string({ maxLength: 8 }) })),
    summary: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
    body: fc.option(fc.string({ maxLength: 40 }).map((t) => `<p>${t}</p>`), { nil: undefined }),
    is_published: fc.boolean(),
    visibility: fc.constantFrom('public', 'members'),
    start: fc.integer({ min: -400, max: 20 }),
    end: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
    modified: fc.integer({ min: 0, max: 1000 }),
    named: fc.boolean(),
    props: fc.option(fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.boolean())), { nil: undefined }),
    blocks: fc.option(fc.array(fc.record({ type: fc.constantFrom('text', 'quote'), body: fc.string({ maxLength: 10 }) }), { maxLength: 3 }), { nil: undefined }),
  })
  .map((r) => {
    const start = Date.UTC(2025, 0, 1) + r.start * DAY;
    return {
      id: r.id,
      category: r.category,
      title: r.title,
      summary: r.summary,
      body: r.body,
      is_published: r.is_published,
      visibility: r.visibility,
      publication_start: new Date(start),
      publication_end: r.end === undefined ? undefined : new Date(start + r.end * DAY),
      modified: new Date(Date.UTC(2025, 0, 1) + r.modified * 1000),
      // One name per id, so that no two ids ever want the same name.
      name: r.named ? `n_${String(r.id).replace(/[^a-z0-9]/g, '_')}` : undefined,
      props: r.props,
      blocks: r.blocks,
    } satisfies ResourceInput;
  });

/** The stored content resources, by the host's id (string ids through the mapping), without what depends on the clock. */
async function storedState(db: Kysely<Database>): Promise<Record<string, unknown>> {
  const { rows } = await sql<Record<string, unknown>>`
    SELECT coalesce(m.external_id, r.id::text) AS host_id, r.name, c.name AS category, r.is_published, r.visibility,
      r.publication_start, r.publication_end, r.modified, r.language, r.title, r.summary, r.body, r.blocks, r.props,
      r.seo_noindex, r.uri, r.license, r.attribution, r.page_url, r.fts::text AS fts
    FROM rsc r JOIN rsc c ON c.id = r.category_id LEFT JOIN agent_discovery_external_id m ON m.rsc_id = r.id
    WHERE c.name IN ('post', 'page') ORDER BY 1`.execute(db);
  return Object.fromEntries(rows.map(({ host_id, ...rest }) => [String(host_id), rest]));
}

async function reset(db: Kysely<Database>, push: ContentWriter): Promise<void> {
  await sql`TRUNCATE rsc, category, edge, medium, predicate_category, agent_discovery_external_id`.execute(db);
  await push.putCategory({ name: 'post' });
  await push.putCategory({ name: 'page' });
}

/** `put` one by one, as a host without `putMany` would; refused puts are skipped. */
async function oneByOne(push: ContentWriter, items: readonly ResourceInput[]): Promise<void> {
  for (const item of items) {
    await push.put(item).catch((error: unknown) => {
      if (!(error instanceof ContentPushError)) throw error;
    });
  }
}

for (const backend of backends) {
  describe(`push API: putMany against put one by one [${backend.name}]`, () => {
    let a: TestDatabase;
    let b: TestDatabase;
    let one: ContentWriter;
    let many: ContentWriter;

    before(async () => {
      [a, b] = await Promise.all([backend.open(), backend.open()]);
      one = createContentWriter(a.db);
      many = createContentWriter(b.db);
    });
    after(async () => {
      await Promise.all([a.close(), b.close()]);
    });

    it('a put in the common case (new or stored id, top-level category) is one statement: the database function\'s call', async () => {
      // Records the statements written through the handle (a plugin sees every query the writer compiles: the
      // fast path and the batch statement are both raw SQL, their text the node's fragments).
      const statements: string[] = [];
      const recorder = a.db.withPlugin({
        transformQuery(args) {
          const node = args.node as { kind: string; sqlFragments?: readonly string[] };
          statements.push(node.kind === 'RawNode' ? node.sqlFragments!.join('?') : node.kind);
          return args.node;
        },
        transformResult: async (args) => args.result,
      });
      const writer = createContentWriter(recorder);
      await one.putCategory({ name: 'post', title: 'Posts' });
      for (const [i, input] of [
        { id: 'fast-path-0001', category: 'post', title: 'New, string id' },
        { id: 'fast-path-0001', category: 'post', title: 'Stored, string id', body: '<p>Again</p>' },
        { id: 7201, category: 'post', title: 'New, numeric id' },
        { id: 7201, category: 'post', title: 'Stored, numeric id', publication_start: new Date('2025-01-01T00:00:00Z') },
      ].entries()) {
        statements.length = 0;
        const { id } = await writer.put(input);
        assert.deepEqual(statements.map((q) => q.replace(/\s+/g, ' ').trim()), ['SELECT agent_discovery_put_resource(?::jsonb, ?, ?) AS id'], `put ${i}`);
        const stored = await a.db.selectFrom('rsc').select(['title']).where('id', '=', id).executeTakeFirstOrThrow();
        assert.equal((stored.title as Record<string, string>).en, input.title, `put ${i}`);
      }
      await sql`DELETE FROM rsc WHERE id IN (SELECT rsc_id FROM agent_discovery_external_id WHERE external_id = 'fast-path-0001') OR id = 7201`.execute(a.db);
    });

    it('the same stored state, whatever the batch size, with ids repeated inside a batch', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(resourceArb, { minLength: 1, maxLength: 14 }), fc.integer({ min: 1, max: 6 }), async (items, batchSize) => {
          await Promise.all([reset(a.db, one), reset(b.db, many)]);
          await oneByOne(one, items);
          const progress: number[] = [];
          const result = await many.putMany(items, { batchSize, onProgress: (p) => progress.push(p.written) });
          assert.equal(result.written, items.length);
          assert.equal(progress.at(-1), items.length);
          assert.deepEqual(await storedState(b.db), await storedState(a.db));
        }),
        { numRuns: backend.name === 'pglite' ? 15 : 8 },
      );
    });

    it('a refused item fails its batch only: earlier batches stay, nothing of its batch or later ones is written', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(resourceArb, { minLength: 2, maxLength: 12 }),
          fc.nat(),
          fc.integer({ min: 1, max: 5 }),
          fc.constantFrom<Partial<ResourceInput>>({ category: 'missing' }, { title: 'x\u0000' }, { publication_end: new Date(0) }),
          async (items, at, batchSize, fault) => {
            const k = at % items.length;
            const input = items.map((item, i) => (i === k ? { ...item, ...fault } : item));
            await Promise.all([reset(a.db, one), reset(b.db, many)]);
            const committed = Math.floor(k / batchSize) * batchSize;
            await oneByOne(one, input.slice(0, committed));
            const error = await many.putMany(input, { batchSize }).then(() => undefined, (e: unknown) => e);
            assert.ok(error instanceof ContentPushError, String(error));
            assert.equal(error.index, k);
            assert.equal(error.call, 'putMany');
            assert.deepEqual(await storedState(b.db), await storedState(a.db));
          },
        ),
        { numRuns: backend.name === 'pglite' ? 12 : 6 },
      );
    });

    it('an async iterable streams; setEdgesMany equals setEdges one by one', async () => {
      await Promise.all([reset(a.db, one), reset(b.db, many)]);
      for (const push of [one, many]) {
        await push.putCategory({ name: 'tag', vocabulary: true });
        await push.putPredicate({ name: 'tagged', subjects: ['post', 'page'], objects: ['tag'] });
      }
      async function* resources() {
        for (let i = 0; i < 40; i++) yield { id: `r${i}`, category: i % 2 ? 'post' : 'page', title: `R ${i}`, publication_start: new Date(Date.UTC(2025, 0, 1)), modified: new Date(Date.UTC(2025, 0, 2)) };
        for (let i = 0; i < 6; i++) yield { id: `t${i}`, category: 'tag', title: `T ${i}`, publication_start: new Date(Date.UTC(2025, 0, 1)), modified: new Date(Date.UTC(2025, 0, 2)) };
      }
      for await (const r of resources()) await one.put(r);
      assert.equal((await many.putMany(resources(), { batchSize: 7 })).written, 46);
      const sets = Array.from({ length: 40 }, (_, i) => ({ subject: `r${i}`, predicate: 'tagged', objects: [`t${i % 6}`, `t${(i * 7) % 6}`, `t${i % 6}`] }));
      sets.push({ subject: 'r0', predicate: 'tagged', objects: ['t5', 't4'] });
      for (const set of sets) await one.setEdges(set);
      assert.equal((await many.setEdgesMany(sets, { batchSize: 9 })).written, 41);
      await many.putEdgeMany([{ subject: 'r1', predicate: 'tagged', object: 't3', seq: 9 }]);
      await one.putEdge({ subject: 'r1', predicate: 'tagged', object: 't3', seq: 9 });
      const edges = async (db: Kysely<Database>) =>
        (
          await sql<{ s: string; o: string; seq: number }>`
            SELECT ms.external_id AS s, mo.external_id AS o, e.seq FROM edge e
            JOIN agent_discovery_external_id ms ON ms.rsc_id = e.subject_id JOIN agent_discovery_external_id mo ON mo.rsc_id = e.object_id
            ORDER BY 1, 2`.execute(db)
        ).rows;
      assert.deepEqual(await edges(b.db), await edges(a.db));
      assert.deepEqual((await edges(b.db)).filter((e) => e.s === 'r0'), [{ s: 'r0', o: 't4', seq: 2 }, { s: 'r0', o: 't5', seq: 1 }]);
      assert.deepEqual(await storedState(b.db), await storedState(a.db));
    });
  });
}

const postgres = backends.find((b) => b.name === 'postgres');

describe('push API: database failures are typed and leave nothing partial [postgres]', { skip: postgres ? undefined : 'needs DATABASE_URL' }, () => {
  let content: TestDatabase;
  let admin: pg.Client;
  before(async () => {
    content = await postgres!.open();
    admin = new pg.Client({ connectionString: content.url });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await content?.close();
  });
  const terminateOthers = () => admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  const count = async () => Number((await admin.query("SELECT count(*)::int AS n FROM rsc r JOIN rsc c ON c.id = r.category_id WHERE c.name = 'post'")).rows[0].n);

  it('backends terminated during 300 puts: every failure is unavailable and retryable, every success stored, no partial write', async () => {
    const push = createContentWriter(content.db);
    await reset(content.db, push);
    const failures: ContentPushError[] = [];
    const written = new Set<string>();
    let done = false;
    const killer = (async () => {
      while (!done) {
        await new Promise((r) => setTimeout(r, 15));
        await terminateOthers();
      }
    })();
    for (let i = 0; i < 300; i++) {
      const id = `p${i}`;
      try {
        await push.put({ id, category: 'post', title: `P ${i}`, body: `<p>${'quay '.repeat(200)}</p>` });
        written.add(id);
      } catch (error) {
        assert.ok(error instanceof ContentPushError, `raw error: ${String(error)}`);
        assert.equal(error.code, 'unavailable', error.message);
        assert.equal(error.retryable, true);
        failures.push(error);
      }
    }
    done = true;
    await killer;
    assert.ok(failures.length > 0, 'the terminations hit some puts');
    const { rows } = await admin.query('SELECT m.external_id FROM agent_discovery_external_id m JOIN rsc r ON r.id = m.rsc_id');
    assert.deepEqual(new Set(rows.map((r: { external_id: string }) => r.external_id)), written, 'exactly the puts that succeeded are stored');
  });

  it('backends terminated while putMany writes: the batch in flight leaves nothing; a retry from the progress completes it', async () => {
    const push = createContentWriter(content.db);
    await reset(content.db, push);
    const items = Array.from({ length: 1200 }, (_, i) => ({ id: `m${i}`, category: 'post', title: `M ${i}`, body: `<p>${'ferry '.repeat(500)}</p>` }));
    let reported = 0;
    let done = false;
    // Terminations every 20 ms from the first batch's commit on: one lands in a later batch's statement.
    let started = false;
    const killer = (async () => {
      while (!done) {
        await new Promise((r) => setTimeout(r, 20));
        if (started) await terminateOthers();
      }
    })();
    const error = await push
      .putMany(items, { batchSize: 200, onProgress: (p) => ((reported = p.written), (started = true)) })
      .then(() => undefined, (e: unknown) => e);
    done = true;
    await killer;
    assert.ok(error instanceof ContentPushError, `expected a typed failure, got ${String(error)}`);
    assert.equal(error.code, 'unavailable', error.message);
    assert.equal(error.retryable, true);
    assert.ok(reported > 0 && reported < 1200 && reported % 200 === 0, `reported ${reported}`);
    assert.equal(error.written, reported, 'the error says how many items were written');
    assert.match(error.message, new RegExp(`the first ${reported.toLocaleString('en')} items were written; from item ${reported.toLocaleString('en')} on, none\\)$`));
    assert.doesNotMatch(error.message, /nothing of this call was written/);
    assert.equal(await count(), reported, 'what is stored is what progress reported: whole batches, nothing of the one in flight');
    await push.putMany(items.slice(reported), { batchSize: 400 });
    assert.equal(await count(), 1200);
  });

  it('a statement over its time limit is timeout (not unavailable, not retryable), with what the call wrote', async () => {
    const push = createContentWriter(content.db);
    await reset(content.db, push);
    const { id: locked } = await push.put({ id: 'locked', category: 'post', title: 'Locked' });
    await admin.query('BEGIN');
    try {
      await admin.query('SELECT id FROM rsc WHERE id = $1 FOR UPDATE', [locked]);
      const error = await content.db
        .transaction()
        .execute(async (trx) => {
          await sql`SET LOCAL statement_timeout = '300ms'`.execute(trx);
          const items = [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'locked' }].map((r) => ({ ...r, category: 'post', title: r.id }));
          return push.putMany(items, { batchSize: 2, transaction: trx }).then(() => undefined, (e: unknown) => e);
        });
      assert.ok(error instanceof ContentPushError, `raw error: ${String(error)}`);
      assert.equal(error.code, 'timeout', error.message);
      assert.equal(error.retryable, false);
      assert.equal(error.written, 2);
      assert.match(error.message, /ran past its time limit .*\(the first 2 items were written; from item 2 on, none\)$/);
      assert.doesNotMatch(error.message, /unavailable|retry later/);
    } finally {
      await admin.query('ROLLBACK');
    }
    assert.equal(await count(), 3, 'the first batch was written and the host committed it; nothing of the second');
  });

  it('a connection reset (ECONNRESET) or refused is unavailable and retryable', async () => {
    const url = new URL(content.url!);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const through = await openDatabase({ url: proxied.toString() });
    try {
      const push = createContentWriter(through.db);
      await push.put({ id: 'before-reset', category: 'post', title: 'Before' });
      const inFlight = push.putMany(
        (async function* () {
          yield { id: 'r1', category: 'post', title: 'R1' };
          proxy.resetAll();
          yield { id: 'r2', category: 'post', title: 'R2' };
        })(),
        { batchSize: 1 },
      );
      const error = await inFlight.then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof ContentPushError, `raw error: ${String(error)}`);
      assert.equal(error.code, 'unavailable', error.message);
      assert.equal(error.retryable, true);
      await proxy.close();
      const refused = await push.put({ id: 'after-close', category: 'post', title: 'After' }).then(() => undefined, (e: unknown) => e);
      assert.ok(refused instanceof ContentPushError && refused.code === 'unavailable' && refused.retryable, String(refused));
    } finally {
      await through.close();
    }
  });
});
