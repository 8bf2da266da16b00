import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { sql, type Kysely } from 'kysely';
import { runCli } from '../src/cli/run.js';
import { openDatabase } from '../src/db/connection.js';
import type { Database } from '../src/index.js';
import { backends } from './support/backends.js';

/**
 * `express-agent-discovery push` and `reconcile`: NDJSON records from a file or standard input into
 * the push API, bad lines reported with their numbers, exit codes and a summary; on PGlite (a data
 * directory) and PostgreSQL.
 */

async function cli(args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = { env: {}, out: (t: string) => void (out += t), err: (t: string) => void (err += t), ...(stdin === undefined ? {} : { stdin: Readable.from([stdin]) }) };
  const code = await runCli(args, io);
  return { code, out, err };
}

const HEX = (n: number) => (0x5f2b9c00 + n).toString(16).padStart(24, '0');
const lines = (records: unknown[]) => `${records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`;

/** A mixed file: vocabulary, puts, edges, a removal, and three bad lines (4, 9 and 12). */
const MIXED = lines([
  { putCategory: { name: 'post', title: 'Posts' } },
  { putCategory: { name: 'tag', title: 'Tags', vocabulary: true } },
  { putPredicate: { name: 'tagged', subjects: ['post'], objects: ['tag'] } },
  '{"put": {"id": "broken",', // 4: not JSON
  { put: { id: 'tag-news', category: 'tag', title: 'News' } },
  { put: { id: HEX(1), category: 'post', title: 'Harbour lights', body: '<p>The lighthouse keeper.</p>', publication_start: '2025-01-01T00:00:00Z' } },
  { put: { id: HEX(2), category: 'post', title: 'Night ferry', body: '<p>Ferries at night.</p>' } },
  '',
  { put: { id: HEX(3), category: 'post', title: 'NUL \u0000 title' } }, // 9: refused by the push API
  { put: { id: HEX(4), category: 'post', title: 'Tide tables' } },
  { setEdges: { subject: HEX(1), predicate: 'tagged', objects: ['tag-news'] } },
  { frobnicate: { id: 1 } }, // 12: no such call
  { setEdges: { subject: HEX(2), predicate: 'tagged', objects: ['tag-news'] } },
  { remove: HEX(4) },
  { putEdge: { subject: HEX(2), predicate: 'tagged', object: HEX(1) } }, // 15: an object the predicate does not allow
]);

