/**
 * What every facade and discovery path answers, this tree against another revision: status, headers
 * (all but `Date`, `Connection`, `Keep-Alive`) and body bytes of each request, both trees served side by
 * side (`bench/cost-server.mjs` of each, built package, plain Node) over the cost bench's database.
 * The check that a hot-path change altered no response.
 *
 *   npx tsx bench/behaviour-capture.ts HEAD          # this tree (uncommitted changes included) vs HEAD
 *   npx tsx bench/behaviour-capture.ts 0c69def
 *   npx tsx bench/behaviour-capture.ts HEAD src/http/responder.ts src/facade   # HEAD vs HEAD with only
 *                                                  # these paths as they are in this tree (others' work left out)
 *
 * Requests: GET and HEAD of every resource by id and by name (JSON in both languages, Markdown, `/id/`
 * negotiated for JSON, Markdown and HTML), related in both directions and per predicate, search
 * (browse in every sort, text, category, dates, language, page 2 through `next_url`), schema, the API
 * root, llms.txt and each category's, api-help, OpenAPI, api-catalog, ARD; each success again with its
 * `If-None-Match` (304); a 400, 404 and 405 of each route. The ARD manifest's `updatedAt` (the serving
 * process's start) is masked. Exits 1 on any difference.
 */
import { cpSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/connection.js';
import { prepareDatabase } from './cost-bench.js';
import { buildTree, checkoutRevision, HERE, serveTree } from './tree-server.js';

/** The Host every request names, so that both servers build the same absolute URLs. */
const HOST = 'capture.example';
const IGNORED_HEADERS = new Set(['date', 'connection', 'keep-alive']);

interface Captured {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Probe {
  method: 'GET' | 'HEAD' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** GET with `If-None-Match` set to the ETag this server itself just gave for the path. */
  conditional?: boolean;
}

/** The ARD manifest's `updatedAt` is the serving process's start: masked, and the ETag over it with it. */
const PROCESS_START = /"updatedAt":"[^"]*"/g;
const ARD_PATHS = new Set(['/.well-known/ard.json', '/.well-known/ai-catalog.json']);
function masked(c: Captured, path: string): Captured {
  if (!ARD_PATHS.has(path.split('?')[0]!)) return c;
  const body = c.body.replace(PROCESS_START, '"updatedAt":"(process start)"');
  return { ...c, body, headers: { ...c.headers, ...(c.headers.etag ? { etag: '(over the process start)' } : {}) } };
}

/** A probe's answer; a conditional one revalidates with the server's own ETag. */
async function answer(origin: string, probe: Probe): Promise<Captured> {
  if (!probe.conditional) return masked(await capture(origin, probe), probe.path);
  const etag = (await capture(origin, { method: 'GET', path: probe.path })).headers.etag;
  return masked(await capture(origin, { method: 'GET', path: probe.path, headers: { 'if-none-match': String(etag) } }), probe.path);
}

function capture(origin: string, probe: Probe): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${probe.path}`, { method: probe.method, headers: { host: HOST, ...probe.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers = Object.fromEntries(Object.entries(res.headers).filter(([k]) => !IGNORED_HEADERS.has(k)).sort(([a], [b]) => a.localeCompare(b)));
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('latin1') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every path to probe (GET), from the database's resources, categories and predicates. */
async function probePaths(url: string): Promise<string[]> {
  const content = await openDatabase({ url });
  const { db } = content;
  try {
    const resources = (await sql<{ id: number; name: string | null }>`SELECT id, name FROM rsc ORDER BY id`.execute(db)).rows;
    const categories = (await sql<{ id: number; name: string | null }>`SELECT c.id, r.name FROM category c JOIN rsc r USING (id) ORDER BY c.id`.execute(db)).rows;
    const predicates = (await sql<{ predicate: number }>`SELECT DISTINCT predicate_id AS predicate FROM edge ORDER BY 1`.execute(db)).rows;
    const paths = [
      '/api/agent', '/api/agent/schema', '/api/agent/schema?kind=predicate', '/api/agent/schema?kind=category&language=nl',
      '/llms.txt', '/api-help', '/openapi.json', '/.well-known/api-catalog', '/.well-known/ard.json', '/.well-known/ai-catalog.json',
      '/api/agent/search', '/api/agent/search?pagelen=3', '/api/agent/search?text=harbour%20data&pagelen=20', '/api/agent/search?text=zzzabsent',
      '/api/agent/search?publication_after=2020-01-01&publication_before=2030-12-31', '/api/agent/search?language=nl&pagelen=100',
      '/api/agent/search?page=2&pagelen=2', '/api/agent/search?sort=bogus', '/api/agent/search?pagelen=20&pagelen=20', '/api/agent/search?unknown=1',
      '/api/agent/resource/999999999', '/agent/resource/999999999/markdown', '/api/agent/related/999999999', '/api/agent/related/1?direction=up',
    ];
    for (const sort of ['id', 'newest', 'oldest', 'modified']) paths.push(`/api/agent/search?sort=${sort}&pagelen=20`, `/api/agent/search?sort=${sort}&text=harbour&pagelen=2`);
    for (const c of categories) {
      paths.push(`/api/agent/search?cat=${c.id}`);
      if (c.name) paths.push(`/api/agent/search?cat=${encodeURIComponent(c.name)}&sort=newest`, `/llms/${encodeURIComponent(c.name)}.txt`);
    }
    for (const r of resources) {
      for (const ref of [String(r.id), ...(r.name ? [encodeURIComponent(r.name)] : [])]) {
        paths.push(`/api/agent/resource/${ref}`, `/api/agent/resource/${ref}?language=nl`, `/agent/resource/${ref}/markdown`, `/agent/resource/${ref}/markdown?language=nl`);
        paths.push(`/api/agent/related/${ref}`, `/api/agent/related/${ref}?direction=in&pagelen=20`, `/api/agent/related/${ref}?pagelen=2`);
      }
      for (const p of predicates) paths.push(`/api/agent/related/${r.id}?predicate=${p.predicate}`, `/api/agent/related/${r.id}?direction=in&predicate=${p.predicate}`);
    }
    return paths;
  } finally {
    await content.close();
  }
}

/** The probes for one path: GET, HEAD, GET with the ETag just seen, and for the first of its kind a POST (405). */
async function* probesOf(paths: string[], origin: string, resources: { ids: string[] }): AsyncGenerator<Probe> {
  const seenPostFor = new Set<string>();
  for (const path of paths) {
    yield { method: 'GET', path };
    yield { method: 'HEAD', path };
    const first = await capture(origin, { method: 'GET', path });
    const etag = first.headers.etag;
    if (typeof etag === 'string') yield { method: 'GET', path, conditional: true };
    const next = /"next_url":"([^"]+)"/.exec(first.body)?.[1];
    if (next) yield { method: 'GET', path: new URL(next).pathname + new URL(next).search };
    const kind = path.split('?')[0]!.replace(/\/[^/]+(\/markdown)?$/, '/*$1');
    if (!seenPostFor.has(kind)) {
      seenPostFor.add(kind);
      yield { method: 'POST', path };
    }
  }
  for (const id of resources.ids) {
    for (const accept of ['application/json', 'text/markdown', 'text/html, text/markdown, text/plain, */*;q=0.8']) yield { method: 'GET', path: `/id/${id}`, headers: { accept } };
  }
}

async function main(): Promise<void> {
  const rev = process.argv[2];
  if (!rev) throw new Error('behaviour-capture: name the revision to compare with (e.g. HEAD)');
  const url = await prepareDatabase();
  const paths = await probePaths(url);
  // With paths named: the after side is `rev` with those paths copied from this tree.
  const changed = process.argv.slice(3);
  const other = checkoutRevision(rev);
  const patched = changed.length ? checkoutRevision(rev) : undefined;
  const servers: { stop(): void }[] = [];
  try {
    for (const path of changed) cpSync(join(HERE, path), join(patched!.tree, path), { recursive: true });
    const afterTree = patched?.tree ?? HERE;
    buildTree(afterTree);
    buildTree(other.tree);
    const before = await serveTree(other.tree, url);
    servers.push(before);
    const after = await serveTree(afterTree, url);
    servers.push(after);
    const ids = paths.filter((p) => /^\/api\/agent\/resource\/\d+$/.test(p)).map((p) => p.split('/').pop()!);
    let compared = 0;
    const differences: string[] = [];
    const statuses = new Map<number, number>();
    for await (const probe of probesOf(paths, before.plugin, { ids })) {
      const [b, a] = await Promise.all([answer(before.plugin, probe), answer(after.plugin, probe)]);
      compared++;
      statuses.set(b.status, (statuses.get(b.status) ?? 0) + 1);
      const sb = JSON.stringify(b);
      const sa = JSON.stringify(a);
      if (sb !== sa) differences.push(`${probe.method} ${probe.path}${probe.headers ? ` ${JSON.stringify(probe.headers)}` : ''}${probe.conditional ? ' (If-None-Match: its ETag)' : ''}\n  before: ${sb.slice(0, 600)}\n  after:  ${sa.slice(0, 600)}`);
    }
    const byStatus = [...statuses].sort(([x], [y]) => x - y).map(([s, n]) => `${s}: ${n}`).join(', ');
    const afterName = changed.length ? `${rev} with ${changed.join(', ')} of this tree` : 'this tree';
    process.stdout.write(`behaviour capture, ${rev} vs ${afterName}: ${compared} requests (${byStatus}); ${differences.length ? `${differences.length} DIFFERENT` : 'all identical (status, headers, body)'}\n`);
    for (const d of differences.slice(0, 20)) process.stdout.write(`${d}\n`);
    if (differences.length) process.exitCode = 1;
  } finally {
    for (const s of servers) s.stop();
    other.remove();
    patched?.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
