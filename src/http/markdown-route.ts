import type { Router } from 'express';
import { z } from 'zod';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { advertisedLanguage, chooseLanguage } from '../content/language.js';
import { readVisibleResource } from '../content/resource.js';
import { agentRoute, methodNotAllowed } from './agent-route.js';
import { notFound } from './errors.js';
import type { OperationSpec } from './operations.js';
import { languageParam, parseQuery, parseValues, resourceRef } from './parameters.js';
import { PATHS, absoluteUrl } from './paths.js';
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
        'The composed Markdown (text/markdown) in the language actually used (Content-Language), ending with an "API access" section. Same 404 rules as the JSON read; 503 while templates cannot render.',
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
      const content = await composeResourceContent(ctx, row, lang.language, base);
      const access = apiAccessSection(base, row.id, advertisedLanguage(lang, ctx.options.languages));
      const body = content.markdown.trim() ? `${content.markdown.trimEnd()}\n\n${access}` : access;
      return {
        kind: 'text',
        body,
        contentType: 'text/markdown; charset=utf-8',
        headers: { 'Content-Language': lang.language },
      };
    }),
  );
  router.all(path, methodNotAllowed);
}
