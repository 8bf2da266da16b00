import type { Kysely } from 'kysely';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrator.js';
import type { Database } from '../src/db/schema.js';
import { insertResource } from '../example-site/content-store.js';
import { isSeeded, seedDemoContent } from '../example-site/seed.js';
import { keptDatabase } from './kept-database.js';

/**
 * The content of the benches that serve the example site under load (llms-full-burst, soak): the demo
 * content and `count` articles of the harbour log (about 1.3 KiB of Markdown each, in English and
 * Dutch, published a minute apart), so llms-full.txt always reaches its budget and search has pages.
 */
export async function seedHarbourLog(db: Kysely<Database>, count: number): Promise<void> {
  await seedDemoContent(db);
  for (let i = 1; i <= count; i++) {
    const body = Array.from({ length: 3 + (i % 5) }, (_, n) => paragraph(i, n)).join('');
    await insertResource(db, {
      category: 'article',
      title: { en: `Harbour log ${i}`, nl: `Havenlogboek ${i}` },
      summary: { en: `Entry ${i} of the harbour log.`, nl: `Regel ${i} van het havenlogboek.` },
      body: { en: body, nl: body },
      publicationStart: new Date(Date.now() - i * 60_000),
    });
  }
}

const paragraph = (i: number, n: number) =>
  `<p>Quay ${i}, note ${n}: the harbour master logged the tides, the cargo and the ships that came in before dawn; ` +
  `the open data portal publishes each entry the same day, with its coordinates and the name of the vessel.</p>`;

/**
 * The URL of the bench database `name` on `serverUrl`, kept between runs: migrated, and seeded with the
 * harbour log on the first run.
 */
export async function keptHarbourLog(serverUrl: string, name: string, count: number): Promise<string> {
  const url = await keptDatabase(serverUrl, name);
  const content = await openDatabase({ url });
  try {
    await migrateToLatest(content.db);
    if (!(await isSeeded(content.db))) {
      process.stdout.write(`seeding ${name} (once, kept): the demo content and ${count} articles...\n`);
      await seedHarbourLog(content.db, count);
    }
    return url;
  } finally {
    await content.close();
  }
}
