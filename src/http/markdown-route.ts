import type { Router } from 'express';
import { z } from 'zod';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { chooseLanguage, localize } from '../content/language.js';
import { readVisibleResource, type ResourceRow } from '../content/resource.js';
import { renderFrontMatter } from '../markdown/front-matter.js';
import { agentRoute, methodNotAllowed } from './agent-route.js';
import { notFound } from './errors.js';
import type { OperationSpec } from './operations.js';
import { languageParam, parseQuery, parseValues, resourceRef } from './parameters.js';
import { PATHS, absoluteUrl, resolveOnBase } from './paths.js';
import { composeResourceContent } from './resource-content.js';

export function markdownSchemas(options: ResolvedOptions) {
  return {
    query: z.object({ language: languageParam(options.languages, options.defaultLanguage) }).strict(),
    idPath: z.object({ id: resourceRef }),
  };
}

export function markdownOperations(options: ResolvedOptions): OperationSpec[] {
  const s = markdownSchemas(options);
  return [
    {
      operationId: 'readResourceMarkdown',
      path: '/agent/resource/{id}/markdown',
      summary: 'Read one resource as Markdown',
      description:
        'The composed Markdown (text/markdown) in the language actually used (Content-Language): a YAML front matter block (title, url of the human page, language, modified, license, attribution, content_complete), the content, and an "API access" section at the end. Same 404 rules as the JSON read; 503 while templates cannot render.',
      tags: ['content'],
      pathParams: s.idPath,
      query: s.query,
      response: { kind: 'text', mediaType: 'text/markdown' },
      errors: [400, 404, 413, 503, 504],
    },
  ];
}

/** The "API access" section that ends the Markdown representation (not in the JSON read, not in HTML). */
export function apiAccessSection(base: string, id: number, language: string): string {
  return [
    '## API access',
    '',
    `- [API help](${absoluteUrl(base, PATHS.apiHelp)})`,
    `- [OpenAPI description](${absoluteUrl(base, PATHS.openapi)})`,
    `- [This resource as JSON](${absoluteUrl(base, PATHS.resource(id), { language })})`,
    '',
  ].join('\n');
}

/**
 * The whole Markdown representation of a visible resource in an already chosen language: the YAML
 * front matter (added here, outside every template, so an override cannot break it), the composed
 * content, and the "API access" section.
 *
 * ```ts
 * await markdownDocument(ctx, row, 'nl', 'https://example.org')
 * // '---\ntitle: "Welkom"\nurl: "https://example.org/nl/page/7"\n…\n---\n\n# Welkom\n…\n## API access\n…'
 * ```
 */
export async function markdownDocument(ctx: AgentContext, row: ResourceRow, language: string, base: string): Promise<string> {
  const { options } = ctx;
  const content = await composeResourceContent(ctx, row, language, base);
  const license = localize(row.license, language, options.defaultLanguage);
  const attribution = localize(row.attribution, language, options.defaultLanguage);
  const frontMatter = renderFrontMatter({
    title: localize(row.title, language, options.defaultLanguage),
    url: resolveOnBase(base, options.pageUrl({ id: row.id, name: row.name, language, category: row.category_name })),
    language,
    modified: new Date(row.modified),
    ...(license ? { license } : {}),
    ...(attribution ? { attribution } : {}),
    content_complete: content.contentComplete,
  });
  const access = apiAccessSection(base, row.id, language);
  return frontMatter + (content.markdown.trim() ? `${content.markdown.trimEnd()}\n\n${access}` : access);
}

/** Mounts `GET /agent/resource/:id/markdown`. */
export function mountMarkdown(router: Router, ctx: AgentContext): void {
  const s = markdownSchemas(ctx.options);
  const path = '/agent/resource/:id/markdown';
  router.get(
    path,
    agentRoute(ctx, undefined, async ({ req, base }) => {
      const { id } = parseValues(s.idPath, { id: String(req.params.id) });
      const { language } = parseQuery(req, s.query);
      const row = await readVisibleResource(ctx.db, id);
      if (!row) throw notFound();
      const lang = chooseLanguage(row.language, language, ctx.options.defaultLanguage);
      return {
        kind: 'text',
        body: await markdownDocument(ctx, row, lang.language, base),
        contentType: 'text/markdown; charset=utf-8',
        headers: { 'Content-Language': lang.language },
      };
    }),
  );
  router.all(path, methodNotAllowed);
}
