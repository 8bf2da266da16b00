import type { OperationSpec } from '../http/operations.js';
import { fixedBody, fixedBodyOf, MARKDOWN_CONTENT_TYPE } from '../http/representation.js';
import type { RouteTool } from '../http/route.js';
import { absoluteUrl } from '../http/urls.js';
import { MEDIA } from '../links/site-links.js';
import { PATHS } from '../paths.js';
import { effectiveOptions } from '../settings/effective-settings.js';
import { buildSkillMd, buildSkillsIndex, type SkillSite } from './agent-skill.js';
import { documentRoute } from './document-route.js';
import { cachedPerSettings } from './cached-document.js';

/**
 * `GET /.well-known/agent-skills/index.json` (Agent Skills Discovery v0.2, `application/json`) and the
 * `SKILL.md` it lists (`text/markdown`, with `x-markdown-tokens`). Both are built once per settings
 * value and public base, the index from the very bytes of the `SKILL.md` served (its digest), so the
 * two never disagree. The skill teaches the content operations of the route table (not the
 * compatibility reads) and, with `mcp` on, the table's MCP tools.
 */
export function agentSkillsRoutes(operations: () => readonly OperationSpec[], tools: () => readonly RouteTool[]) {
  const documents = cachedPerSettings('agent-skills', (options, base) => {
    const site: SkillSite = {
      title: options.siteTitle,
      base,
      ...(options.description ? { description: options.description } : {}),
      ...(options.mcp ? { mcp: { endpoint: absoluteUrl(base, options.mcp.path), tools: tools() } } : {}),
      ...(options.markdownTwins ? { markdownTwins: true } : {}),
      ...(options.nlweb ? { nlweb: absoluteUrl(base, PATHS.ask.url()) } : {}),
    };
    const skillMd = fixedBody({ body: buildSkillMd(site, operations().filter((op) => !op.tags.includes('compatibility'))) });
    const index = fixedBody({ body: JSON.stringify(buildSkillsIndex(site, fixedBodyOf(skillMd)!.bytes)) });
    return { skillMd, index };
  });
  return [
    documentRoute(PATHS.agentSkillsIndex, MEDIA.json, async (ctx, base) => documents(ctx, await effectiveOptions(ctx), base).index),
    documentRoute(PATHS.agentSkill, MARKDOWN_CONTENT_TYPE, async (ctx, base) => documents(ctx, await effectiveOptions(ctx), base).skillMd, true),
  ];
}
