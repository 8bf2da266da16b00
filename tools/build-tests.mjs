// The compiled suite of a whole run (tools/run-tests.mjs starts it as its first job): `tsc` over the
// whole project (src, migrations, test, example-site, bench, tools) checks the types, as `tsc --noEmit`
// did, and also writes the JavaScript to `.test-build/`, so the test files run as plain JavaScript.
// Under `node --import tsx` every module a file loads (about a thousand, most from node_modules) goes
// through the loader hooks' thread: about 1.5 s of CPU more per file than plain Node (2.5 against
// 1.0 s to load the example site and its harness), times 80 files on a 2-core machine.
// Files that are not TypeScript (fixtures, templates, views, media, .mjs scripts) and the top-level
// folders the code finds beside itself (examples, templates, docs) are symbolic links into the tree,
// so what a module finds next to itself is the same as under tsx; there is no package.json in
// `.test-build/`, so the repository's (`"type": "module"`) applies and the repository root is its parent.
//   node tools/build-tests.mjs        (exit status: tsc's; the output is written even with type errors)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUILD_DIR = '.test-build';
/** What tsc compiles (tsconfig.json's `include`). */
const COMPILED = ['src', 'migrations', 'test', 'example-site', 'bench', 'tools'];
/** Found by the code beside the compiled folders. */
const BESIDE = ['examples', 'templates', 'data', 'docs', 'README.md', 'LICENSE'];

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const out = path.join(root, BUILD_DIR);

const holdsTypeScript = (dir) =>
  readdirSync(dir, { withFileTypes: true }).some((e) => (e.isDirectory() ? holdsTypeScript(path.join(dir, e.name)) : e.name.endsWith('.ts')));

/** Links every entry of `dir` that tsc does not write (anything but .ts files and folders holding them) into the output. */
function mirror(relative) {
  const source = path.join(root, relative);
  mkdirSync(path.join(out, relative), { recursive: true });
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = path.join(relative, entry.name);
    if (entry.isDirectory() && holdsTypeScript(path.join(root, from))) mirror(from);
    else if (!entry.name.endsWith('.ts') && !existsSync(path.join(out, from))) symlinkSync(path.join(root, from), path.join(out, from));
  }
}

/** Builds the output; resolves to tsc's exit status. */
export function buildTests({ stdio = 'inherit' } = {}) {
  rmSync(out, { recursive: true, force: true });
  const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
  const run = spawnSync(process.execPath, [tsc, '--noEmit', 'false', '--outDir', BUILD_DIR, '--declaration', 'false', '--sourceMap', 'true'], { cwd: root, stdio });
  for (const dir of COMPILED) if (existsSync(path.join(root, dir)) && statSync(path.join(root, dir)).isDirectory()) mirror(dir);
  for (const name of BESIDE) if (existsSync(path.join(root, name))) symlinkSync(path.join(root, name), path.join(out, name));
  return run.status ?? 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(buildTests());
