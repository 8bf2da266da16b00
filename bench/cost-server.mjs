// The cost bench's server (bench/cost-bench.ts starts it): the plugin from the built package on one
// loopback port; on another, a bare Express + pg primary-key endpoint and each route's floor. One JSON
// line on stdout reports the ports. Plain JavaScript under plain Node, so nothing but the package itself
// is measured.
//   node bench/cost-server.mjs <database url>        (BENCH_SOURCE=1 with --import tsx: the source)
//
// A route's floor (`POST /floors` names the routes, then `GET /floor/<key>`): the statements the route
// sent for that request, captured from the plugin's own pg clients (text, parameters and statement name,
// so prepared the same way), run in order on a pool configured like the plugin's, and only what the
// route cannot avoid sent: `res.json(rows)`; plus one conversion of the resource's body HTML with the
// plugin's own turndown service for the Markdown read and the JSON read's Markdown field; a string
// join of the rows for the text documents; the captured bytes for a route that sends no statement.
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import express from 'express';
import pg from 'pg';

const url = process.argv[2];
const source = process.env.BENCH_SOURCE === '1';
const { createAgentDiscovery } = await import(source ? '../src/index.ts' : '../dist/src/index.js');
const { htmlToMarkdown } = await import(source ? '../src/markdown/convert.ts' : '../dist/src/markdown/convert.js');
const prepared = process.env.BENCH_PREPARED !== '0';

// Every statement a pg client sends while `capturing` is set (the plugin's clients bind this method
// when they connect, so it stays installed; off, it costs one test per statement).
let capturing;
const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function query(config, values, callback) {
  if (capturing && config && typeof config !== 'function') {
    capturing.push(typeof config === 'string' ? { text: config, values: Array.isArray(values) ? values : [] } : { name: config.name, text: config.text, values: config.values ?? [] });
  }
  return clientQuery.apply(this, arguments);
};

const agent = await createAgentDiscovery({
  siteTitle: 'Bench',
  description: 'Articles about harbours and open data.',
  languages: ['en', 'nl'],
  database: { url, poolSize: 10, preparedStatements: prepared },
  // Fixed, so that two servers (two trees) hand out the same next_url.
  continuationSecret: 'express-agent-discovery cost bench continuation secret',
});
const app = express();
app.use(agent.router);
const INT8_OID = 20;
const NUMERIC_OID = 1700;
// The plugin's pool settings (src/db/connection.ts): bigint and numeric as numbers, JIT off on each connection.
// JIT off as a start-up parameter: a `SET` sent from the pool's 'connect' event raced the first query
// on the same client (pg's "client is already executing a query" DeprecationWarning).
const pool = new pg.Pool({
  connectionString: url,
  max: 10,
  options: '-c jit=off',
  types: { getTypeParser: (oid, format) => (oid === INT8_OID || oid === NUMERIC_OID ? Number : pg.types.getTypeParser(oid, format)) },
});
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
// The longest event-loop delay and the longest garbage-collection pause (ms) since the last call: a
// delay as long as a pause was the collector's, not a handler's.
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
let gcMax = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMax = Math.max(gcMax, entry.duration);
}).observe({ entryTypes: ['gc'] });
bare.get('/loop', (_req, res) => {
  res.json({ loop: loop.max / 1e6, gc: gcMax });
  loop.reset();
  gcMax = 0;
});

const listen = (a) =>
  new Promise((resolve) => {
    const s = a.listen(0, '127.0.0.1', () => resolve(s.address().port));
  });
const ports = { plugin: await listen(app), bare: await listen(bare) };
const pluginOrigin = `http://127.0.0.1:${ports.plugin}`;

/** The statements the plugin sends for `path` (its second request: one-time reads happen in the first), and the response. */
async function captureRoute(path) {
  await (await fetch(`${pluginOrigin}${path}`)).arrayBuffer();
  capturing = [];
  const res = await fetch(`${pluginOrigin}${path}`);
  const body = Buffer.from(await res.arrayBuffer());
  // A connection opened meanwhile sends its settings (`SET jit = off`) once: not the route's work.
  const statements = capturing.filter((s) => !/^\s*set\s/i.test(s.text));
  capturing = undefined;
  if (res.status !== 200) throw new Error(`floor of ${path}: the route answered ${res.status}`);
  return { statements, body, type: res.headers.get('content-type') };
}

const run = (s) => pool.query(s.name ? { name: s.name, text: s.text, values: s.values } : { text: s.text, values: s.values });
/** The body HTML of the first row that carries one, in `language`. */
function bodyHtml(rows, language) {
  for (const row of rows) {
    const body = typeof row.body === 'string' ? JSON.parse(row.body) : row.body;
    if (body && typeof body[language] === 'string') return body[language];
  }
  throw new Error('floor: no row of the read carries a body');
}
const joinRows = (results) => results.flatMap((r) => r.rows.map((row) => Object.values(row).join(' '))).join('\n');

/** The floor handler of one route, by its kind: `json`, `json+markdown`, `markdown`, `text`. */
function floorHandler(kind, { statements, body, type }) {
  if (statements.length === 0) return (_req, res) => res.type(type).send(body);
  const options = { baseUrl: pluginOrigin };
  return async (_req, res) => {
    const results = [];
    for (const s of statements) results.push(await run(s));
    const rows = results.at(-1).rows;
    if (kind === 'json') res.json(rows);
    else if (kind === 'text') res.type('text/plain; charset=utf-8').send(joinRows(results));
    else {
      // The body is in the resource read's rows, whichever statement came last (named edges may follow it).
      const markdown = htmlToMarkdown(bodyHtml(results.flatMap((r) => r.rows), 'en'), options);
      if (kind === 'markdown') res.type('text/markdown; charset=utf-8').send(markdown);
      else res.json({ rows, markdown });
    }
  };
}

// POST /floors [{ key, path, kind }]: captures each route's statements and mounts GET /floor/<key>.
const floors = new Map();
bare.post('/floors', express.json(), async (req, res) => {
  const statements = {};
  for (const { key, path, kind } of req.body) {
    const captured = await captureRoute(path);
    floors.set(key, floorHandler(kind, captured));
    statements[key] = captured.statements.map((s) => s.text.replace(/\s+/g, ' ').slice(0, 120));
  }
  res.json(statements);
});
bare.get('/floor/:key', (req, res, next) => {
  const handler = floors.get(req.params.key);
  if (!handler) return res.status(404).end();
  return handler(req, res, next);
});

process.stdout.write(`${JSON.stringify(ports)}\n`);
// A clean exit on SIGTERM/SIGINT, so `node --cpu-prof` writes its profile.
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => process.exit(0));
