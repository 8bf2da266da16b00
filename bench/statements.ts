/**
 * Prints the SQL statements (and their count) each hot route sends, on the cost bench's database:
 * a check of the "round trips per read" lever.
 *
 *   npx tsx bench/statements.ts
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { createAgentDiscovery } from '../src/index.js';
import { prepareDatabase, TYPICAL } from './cost-bench.js';

const url = await prepareDatabase();
const sent: string[] = [];
const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function query(this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string; name?: string };
  const text = typeof first === 'string' ? first : (first.text ?? '');
  sent.push(`${typeof first === 'object' && first.name ? `[${first.name}] ` : ''}${text.replace(/\s+/g, ' ')}`);
  return original.apply(this, args);
} as typeof pg.Client.prototype.query;

const agent = await createAgentDiscovery({ siteTitle: 'Bench', languages: ['en', 'nl'], database: { url, ...(process.env.BENCH_PREPARED ? { preparedStatements: process.env.BENCH_PREPARED === '1' } : {}) } });
const app = express();
app.use(agent.router);
const server = app.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const typical = (await agent.database.db.selectFrom('rsc').select('id').where('name', '=', TYPICAL).executeTakeFirstOrThrow()).id;
const paths = [
  '/api/agent/search?sort=newest&pagelen=20',
  '/api/agent/search?text=harbour%20data&pagelen=20',
  `/api/agent/related/${typical}`,
  `/api/agent/resource/${typical}`,
  `/agent/resource/${typical}/markdown`,
  '/llms.txt',
  '/api-help',
  '/.well-known/api-catalog',
];
try {
  for (const path of paths) {
    await (await fetch(`${origin}${path}`)).arrayBuffer(); // first call: one-time reads (if any) happen here
    sent.length = 0;
    const res = await fetch(`${origin}${path}`);
    await res.arrayBuffer();
    process.stdout.write(`\n${path} (${res.status}): ${sent.length} statement(s)\n${sent.map((s) => `  - ${s.slice(0, 400)}`).join('\n')}\n`);
  }
} finally {
  server.close();
  await agent.close();
}