for (const backend of backends) {
  describe(`push and reconcile commands [${backend.name}]`, () => {
    let dir: string;
    let target: string[];
    let db: Kysely<Database>;
    let close: () => Promise<void>;
    const reopen = async () => {
      await close?.();
      const content = await openDatabase(backend.name === 'postgres' ? { url: target[1]! } : { dataDir: target[1]! });
      db = content.db;
      close = () => content.close();
    };
    const titles = async () => (await sql<{ t: string }>`SELECT r.title->>'en' AS t FROM rsc r JOIN rsc c ON c.id = r.category_id WHERE c.name = 'post' ORDER BY 1`.execute(db)).rows.map((r) => r.t);

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ead-push-cli-'));
      if (backend.name === 'postgres') {
        const fresh = await backend.open();
        target = ['--database-url', fresh.url!];
        close = () => fresh.close();
        db = fresh.db;
      } else {
        target = ['--data-dir', join(dir, 'pgdata')];
        assert.equal((await cli(['migrate', ...target])).code, 0);
        await reopen();
      }
    });
    after(async () => {
      await close?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it('usage errors exit 2; a database without the schema exits 1 naming migrate', async () => {
      assert.equal((await cli(['push', '--help'])).code, 0);
      assert.equal((await cli(['push', ...target, '--batch-size', '0', 'x'])).code, 2);
      assert.equal((await cli(['push', ...target, '--language', 'e n'])).code, 2);
      assert.equal((await cli(['push', ...target, 'a', 'b'])).code, 2);
      assert.equal((await cli(['push'])).code, 2, 'no database');
      assert.equal((await cli(['reconcile', '--nope'])).code, 2);
      if (backend.name === 'pglite') {
        const empty = await cli(['push', '--data-dir', join(dir, 'empty')], '');
        assert.equal(empty.code, 1);
        assert.match(empty.err, /migrate/);
      }
    });

    it('--keep-going: every good record applied in order, each bad line reported with its number', async () => {
      if (backend.name === 'pglite') await close();
      const file = join(dir, 'mixed.ndjson');
      writeFileSync(file, MIXED);
      const run = await cli(['push', ...target, '--keep-going', '--batch-size', '2', file]);
      assert.equal(run.code, 1, run.err);
      assert.deepEqual([...run.err.matchAll(/^line (\d+): /gm)].map((m) => Number(m[1])), [4, 9, 12, 15]);
      assert.match(run.err, /^line 9: content\.put: title: must not contain NUL/m);
      assert.match(run.err, /^line 12: expected one key naming a call/m);
      assert.match(run.err, /^line 15: content\.putEdge: object: .*does not allow/m);
      assert.match(run.out, /^14 lines: putCategory 2, putPredicate 1, put 4, setEdges 2, remove 1; 4 refused \(lines 4, 9, 12, 15\)$/m);
      if (backend.name === 'pglite') await reopen();
      assert.deepEqual(await titles(), ['Harbour lights', 'Night ferry']);
      const edges = await sql<{ n: number }>`SELECT count(*)::int AS n FROM edge`.execute(db);
      assert.equal(edges.rows[0]!.n, 2);
    });

    it('without --keep-going: stops at the first bad line; what came before it stays applied', async () => {
      if (backend.name === 'pglite') await close();
      const run = await cli(['push', ...target, '-'], lines([{ put: { id: HEX(5), category: 'post', title: 'Before' } }, { put: { id: HEX(6), category: 'nowhere', title: 'Bad' } }, { put: { id: HEX(7), category: 'post', title: 'After' } }]));
      assert.equal(run.code, 1);
      assert.match(run.err, /^line 2: content\.put: category: no resource has 'nowhere'/m);
      assert.match(run.out, /put 1; 1 refused \(line 2\); stopped at line 2/);
      // One batch: line 3 is refused on reading, line 2 by the database when the lines before 3 are
      // written. Line 2 is the first failing line: the one reported, and the stop.
      const mixed = await cli(['push', ...target, '-'], lines([
        { put: { id: HEX(5), category: 'post', title: 'Before' } },
        { put: { id: HEX(13), category: 'nowhere', title: 'Bad category' } },
        { put: { id: HEX(14), category: 'post', title: 'NUL \u0000' } },
        { put: { id: HEX(15), category: 'post', title: 'After' } },
      ]));
      assert.equal(mixed.code, 1);
      assert.deepEqual([...mixed.err.matchAll(/^line (\d+): /gm)].map((m) => Number(m[1])), [2], mixed.err);
      assert.match(mixed.out, /put 1; 1 refused \(line 2\); stopped at line 2$/m);
      if (backend.name === 'pglite') await reopen();
      assert.deepEqual(await titles(), ['Before', 'Harbour lights', 'Night ferry']);
    });

    it('--json summary; all good exits 0', async () => {
      if (backend.name === 'pglite') await close();
      const run = await cli(['push', ...target, '--json'], lines([{ put: { id: HEX(8), category: 'post', title: 'Quay' } }, { remove: HEX(5) }]));
      assert.equal(run.code, 0, run.err);
      assert.deepEqual(JSON.parse(run.out), { lines: 2, applied: { put: 1, remove: 1 }, refused: [] });
      if (backend.name === 'pglite') await reopen();
      assert.deepEqual(await titles(), ['Harbour lights', 'Night ferry', 'Quay']);
    });

    it('reconcile from an NDJSON list: removes what is not listed, reports stale and missing; a bad line removes nothing', async () => {
      if (backend.name === 'pglite') await close();
      const bad = await cli(['reconcile', ...target, '--category', 'post'], lines([{ id: HEX(1) }, '{"id":', { id: HEX(2) }]));
      assert.equal(bad.code, 1);
      assert.match(bad.err, /line 2: not JSON.*nothing was removed/);
      const invalid = await cli(['reconcile', ...target], lines([{ id: HEX(1) }, { id: -3 }]));
      assert.equal(invalid.code, 1);
      assert.match(invalid.err, /line 2: id: /);
      const empty = await cli(['reconcile', ...target, '--category', 'post'], '');
      assert.equal(empty.code, 1, 'an empty list (a broken pipe) is refused');
      assert.match(empty.err, /content\.reconcile: --max-remove: the list is empty: it would remove all 3 of the 3 resources in scope; pass --max-remove 100% .*nothing was removed/);
      const list = lines([JSON.stringify(HEX(1)), { id: HEX(2), modified: '2020-01-01T00:00:00Z' }, { id: 'not-yet' }]);
      const over = await cli(['reconcile', ...target, '--category', 'post'], list);
      assert.equal(over.code, 1, '1 of 3 is over the default 10 %');
      assert.match(over.err, /it would remove 1 of the 3 resources in scope, more than --max-remove 10% allows \(0\)/);
      const dryOver = await cli(['reconcile', ...target, '--category', 'post', '--dry-run'], list);
      assert.equal(dryOver.code, 1);
      assert.match(dryOver.out, /would remove 0+5f2b9c08\na run would be refused: it would remove 1 of the 3/);
      assert.equal((await cli(['reconcile', ...target, '--max-remove', '10 %'], list)).code, 2);
      assert.equal((await cli(['reconcile', ...target, '--max-remove', '-1'], list)).code, 2);
      const dry = await cli(['reconcile', ...target, '--category', 'post', '--dry-run', '--json', '--max-remove', '1'], list);
      assert.equal(dry.code, 0, dry.err);
      assert.deepEqual(JSON.parse(dry.out), { removed: [HEX(8)], stale: [HEX(2)], missing: ['not-yet'], listed: 3, inScope: 3 });
      const run = await cli(['reconcile', ...target, '--category', 'post', '--max-remove', '34%'], list);
      assert.equal(run.code, 0, run.err);
      assert.match(run.out, /^3 listed: 1 removed, 1 stale, 1 missing\nstale 0+5f2b9c02\nmissing not-yet\nremoved 0+5f2b9c08\n$/);
      if (backend.name === 'pglite') await reopen();
      assert.deepEqual(await titles(), ['Harbour lights', 'Night ferry']);
      const tags = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rsc r JOIN rsc c ON c.id = r.category_id WHERE c.name = 'tag'`.execute(db);
      assert.equal(tags.rows[0]!.n, 1, 'the tag is outside --category post');
    });
  });
}
