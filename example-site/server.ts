/**
 * `npm start`: the example site on the embedded database (`.data/example`, seeded on first start),
 * or on PostgreSQL when DATABASE_URL is set. PORT defaults to 3000. BASE_URL (e.g.
 * `https://demo.example.org`) is the public origin: absolute URLs and the ARD identifier come from it
 * instead of the request's Host.
 */
import { mkdirSync } from 'node:fs';
import { createExampleSite } from './app.js';

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.AGENT_DISCOVERY_DATA_DIR ?? '.data/example';

async function main(): Promise<void> {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${process.env.PORT}`);
  if (!process.env.DATABASE_URL) mkdirSync(dataDir, { recursive: true });
  const site = await createExampleSite({
    database: process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { dataDir },
    ...(process.env.BASE_URL ? { baseUrl: process.env.BASE_URL } : {}),
  });
  const server = site.app.listen(port, () => {
    const address = server.address();
    const actual = typeof address === 'object' && address ? address.port : port;
    process.stdout.write(`example site: http://localhost:${actual}/ (${process.env.DATABASE_URL ? 'PostgreSQL' : `embedded database in ${dataDir}`})\n`);
  });
  server.on('error', async (error) => {
    process.stderr.write(`example-site: cannot listen on port ${port}: ${error.message}\n`);
    await site.close();
    process.exit(1);
  });
  const stop = () => server.close(() => site.close().then(() => process.exit(0)));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`example-site: failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
