import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository's root, with a trailing separator: the nearest folder above this file that holds a
 * package.json. The same under tsx (test/support/) and compiled (.test-build/test/support/, where
 * tools/build-tests.mjs writes no package.json), so files a test reads by path are the sources.
 */
export const REPO_ROOT = ((): string => {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return `${dir}${path.sep}`;
    if (path.dirname(dir) === dir) throw new Error('no package.json above test/support');
  }
})();
