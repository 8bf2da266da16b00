import nunjucks from 'nunjucks';
import { PLUGIN_TEMPLATE_DIR } from '../options.js';

/**
 * The discovery documents' own Nunjucks environment: the site's override directories first, the
 * plugin's `templates/` last (the first directory holding the file wins), autoescape on. Never the
 * host's environment, never `nunjucks.configure`.
 */
export function createDiscoveryTemplates(siteDirs: readonly string[]): nunjucks.Environment {
  const loader = new nunjucks.FileSystemLoader([...siteDirs, PLUGIN_TEMPLATE_DIR], { noCache: false });
  return new nunjucks.Environment(loader, { autoescape: true, throwOnUndefined: false, trimBlocks: true, lstripBlocks: true });
}
