/**
 * One stateless instance of the facade for bench/scale-out.sh: PORT, DATABASE_URL (the primary, or
 * PgBouncer in front of it), READ_URL (optional: a read replica), CONTINUATION_SECRET (shared by every
 * instance). `instance.ts seed` instead seeds the demo content into DATABASE_URL;
 * `instance.ts walk ORIGIN…` follows the search's next_url to the end, each page on the next origin in
 * turn, and prints the item ids.
 */
import express from 'express';
import { createAgentDiscovery } from '../../src/index.js';
import { openDatabase } from '../../src/db/connection.js';
import { seedDemoContent } from '../../example-site/seed.js';

const { PORT, DATABASE_URL, READ_URL, CONTINUATION_SECRET } = process.env;
const [mode, ...origins] = process.argv.slice(2);

if (mode === 'walk') {
  let path: string | null = '/api/agent/search?pagelen=25';
  for (let page = 0; path; page++) {
    const res = await fetch(`${origins[page % origins.length]}${path}`);
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    const { result } = (await res.json()) as { result: { items: { id: number }[]; next_url: string | null } };
    for (const item of result.items) process.stdout.write(`${item.id}\n`);
    path = result.next_url && new URL(result.next_url).pathname + new URL(result.next_url).search;
  }
} else if (!DATABASE_URL) {
  throw new Error('DATABASE_URL is required');
} else if (mode === 'seed') {
  const content = await openDatabase({ url: DATABASE_URL });
  await seedDemoContent(content.db);
  await content.close();
} else {
  const agent = await createAgentDiscovery({
    siteTitle: 'Scale-out',
    baseUrl: 'https://example.org',
    database: { url: DATABASE_URL, ...(READ_URL ? { readUrl: READ_URL } : {}) },
    ...(CONTINUATION_SECRET ? { continuationSecret: CONTINUATION_SECRET } : {}),
  });
  const app = express();
  app.use(agent.router);
  const server = app.listen(Number(PORT ?? 0), '127.0.0.1');
  process.on('SIGTERM', () => server.close(() => agent.close().then(() => process.exit(0))));
}
