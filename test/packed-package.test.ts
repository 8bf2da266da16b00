/**
 * The published artifact as a user gets it: `npm pack`, the tarball installed into Express 4 and
 * Express 5 projects in a temporary directory outside the repository, the README's host
 * (`examples/minimal-host.mjs` with `examples/first-resource.mjs`) run unchanged on the machine's
 * Node (both projects), Node 24 (Express 4) and Node 22 (Express 5) (binaries from the npm registry's `node` package), a strict TypeScript
 * host typechecked against the matching `@types/express`, and the installed `migrate` command.
 * Needs the npm registry (the npm cache makes later runs faster).
 */
import { describe, it, before, after } from 'node:test';
import { migrations } from '../migrations/index.js';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const REPO = process.cwd();
const NODE_LINES = ['22', '24'] as const;
const EXPRESS_MAJORS = ['4', '5'] as const;
/**
 * The other Node line each Express major's project is served on (beside the machine's Node, which
 * serves both): every line and every major at least once, each pair of a line and a major that differ
 * from the machine's once (a full grid served the README host six times on PGlite for the same
 * assurance, about a minute of a 2-core CI run).
 */
const OTHER_LINE: Record<(typeof EXPRESS_MAJORS)[number], (typeof NODE_LINES)[number]> = { '4': '24', '5': '22' };
/** A hang guard for one step (installs, a server start on a busy machine); never a timing assertion. */
const STEP_TIMEOUT_MS = 600_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a child: no npm script variables, no DATABASE_URL unless given. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^npm_/i.test(k) && k !== 'DATABASE_URL' && k !== 'INIT_CWD') env[k] = v;
  }
  return { ...env, ...extra };
}

