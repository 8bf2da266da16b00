import { existsSync } from 'node:fs';
import path from 'node:path';
import nunjucks from 'nunjucks';
import { PLUGIN_TEMPLATE_DIR } from '../options.js';

/** Names under this prefix always load the plugin's shipped template, so an override can extend it. */
export const DEFAULT_TEMPLATE_PREFIX = 'agent-default/';

interface EnvironmentInfo {
  /** Lookup order: site override directories first, the plugin's directory last. */
  readonly searchPaths: readonly string[];
  readonly exists: Map<string, boolean>;
}

const environments = new WeakMap<nunjucks.Environment, EnvironmentInfo>();

/**
 * The plugin's own Nunjucks environment (never `nunjucks.configure`, which would take over the
 * host's). Templates load only from files: `name` from the first of `siteDirs` that holds it, else
 * from the plugin's `templates/`; `agent-default/<name>` from the plugin's `templates/` only.
 * Autoescaping is on; compiled templates are cached and files are not watched (restart to pick up
 * an edited template).
 *
 * ```ts
 * const env = createTemplateEnvironment(['/srv/site/agent-templates'])
 * env.render('_agent_content.njk', { id: 1, body_html: '<p>Hi</p>', blocks_html: '' })
 * ```
 */
export function createTemplateEnvironment(siteDirs: readonly string[]): nunjucks.Environment {
  const searchPaths = Object.freeze([...siteDirs.map((d) => path.resolve(d)), PLUGIN_TEMPLATE_DIR]);
  const shipped = new nunjucks.FileSystemLoader(PLUGIN_TEMPLATE_DIR, { noCache: false, watch: false });
  const defaults: nunjucks.ILoader = {
    getSource(name: string) {
      return name.startsWith(DEFAULT_TEMPLATE_PREFIX) ? shipped.getSource(name.slice(DEFAULT_TEMPLATE_PREFIX.length)) : null;
    },
  } as nunjucks.ILoader;
  const env = new nunjucks.Environment(
    [defaults, new nunjucks.FileSystemLoader([...searchPaths], { noCache: false, watch: false })],
    { autoescape: true, throwOnUndefined: false, trimBlocks: true, lstripBlocks: true },
  );
  environments.set(env, { searchPaths, exists: new Map() });
  return env;
}

/**
 * Whether `name` (e.g. `_agent_block_gallery.article.njk`) resolves to a file in the environment's
 * lookup order. Answers are cached with the environment, like its compiled templates.
 */
export function templateExists(env: nunjucks.Environment, name: string): boolean {
  const info = environments.get(env);
  if (!info) throw new TypeError('express-agent-discovery: templateExists needs an environment from createTemplateEnvironment');
  let known = info.exists.get(name);
  if (known === undefined) {
    const shippedOnly = name.startsWith(DEFAULT_TEMPLATE_PREFIX);
    const relative = shippedOnly ? name.slice(DEFAULT_TEMPLATE_PREFIX.length) : name;
    const dirs = shippedOnly ? [PLUGIN_TEMPLATE_DIR] : info.searchPaths;
    known = dirs.some((dir) => {
      const full = path.resolve(dir, relative);
      return full.startsWith(dir + path.sep) && existsSync(full);
    });
    info.exists.set(name, known);
  }
  return known;
}

/** The directories an environment looks templates up in, in order. */
export function templateSearchPaths(env: nunjucks.Environment): readonly string[] {
  return environments.get(env)?.searchPaths ?? [];
}
