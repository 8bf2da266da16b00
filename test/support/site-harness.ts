// The one harness of the tests that serve the example site: open a database of a backend, create the
// site over it (seeded), optionally analyze, listen on a loopback port; close in the reverse order.
import type { Express } from 'express';
import { createExampleSite, type ExampleSite, type ExampleSiteOptions } from '../../example-site/app.js';
import type { Backend, TestDatabase } from './backends.js';
import { analyze } from './fetchkit.js';
import { listen } from './mcp-client.js';

/** The example site of one test, listening. */
export interface RunningSite {
  readonly content: TestDatabase;
  readonly site: ExampleSite;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Stops listening, closes the site (its plugin and workers), then the database. */
  close(): Promise<void>;
}

export interface RunningSiteOptions extends Partial<Omit<ExampleSiteOptions, 'database'>> {
  /** ANALYZE the seeded tables first, so the planner sees their real sizes (default false). */
  analyze?: boolean;
  /** The app that listens, built around the site's (a proxy-trusting host, say); default the site's own. */
  host?: (site: Express) => Express;
}

/**
 * The example site over a fresh database of `backend`, listening on loopback.
 *
 * ```ts
 * let running: RunningSite
 * before(async () => { running = await startExampleSite(backend, { analyze: true }) })
 * after(() => running?.close())
 * ```
 */
export async function startExampleSite(backend: Backend, options: RunningSiteOptions = {}): Promise<RunningSite> {
  const { analyze: analyzeFirst = false, host, ...siteOptions } = options;
  // The site seeds an empty database itself; a seeded one (the demo content, copied) is the same content.
  const content = siteOptions.seed === false ? await backend.open() : await backend.openSeeded();
  let site: ExampleSite | undefined;
  try {
    site = await createExampleSite({ ...siteOptions, database: { kysely: content.db } });
    if (analyzeFirst) await analyze(content.db);
    const web = await listen(host ? host(site.app) : site.app);
    const running = site;
    return {
      content,
      site: running,
      origin: web.origin,
      async close() {
        await web.close();
        await running.close();
        await content.close();
      },
    };
  } catch (error) {
    await site?.close();
    await content.close();
    throw error;
  }
}
