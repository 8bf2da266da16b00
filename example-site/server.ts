/**
 * `npm start`: the example site on the embedded database (`.data/example`, seeded on first start),
 * or on PostgreSQL when DATABASE_URL is set. PORT defaults to 3000. BASE_URL (e.g.
 * `https://demo.example.org`) is the public origin: absolute URLs and the ARD identifier come from it
 * instead of the request's Host. TRUST_PROXY is Express's `trust proxy` (`loopback`, `1`, `true`, a list of
 * addresses): which X-Forwarded-For hop is the client agents are verified by. AGENT_POLICY is the agent policy
 * as JSON (`{"rules":[{"purpose":"training","action":"block"}]}`), the `agentPolicy` option.
 */
import { mkdirSync } from 'node:fs';
import { createExampleSite } from './app.js';

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.AGENT_DISCOVERY_DATA_DIR ?? '.data/example';

/** `TRUST_PROXY` as Express takes it: `true`/`false`, a hop count, or addresses and names (`loopback`). */
function trustProxy(value: string | undefined): boolean | number | string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** `AGENT_POLICY` as JSON; the plugin checks it and names the rule and field of any problem. */
function agentPolicy(value: string | undefined): unknown {
  if (value === undefined || value === '') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw new Error('AGENT_POLICY must be JSON such as {"rules":[{"purpose":"training","action":"block"}]}');
  }
}

async function main(): Promise<void> {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${process.env.PORT}`);
  if (!process.env.DATABASE_URL) mkdirSync(dataDir, { recursive: true });
  const site = await createExampleSite({
    database: process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { dataDir },
    ...(process.env.BASE_URL ? { baseUrl: process.env.BASE_URL } : {}),
    trustProxy: trustProxy(process.env.TRUST_PROXY),
    plugin: { ...(process.env.AGENT_POLICY ? { agentPolicy: agentPolicy(process.env.AGENT_POLICY) } : {}) },
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
