import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import { createExampleSite, type ExampleSite } from '../../example-site/app.js';
import type { Database } from '../../src/db/schema.js';

/**
 * The public host name the example site is checked under: a real-looking domain (an IP address or
 * `localhost` yields the ARD placeholder publisher, which `check` flags), reached through
 * `--connect-to 127.0.0.1` so that nothing is looked up.
 */
export const PUBLIC_HOST = 'harbour-agent-demo.net';
export const LOOPBACK = '127.0.0.1';

export interface CheckedSite {
  /** `http://harbour-agent-demo.net:<port>`: the site's public origin (its `baseUrl`). */
  readonly origin: string;
  /** `http://127.0.0.1:<port>`: the same server, for the test's own requests. */
  readonly loopback: string;
  readonly site: ExampleSite;
  /** Requests the server received, as `METHOD path`. */
  readonly seen: string[];
  close(): Promise<void>;
}

/**
 * The example site on a loopback port under `PUBLIC_HOST` with, unless `optIns` is false, the opt-ins
 * it ships with (MCP, CORS, robots.txt with its Content Signals in code, llms-full.txt, the sitemap, `.md`
 * twins, NLWeb's /ask); with
 * `optIns: false`, the plugin's defaults. With `publicName: false` it has no public
 * base URL and is reached as `http://127.0.0.1:<port>` (its ARD identifier then has the placeholder).
 */
export async function startCheckedSite(db: Kysely<Database>, { optIns = true, publicName = true } = {}): Promise<CheckedSite> {
  let app: http.RequestListener | undefined;
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    app!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://${publicName ? PUBLIC_HOST : LOOPBACK}:${port}`;
  const site = await createExampleSite({
    database: { kysely: db },
    baseUrl: origin,
    ...(optIns ? {} : { plugin: { mcp: false, cors: false, robotsTxt: false, contentSignals: {}, llmsFull: false, sitemap: false, markdownTwins: false, nlweb: false } }),
  });
  app = site.app as unknown as http.RequestListener;
  return {
    origin,
    loopback: `http://${LOOPBACK}:${port}`,
    site,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await site.close();
    },
  };
}
