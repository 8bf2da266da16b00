import type { Router } from 'express';
import { z } from 'zod';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { advertisedLanguage, chooseLanguage, localize, type LanguageFields } from '../content/language.js';
import { readVisibleResource, type ResourceRow } from '../content/resource.js';
import { renderFrontMatter } from '../markdown/front-matter.js';
import { agentRoute, methodNotAllowed } from './agent-route.js';
import { notFound } from './errors.js';
import type { OperationSpec } from './operations.js';
import { languageParam, parsePairs, parseValues, resourceRef } from './parameters.js';
import { callFromRequest, type FacadeCall } from './facade-call.js';
import { PATHS, absoluteUrl, resolveOnBase } from './paths.js';
import { composeResourceContent } from './resource-content.js';
import { MARKDOWN_CONTENT_TYPE } from './representation.js';

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
 * content, and the "API access" section (its JSON link carries a `language` the facade accepts).
 *
 * ```ts
 * await markdownDocument(ctx, row, chooseLanguage(row.language, 'nl', 'en'), 'https://example.org')
 * // '---\ntitle: "Welkom"\nurl: "https://example.org/nl/page/7"\n…\n---\n\n# Welkom\n…\n## API access\n…'
 * ```
 */
export async function markdownDocument(ctx: AgentContext, row: ResourceRow, lang: LanguageFields, base: string): Promise<string> {
  const { options } = ctx;
  const { language } = lang;
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
  const access = apiAccessSection(base, row.id, advertisedLanguage(lang, options.languages));
  return frontMatter + (content.markdown.trim() ? `${content.markdown.trimEnd()}\n\n${access}` : access);
}

/** The Markdown representation of one resource, in the language actually used. */
export interface MarkdownRepresentation {
  body: string;
  language: string;
}

/**
 * The Markdown representation of an anonymous-visible resource in `requested` (falling back like every
 * read), or `undefined` when the resource is not anonymous-visible. The one composition path of the
 * Markdown route and of Markdown negotiated on a page URL.
 */
export async function markdownRepresentation(
  ctx: AgentContext,
  ref: number | string,
  requested: string,
  base: string,
): Promise<MarkdownRepresentation | undefined> {
  const row = await readVisibleResource(ctx.db, ref);
  if (!row) return undefined;
  const lang = chooseLanguage(row.language, requested, ctx.options.defaultLanguage);
  return { body: await markdownDocument(ctx, row, lang, base), language: lang.language };
}

/**
 * The Markdown read as a function of a `FacadeCall` (`rawId` is the path parameter): the HTTP route
 * and the MCP tool and resource template all run it. Returns the body and the language used.
 */
export function markdownRead(ctx: AgentContext) {
  const s = markdownSchemas(ctx.options);
  return async function markdown(call: FacadeCall, rawId: string): Promise<MarkdownRepresentation> {
    const { id } = parseValues(s.idPath, { id: rawId });
    const { language } = parsePairs(call.query, s.query);
    const markdown = await markdownRepresentation(ctx, id, language, call.base);
    if (!markdown) throw notFound();
    return markdown;
  };
}

/** Mounts `GET /agent/resource/:id/markdown`. */
export function mountMarkdown(router: Router, ctx: AgentContext): void {
  const path = '/agent/resource/:id/markdown';
  const markdown = markdownRead(ctx);
  router.get(
    path,
    agentRoute(ctx, undefined, async ({ req, base }) => {
      const { body, language } = await markdown(callFromRequest(req, base), String(req.params.id));
      return {
        kind: 'text',
        body,
        contentType: MARKDOWN_CONTENT_TYPE,
        headers: { 'Content-Language': language },
      };
    }),
  );
  router.all(path, methodNotAllowed);
}