function run(command: string, args: string[], cwd: string, env = childEnv(), spawned?: (pid: number) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) spawned?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function mustRun(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<string> {
  const r = await run(command, args, cwd, env);
  assert.equal(r.code, 0, `${command} ${args.join(' ')} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** A fresh PostgreSQL database on the DATABASE_URL server, and how to drop it. */
async function freshPostgres(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ead_packed_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** The host the test runs: the README's snippet, then the README's first resource through `agent`. */
const SMOKE_HOST = `import { agent } from './minimal-host.mjs'
import { addFirstResource } from './first-resource.mjs'
import { sql } from 'express-agent-discovery'
const id = await addFirstResource(agent.database.db)
// A long read (about 24 KiB of HTML, over the in-process threshold): its Markdown comes from the packed worker thread.
await sql\`INSERT INTO rsc (name, category_id, is_published, visibility, publication_start, language, title, body)
  SELECT 'long_read', category_id, is_published, visibility, publication_start, language,
    \${JSON.stringify({ en: 'Long read' })}::jsonb, \${JSON.stringify({ en: '<p>The tug sails at <em>noon</em>.</p>'.repeat(600) })}::jsonb
  FROM rsc WHERE id = \${id}\`.execute(agent.database.db)
console.log(\`ready \${id} \${process.version}\`)
`;

/** A TypeScript host using the public types; the expect-error line proves the table types are not \`any\`. */
const TYPED_HOST = `import express, { type Request, type Response } from 'express'
import type { Insertable, Kysely } from 'kysely'
import {
  anonymousVisible,
  createAgentDiscovery,
  indexable,
  localize,
  type AgentDiscovery,
  type AgentDiscoveryOptions,
  type Database,
  type RscTable,
} from 'express-agent-discovery'

const options: AgentDiscoveryOptions = {
  siteTitle: 'Typed host',
  languages: ['en', 'nl'],
  database: process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { memory: true },
  migrate: true,
  pageUrl: ({ id, language }) => \`/\${language}/page/\${id}\`,
}
const agent: AgentDiscovery = await createAgentDiscovery(options)
const app = express()
app.use(agent.linkHeaders)
app.use(agent.router)
app.get('/:lang/page/:id', agent.resourceLinks('id'), async (req: Request, res: Response) => {
  const head: string = await agent.headLinks(req, Number(req.params.id))
  res.type('html').send(head)
})
app.get('/custom/:id', async (req: Request, res: Response) => {
  await agent.setResourceHeaders(req, res, Number(req.params.id))
  res.end()
})

const db: Kysely<Database> = agent.database.db
const row: Insertable<RscTable> = { category_id: 1, language: ['en'], title: JSON.stringify({ en: 'Hi' }), publication_start: new Date() }
await db.insertInto('rsc').values(row).execute()
// @ts-expect-error unknown column
await db.insertInto('rsc').values({ category_id: 1, no_such_column: true }).execute()
const visible = await db.selectFrom('rsc').select(['id', 'title']).where(anonymousVisible()).where(indexable(false)).execute()
export const title: string = localize(visible[0]?.title, 'en')
export { app }
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: false,
    noEmit: true,
  },
  files: ['host.ts'],
};

interface PackedFile {
  path: string;
  size: number;
  mode: number;
}

const work = mkdtempSync(path.join(os.tmpdir(), 'ead-packed-'));
let tarball = '';
let packedFiles: PackedFile[] = [];
const nodeBinaries = new Map<string, string>();
const projects = new Map<string, string>();
/** The consumer type check of each Express major's project. */
const typechecks = new Map<string, Background>();
/** The installed command's first `migrate --data-dir` into a new PGlite directory (Express 5 project). */
let firstMigrate: Background | undefined;
const MIGRATE_DIR = () => path.join(projects.get('5')!, 'data', 'nested');

interface Background {
  result: Promise<Run>;
  /** Back to the ordinary priority, and the result: the test waits for it now. */
  wait(): Promise<Run>;
}

/**
 * A command a test checks later (a type check, a first migration), started as soon as its project is
 * installed, at the lowest CPU priority: it takes only the CPU the README hosts checked meanwhile
 * leave idle (their reads keep the machine, and their 5 s budget), and its test raises it to the
 * ordinary priority when it waits for the result. The command and what is checked are the same.
 */
function inBackground(command: string, args: string[], cwd: string): Background {
  let child: number | undefined;
  const priority = (value: number) => {
    try {
      if (child !== undefined) os.setPriority(child, value);
    } catch {
      // Already finished, or not allowed to raise it again (not root): it finishes at the low priority.
    }
  };
  const result = run(command, args, cwd, childEnv(), (pid) => {
    child = pid;
    priority(os.constants.priority.PRIORITY_LOW);
  });
  result.catch(() => {});
  return {
    result,
    wait: () => {
      priority(os.constants.priority.PRIORITY_NORMAL);
      return result;
    },
  };
}

/** Installs the tarball, one Express major and its types, and TypeScript into a new project. */
async function installHost(major: string): Promise<string> {
  const dir = path.join(work, `express${major}-host`);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `host-express${major}`, private: true, type: 'module' }));
  await mustRun('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball, `express@${major}`, `@types/express@${major}`, 'typescript@5.9.3'], dir);
  for (const file of ['minimal-host.mjs', 'first-resource.mjs']) copyFileSync(path.join(REPO, 'examples', file), path.join(dir, file));
  writeFileSync(path.join(dir, 'smoke-host.mjs'), SMOKE_HOST);
  writeFileSync(path.join(dir, 'host.ts'), TYPED_HOST);
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  return dir;
}

/** The path of a Node binary of another release line, from the registry's `node` package. */
async function nodeBinary(line: string): Promise<string> {
  const out = await mustRun('npx', ['-y', '-p', `node@${line}`, 'node', '-p', 'process.execPath'], work);
  return out.trim();
}

/** Starts the README host and waits for its URL and the id of the resource it published. */
async function startHost(cwd: string, node: string, env: NodeJS.ProcessEnv) {
  const child = spawn(node, ['smoke-host.mjs'], { cwd, env: { ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const ready = new Promise<{ base: string; id: number; version: string }>((resolve, reject) => {
    const check = () => {
      const listening = /listening on (http:\/\/localhost:\d+)\//.exec(stdout);
      const published = /^ready (\d+) (v\d+\.\d+\.\d+)$/m.exec(stdout);
      if (listening && published) resolve({ base: listening[1]!, id: Number(published[1]), version: published[2]! });
    };
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
      check();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => reject(new Error(`the host exited (${code}) before serving:\n${stdout}\n${stderr}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('close', () => resolve());
      child.kill('SIGTERM');
    });
  try {
    return { ...(await ready), stop, output: () => `${stdout}\n${stderr}` };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What a new user checks by hand: discovery documents, a search, the resource, its Markdown and its page. */
async function checkSite(base: string, id: number): Promise<void> {
  const home = await fetch(`${base}/`, { method: 'HEAD' });
  assert.equal(home.status, 200);
  assert.ok((home.headers.get('link') ?? '').includes(`<${base}/llms.txt>; rel="describedby"`), home.headers.get('link') ?? '');

  const llms = await fetch(`${base}/llms.txt`);
  assert.equal(llms.status, 200);
  assert.match(llms.headers.get('content-type') ?? '', /^text\/plain/);
  const llmsText = await llms.text();
  assert.match(llmsText, /^# Harbour Example\n\n> Articles about the old harbour\.\n/);
  assert.ok(llmsText.includes(`- [Articles](${base}/api/agent/search?cat=article)`), llmsText);

  const catalog = await fetch(`${base}/.well-known/api-catalog`);
  assert.equal(catalog.status, 200);
  assert.match(catalog.headers.get('content-type') ?? '', /^application\/linkset\+json/);
  const linkset = ((await catalog.json()) as { linkset: Array<Record<string, unknown>> }).linkset;
  const api = linkset.find((c) => c.anchor === `${base}/api/agent`) as { 'service-desc': Array<{ href: string }> } | undefined;
  assert.equal(api?.['service-desc'][0]?.href, `${base}/openapi.json`);

  const search = await fetch(`${base}/api/agent/search?text=ferry`);
  assert.equal(search.status, 200);
  const found = ((await search.json()) as { result: { items: Array<{ id: number; title: string }> } }).result.items;
  assert.deepEqual(found.map((i) => [i.id, i.title]), [[id, 'Hello, harbour']]);

  const read = await fetch(`${base}/api/agent/resource/hello_harbour`);
  assert.equal(read.status, 200);
  const resource = ((await read.json()) as { result: { id: number; content: string; category: { name: string } } }).result;
  assert.equal(resource.id, id);
  assert.equal(resource.category.name, 'article');
  assert.match(resource.content, /The ferry docks at _dawn_\./);

  const markdown = await fetch(`${base}/agent/resource/${id}/markdown`);
  assert.equal(markdown.status, 200);
  assert.match(markdown.headers.get('content-type') ?? '', /^text\/markdown/);
  assert.match(await markdown.text(), /The ferry docks at _dawn_\./);
  const longRead = await fetch(`${base}/agent/resource/long_read/markdown`);
  assert.equal(longRead.status, 200);
  assert.equal((await longRead.text()).split('The tug sails at _noon_.\n').length - 1, 600);

  const page = await fetch(`${base}/en/page/${id}`);
  assert.equal(page.status, 200);
  const link = page.headers.get('link') ?? '';
  assert.ok(link.includes(`<${base}/.well-known/api-catalog>; rel="api-catalog"`), link);
  assert.ok(link.includes(`/agent/resource/${id}/markdown`), link);
  assert.ok(link.includes('<https://hub.example.org/>; rel="hub"'), link);
  const html = await page.text();
  assert.match(html, /<title>Hello, harbour<\/title>/);
  assert.match(html, /<link rel="alternate" href="[^"]*\/agent\/resource\/\d+\/markdown[^"]*" type="text\/markdown"/);

  const agentPage = await fetch(`${base}/en/page/${id}`, { headers: { accept: 'text/markdown, text/html;q=0.8' } });
  assert.equal(agentPage.status, 200);
  assert.match(agentPage.headers.get('content-type') ?? '', /^text\/markdown/);
  assert.match(await agentPage.text(), /The ferry docks at _dawn_\./);

  assert.equal((await fetch(`${base}/en/page/999999`)).status, 404);
  assert.equal((await fetch(`${base}/xx/page/${id}`)).status, 404);
  const negotiated = await fetch(`${base}/id/${id}`, { headers: { accept: 'text/markdown' }, redirect: 'manual' });
  assert.equal(negotiated.status, 303);
  assert.match(negotiated.headers.get('location') ?? '', new RegExp(`^${base}/agent/resource/${id}/markdown`));
  const browser = await fetch(`${base}/id/${id}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
  assert.equal(browser.status, 303);
  assert.equal(browser.headers.get('location'), `/en/page/${id}`);
}

async function smoke(cwd: string, node: string, line: string, env: NodeJS.ProcessEnv): Promise<void> {
  const host = await startHost(cwd, node, env);
  try {
    assert.equal(host.version.split('.')[0], `v${line}`, `expected Node ${line}, the host ran ${host.version}`);
    await checkSite(host.base, host.id);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- host output ---\n${host.output()}`, { cause: error });
  } finally {
    await host.stop();
  }
}

describe('the packed package', { timeout: 3 * STEP_TIMEOUT_MS }, () => {
  before(async () => {
    const out = await mustRun('npm', ['pack', '--json', '--loglevel=error', '--pack-destination', work], REPO);
    const manifest = JSON.parse(out.slice(out.indexOf('[\n'))) as Array<{ filename: string; files: PackedFile[] }>;
    tarball = path.join(work, manifest[0]!.filename);
    packedFiles = manifest[0]!.files;
    const [four, five, ...binaries] = await Promise.all([
      ...EXPRESS_MAJORS.map((m) => installHost(m)),
      ...NODE_LINES.map((line) => nodeBinary(line)),
    ]);
    projects.set('4', four!);
    projects.set('5', five!);
    for (const major of EXPRESS_MAJORS) {
      const dir = projects.get(major)!;
      typechecks.set(major, inBackground(process.execPath, [path.join(dir, 'node_modules/typescript/bin/tsc'), '-p', '.'], dir));
    }
    firstMigrate = inBackground(path.join(projects.get('5')!, 'node_modules/.bin/express-agent-discovery'), ['migrate', '--data-dir', MIGRATE_DIR()], projects.get('5')!);
    NODE_LINES.forEach((line, i) => nodeBinaries.set(line, binaries[i]!));
  }, { timeout: STEP_TIMEOUT_MS });

  after(() => rmSync(work, { recursive: true, force: true }));

  it('ships compiled code for everything imported, templates, LICENSE and README; no sources or maps', () => {
    const paths = packedFiles.map((f) => f.path);
    for (const required of ['LICENSE', 'README.md', 'package.json', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/markdown/convert-worker.js', 'dist/src/cli/main.js', 'dist/migrations/index.js', 'dist/migrations/0001_content_schema.js', 'dist/migrations/0002_agent_settings.js', 'templates/agent_admin_layout.njk', 'templates/agent_admin_settings.njk', 'templates/_agent_content.njk', 'templates/agent_api_help.njk', 'templates/agent_admin_agents.njk', 'data/agent-catalogue.json', 'data/ai-referrers.json',
      // The CMS guides tell a user to copy these out of node_modules/express-agent-discovery/.
      'examples/cms/strapi/setup.sh', 'examples/cms/strapi/host.mjs', 'examples/cms/directus/setup.sh', 'examples/cms/directus/host.mjs']) {
      assert.ok(paths.includes(required), `missing ${required}`);
    }
    const bin = packedFiles.find((f) => f.path === 'dist/src/cli/main.js')!;
    assert.ok(bin.mode & 0o111, `the built bin is executable (npx from a checkout runs it): mode ${bin.mode.toString(8)}`);
    const unexpected = paths.filter(
      (p) => p.endsWith('.map') || (p.endsWith('.ts') && !p.endsWith('.d.ts')) || !/^(dist\/(src|migrations)\/|templates\/|data\/|docs\/|examples\/|LICENSE$|README\.md$|package\.json$)/.test(p),
    );
    assert.deepEqual(unexpected, []);
  });

  for (const major of EXPRESS_MAJORS) {
    describe(`installed in an Express ${major} project`, () => {
      // With DATABASE_URL the Express 5 project serves the README host on the machine's Node against
      // PostgreSQL (below), and each project on its other Node line on PGlite: every line, major and
      // backend is served at least once, so the machine's Node on PGlite adds nothing but CI time (the
      // installed command's `migrate --data-dir` below still opens PGlite on the machine's Node).
      const servedElsewhere = Boolean(process.env.DATABASE_URL);
      it(`serves the README host on the machine's Node (${process.version}), in-memory PGlite`, { skip: servedElsewhere && 'DATABASE_URL is set: this Node serves the Express 5 project on PostgreSQL below, and this project is served on another Node line' }, async () => {
        await smoke(projects.get(major)!, process.execPath, process.versions.node.split('.')[0]!, childEnv());
      });

      const line = OTHER_LINE[major];
      it(`serves the README host on Node ${line}, in-memory PGlite`, async () => {
        await smoke(projects.get(major)!, nodeBinaries.get(line)!, line, childEnv());
      });

      it('typechecks a TypeScript host with strict and skipLibCheck: false', async () => {
        const r = await typechecks.get(major)!.wait();
        assert.equal(r.code, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
        assert.equal(r.stdout + r.stderr, '');
      });
    });
  }

  it('serves the README host on PostgreSQL (DATABASE_URL)', { skip: !process.env.DATABASE_URL && 'DATABASE_URL is not set' }, async () => {
    const db = await freshPostgres(process.env.DATABASE_URL!);
    try {
      await smoke(projects.get('5')!, process.execPath, process.versions.node.split('.')[0]!, childEnv({ DATABASE_URL: db.url }));
    } finally {
      await db.drop();
    }
  });

  describe('the installed express-agent-discovery command', () => {
    const bin = () => path.join(projects.get('5')!, 'node_modules/.bin/express-agent-discovery');
    const cli = (args: string[], env = childEnv()) => run(bin(), args, projects.get('5')!, env);

    it('runs through its shebang: --help exits 0, no database is a usage error (2)', async () => {
      const help = await cli(['--help']);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /^ {2}migrate {2}/m);
      const none = await cli(['migrate']);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /no database: set DATABASE_URL/);
    });

    it('migrate --data-dir creates the tables in a new PGlite directory, then reports up to date', async () => {
      const dir = MIGRATE_DIR();
      const first = await firstMigrate!.wait();
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout, `applied: ${Object.keys(migrations).join(', ')}\n`);
      const again = await cli(['migrate', '--data-dir', dir]);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stdout, 'schema is up to date\n');
    });

    it('migrate applies the schema to a fresh PostgreSQL database', { skip: !process.env.DATABASE_URL && 'DATABASE_URL is not set' }, async () => {
      const db = await freshPostgres(process.env.DATABASE_URL!);
      try {
        const first = await cli(['migrate', '--database-url', db.url]);
        assert.equal(first.code, 0, first.stderr);
        assert.equal(first.stdout, `applied: ${Object.keys(migrations).join(', ')}\n`);
        const again = await cli(['migrate'], childEnv({ DATABASE_URL: db.url }));
        assert.equal(again.code, 0, again.stderr);
        assert.equal(again.stdout, 'schema is up to date\n');
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          const tables = await client.query<{ t: string }>(
            `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
          );
          assert.deepEqual(tables.rows.map((r) => r.t), ['agent_discovery_charges', 'agent_discovery_content_version', 'agent_discovery_external_id', 'agent_discovery_migration', 'agent_discovery_migration_lock', 'agent_discovery_policy_log', 'agent_discovery_settings', 'agent_discovery_traffic', 'agent_discovery_traffic_referral', 'agent_discovery_traffic_resource', 'agent_discovery_visibility_log', 'category', 'edge', 'medium', 'predicate_category', 'rsc']);
        } finally {
          await client.end();
        }
      } finally {
        await db.drop();
      }
    });
  });
});
