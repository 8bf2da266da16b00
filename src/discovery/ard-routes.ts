import type { ResolvedOptions } from '../options.js';
import { effectiveOptions } from '../settings/effective-settings.js';
import { PATHS } from '../paths.js';
import { buildArdManifest } from './ard-manifest.js';
import { documentRoute, type DocumentBuilder } from './document-route.js';
import { MEDIA } from '../links/site-links.js';

/**
 * `GET /.well-known/ard.json` (`application/json`), and the same manifest at
 * `/.well-known/ai-catalog.json` as an AI Catalog (`application/ai-catalog+json`), where ARD v0.9
 * resolvers, MCP clients and scanners look for it. `updatedAt` is the mount time.
 */
export function ardRoutes(options: ResolvedOptions) {
  const mountedAt = new Date();
  const manifest: DocumentBuilder = async (ctx, base) => ({ body: JSON.stringify(buildArdManifest(await effectiveOptions(ctx), base, mountedAt)) });
  return [documentRoute(PATHS.ard, MEDIA.ard, manifest), documentRoute(PATHS.aiCatalog, MEDIA.aiCatalog, manifest)];
}
