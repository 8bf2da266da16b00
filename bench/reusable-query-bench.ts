/**
 * Node CPU per call of the hot reads built on every call (an ordinary Kysely build) against the
 * reusable queries (built once per shape, `src/db/reusable-query.ts`), on the cost bench's database,
 * ten concurrent readers per measurement, both measured alternately in one run (4 rounds).
 *
 *   npx tsx bench/reusable-query-bench.ts
 */
import { openDatabase } from '../src/db/connection.js';
import { compiledEdgePage, edgePageQuery } from '../src/content/edges.js';
import { compiledSearch, searchSelect } from '../src/content/search.js';
import { prepareDatabase, TYPICAL } from './cost-bench.js';

const url = await prepareDatabase();
const content = await openDatabase({ url, preparedStatements: true });
const db = content.db;
const typical = (await db.selectFrom('rsc').select('id').where('name', '=', TYPICAL).executeTakeFirstOrThrow()).id;
const edgeParams = { resourceId: typical, direction: 'out' as const, offset: 0, limit: 21, siteNoindex: { storedElse: false } };
const searchParams = { sort: 'newest' as const, siteNoindex: { storedElse: false }, offset: 0, limit: 21 };
const CALLS = 4000;

/** Node CPU time per call (µs), ten readers at once. */
async function cpuPerCall(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 300; i++) await run();
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: 10 }, async () => {
    for (let i = 0; i < CALLS / 10; i++) await run();
  }));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
}

const targets = {
  'edge page': {
    ordinary: () => db.executeQuery(edgePageQuery(db, edgeParams).compile()),
    reusable: () => db.executeQuery(compiledEdgePage(db, edgeParams)),
  },
  'search page': {
    ordinary: () => db.executeQuery(searchSelect(db, searchParams).compile()),
    reusable: () => db.executeQuery(compiledSearch(db, searchParams)),
  },
};
const lines = ['| read | ordinary build µs/call | reusable µs/call | reusable / ordinary |', '|---|---|---|---|'];
for (const [name, t] of Object.entries(targets)) {
  const ordinary: number[] = [];
  const reusable: number[] = [];
  for (let round = 0; round < 4; round++) {
    ordinary.push(await cpuPerCall(t.ordinary));
    reusable.push(await cpuPerCall(t.reusable));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  lines.push(`| ${name} | ${median(ordinary).toFixed(0)} | ${median(reusable).toFixed(0)} | ${(median(reusable) / median(ordinary)).toFixed(2)} |`);
}
process.stdout.write(`reusable-query bench: Node CPU per call (statement included), PostgreSQL ${url.replace(/^.*@/, '')}, prepared statements on\n\n${lines.join('\n')}\n`);
await content.close();
