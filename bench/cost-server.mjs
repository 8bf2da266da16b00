// The cost bench's server (bench/cost-bench.ts starts it): the plugin from the built package and a
// bare Express + pg primary-key endpoint on two loopback ports, reported as one JSON line on stdout.
// Plain JavaScript under plain Node, so nothing but the package itself is measured.
//   node bench/cost-server.mjs <database url>        (BENCH_SOURCE=1 with --import tsx: the source)
import express from 'express';
import pg from 'pg';

const url = process.argv[2];
const { createAgentDiscovery } = await import(process.env.BENCH_SOURCE === '1' ? '../src/index.ts' : '../dist/src/index.js');
const prepared = process.env.BENCH_PREPARED !== '0';
const agent = await createAgentDiscovery({
  siteTitle: 'Bench',
  description: 'Articles about harbours and open data.',
  languages: ['en', 'nl'],
  database: { url, poolSize: 10, preparedStatements: prepared },
});
const app = express();
app.use(agent.router);
const pool = new pg.Pool({ connectionString: url, max: 10 });
const bare = express();
bare.get('/row/:id', async (req, res) => {
  const r = await pool.query('SELECT id, title, summary, body FROM rsc WHERE id = $1', [Number(req.params.id)]);
  res.json(r.rows[0] ?? null);
});
// The serving process's CPU time so far (µs), for CPU per request (robust to a busy machine).
bare.get('/cpu', (_req, res) => {
  const u = process.cpuUsage();
  res.json(u.user + u.system);
});
const listen = (a) =>
  new Promise((resolve) => {
    const s = a.listen(0, '127.0.0.1', () => resolve(s.address().port));
  });
const ports = { plugin: await listen(app), bare: await listen(bare) };
process.stdout.write(`${JSON.stringify(ports)}\n`);
// A clean exit on SIGTERM/SIGINT, so `node --cpu-prof` writes its profile.
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => process.exit(0));
