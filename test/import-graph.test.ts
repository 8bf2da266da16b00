// The layers of src/ as docs/architecture.md draws them, checked on the import graph of the source:
// the route folders never import each other, the core below them never imports a route folder, the
// outside checker imports nothing of the server, and there is no import cycle.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from './support/repo.js';

const SRC = resolve(REPO_ROOT, 'src');

/** Every module of src/, by path relative to src/ (`facade/search-route.ts`). */
function modules(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(join(dir, e.name)) : e.name.endsWith('.ts') ? [relative(SRC, join(dir, e.name))] : [],
  );
}

/** The modules of src/ a module imports or re-exports (relative specifiers only, types included; `migrations/` is outside src/). */
function importsOf(module: string): string[] {
  const text = readFileSync(join(SRC, module), 'utf8');
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gms)].map((m) => m[1]!);
  return specifiers
    .map((s) => relative(SRC, resolve(dirname(join(SRC, module)), s.replace(/\.js$/, '.ts'))))
    .filter((target) => !target.startsWith('..'));
}

const graph = new Map(modules().map((m) => [m, importsOf(m)]));
const folderOf = (module: string): string => (module.includes('/') ? module.split('/')[0]! : module);

/** The folders of routes: each answers its own paths and builds on the core only. */
const ROUTE_FOLDERS = ['facade', 'discovery', 'mcp', 'admin'];
/** What composes the routes: the factory and the top-level router (the route table). */
const COMPOSITION = ['index.ts', 'router.ts'];
/** What the outside checker may use besides its own folder: leaf definitions shared with the server. */
const CHECKER_LEAVES = ['link-relations.ts', 'page-url-forms.ts', 'paths.ts', 'http/urls.ts'];

/** Every module reachable from `start` through imports. */
function reachable(start: string): Set<string> {
  const seen = new Set<string>();
  const todo = [start];
  while (todo.length) {
    for (const next of graph.get(todo.pop()!) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        todo.push(next);
      }
    }
  }
  return seen;
}

describe('import graph of src/', () => {
  it('reads the source: every relative import names a module of src/', () => {
    assert.ok(graph.size > 100, `${graph.size} modules`);
    const missing = [...graph].flatMap(([m, deps]) => deps.filter((d) => !graph.has(d)).map((d) => `${m} → ${d}`));
    assert.deepEqual(missing, []);
  });

  it('route folders never import each other (shared pieces live in the core below them)', () => {
    const sideways = [...graph].flatMap(([m, deps]) => {
      const from = folderOf(m);
      if (!ROUTE_FOLDERS.includes(from)) return [];
      return deps.filter((d) => ROUTE_FOLDERS.includes(folderOf(d)) && folderOf(d) !== from).map((d) => `${m} → ${d}`);
    });
    assert.deepEqual(sideways, []);
  });

  it('the core never imports a route folder or the composition above it', () => {
    const upward = [...graph].flatMap(([m, deps]) => {
      if (ROUTE_FOLDERS.includes(folderOf(m)) || COMPOSITION.includes(m) || folderOf(m) === 'cli') return [];
      return deps.filter((d) => ROUTE_FOLDERS.includes(folderOf(d)) || COMPOSITION.includes(d)).map((d) => `${m} → ${d}`);
    });
    assert.deepEqual(upward, []);
  });

  it('content, Markdown composition and the database layer never import HTTP', () => {
    const http = [...graph].flatMap(([m, deps]) =>
      ['content', 'markdown', 'db'].includes(folderOf(m)) ? deps.filter((d) => folderOf(d) === 'http').map((d) => `${m} → ${d}`) : [],
    );
    assert.deepEqual(http, []);
  });

  it('the checker (check/) reaches nothing of the server but shared leaf definitions: it checks any site', () => {
    const outside = [...graph.keys()]
      .filter((m) => folderOf(m) === 'check')
      .flatMap((m) => [...reachable(m)].filter((d) => folderOf(d) !== 'check' && !CHECKER_LEAVES.includes(d)).map((d) => `${m} ⇒ ${d}`));
    assert.deepEqual(outside, []);
  });

  it('has no import cycle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (m: string, path: string[]) => {
      if (state.get(m) === 'done') return;
      if (state.get(m) === 'open') return void cycles.push([...path.slice(path.indexOf(m)), m].join(' → '));
      state.set(m, 'open');
      for (const d of graph.get(m) ?? []) visit(d, [...path, m]);
      state.set(m, 'done');
    };
    for (const m of graph.keys()) visit(m, []);
    assert.deepEqual(cycles, []);
  });
});
