import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { advertisedLanguage, chooseLanguage, localize, type LanguageFields } from '../content/language.js';
import { readVisibleResource, type ResourceRow } from '../content/resource.js';
import { renderFrontMatter } from '../markdown/front-matter.js';
import { notFound } from '../http/errors.js';
import { MARKDOWN_CONTENT_TYPE } from '../http/representation.js';
import { CONTENT_READ } from '../http/route.js';
import { absoluteUrl, resolveOnBase } from '../http/urls.js';
import { pageUrlOf } from '../content/page-url.js';
import { facadeRoute } from './facade-route.js';
import { composeResourceContent } from './resource-content.js';
import { resourcePath, resourceQuery } from './resource-route.js';

/** The "API access" section that ends the Markdown representation (not in the JSON read, not in HTML). */
export function apiAccessSection(base: string, id: number, language: string): string {
  return [
    '## API access',
    '',
    `- [API help](${absoluteUrl(base, PATHS.apiHelp.url())})`,
    `- [OpenAPI description](${absoluteUrl(base, PATHS.openapi.url())})`,
    `- [This resource as JSON](${absoluteUrl(base, PATHS.resource.url({ id }), { language })})`,
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
    url: resolveOnBase(base, pageUrlOf(options.pageUrl, row, language, row.category_name)),
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

/** `GET /agent/resource/{id}/markdown`: the composed Markdown of one public resource. */
export function markdownRoute(options: ResolvedOptions) {
  return facadeRoute({
    path: PATHS.markdown,
    params: resourcePath,
    query: resourceQuery(options),
    response: { kind: 'text', contentType: MARKDOWN_CONTENT_TYPE },
    policy: CONTENT_READ,
    doc: {
      operationId: 'readResourceMarkdown',
      summary: 'Read one resource as Markdown',
      description:
        'The composed Markdown (text/markdown) in the language actually used (Content-Language): a YAML front matter block (title, url of the human page, language, modified, license, attribution, content_complete), the content, and an "API access" section at the end. Same 404 rules as the JSON read; 503 while templates cannot render.',
      tags: ['content'],
      errors: [400, 404, 413, 503, 504],
    },
    async handler({ ctx, call, params, query }) {
      const markdown = await markdownRepresentation(ctx, params.id, query.language, call.base);
      if (!markdown) throw notFound();
      return { body: markdown.body, headers: { 'Content-Language': markdown.language } };
    },
  });
}
