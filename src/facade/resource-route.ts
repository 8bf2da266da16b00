import { z } from 'zod';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { advertisedLanguage, chooseLanguage, localize } from '../content/language.js';
import type { ResourceRow } from '../content/resource.js';
import { categoryReference, toIso } from '../content/summaries.js';
import { notFound } from '../http/errors.js';
import { languageParam, resourceRef } from '../http/parameters.js';
import { CONTENT_READ } from '../http/route.js';
import { markResourceRead } from '../traffic/traffic-mark.js';
import { absoluteUrl, resolveOnBase } from '../http/urls.js';
import { facadeRoute, TOOL_READ_ONLY } from './facade-route.js';
import { readComposableResource, resourceContent, type ResourceReadKey } from '../representations/resource-content.js';
import { resourceRead } from '../representations/result-schemas.js';
import { entityUri, itemPageUrl, type ItemContext } from '../representations/summary-item.js';

/** The path of every read of one resource: its id or unique name. */
export const resourcePath = z.object({ id: resourceRef });

/** The query of every read of one resource: only the language. */
export function resourceQuery(options: ResolvedOptions) {
  return z.object({ language: languageParam(options.languages, options.defaultLanguage) }).strict();
}

/** The medium of a resource, when it has one: its type, size and absolute download URL. */
function mediumOf(ctx: AgentContext, base: string, row: ResourceRow) {
  if (!row.medium_mime || !row.medium_filename) return {};
  const download = ctx.options.mediaUrl({ id: row.id, filename: row.medium_filename, mime: row.medium_mime });
  return {
    medium: {
      mime: row.medium_mime,
      width: row.medium_width,
      height: row.medium_height,
      size: row.medium_size,
      download_url: resolveOnBase(base, download),
    },
  };
}

/** The links of a read: its JSON and Markdown, and its outgoing and incoming relationships. */
function readLinks(base: string, id: number, language: string) {
  return {
    json: absoluteUrl(base, PATHS.resource.url({ id }), { language }),
    markdown: absoluteUrl(base, PATHS.markdown.url({ id }), { language }),
    related_out: absoluteUrl(base, PATHS.related.url({ id }), { language }),
    related_in: absoluteUrl(base, PATHS.related.url({ id }), { direction: 'in', language }),
  };
}

/** Builds the JSON read of a visible resource in the requested language (with fallback). */
export async function resourceReadResult(
  ctx: AgentContext,
  base: string,
  row: ResourceRow,
  key: ResourceReadKey,
  requested: string,
): Promise<z.input<typeof resourceRead>> {
  const d = ctx.options.defaultLanguage;
  const ic: ItemContext = { base, options: ctx.options, requestedLanguage: requested };
  const lang = chooseLanguage(row.language, requested, d);
  const l = lang.language;
  const content = (await resourceContent(ctx, row, l, base, key)).value;
  const license = localize(row.license, l, d);
  const attribution = localize(row.attribution, l, d);
  return {
    id: row.id,
    uri: entityUri(base, row.id, row.uri),
    title: localize(row.title, l, d),
    summary: localize(row.summary, l, d),
    content: content.markdown,
    content_complete: content.contentComplete,
    category: categoryReference(row, l, d),
    page_url: itemPageUrl(ic, row, l),
    page_urls: Object.fromEntries(lang.available_languages.map((code) => [code, itemPageUrl(ic, row, code)])),
    publication_start: toIso(row.publication_start),
    publication_end: row.publication_end ? toIso(row.publication_end) : null,
    created: toIso(row.created),
    modified: toIso(row.modified),
    ...(license ? { license } : {}),
    ...(attribution ? { attribution } : {}),
    ...mediumOf(ctx, base, row),
    authors: content.authors,
    tags: content.tags,
    word_count: content.wordCount,
    links: readLinks(base, row.id, advertisedLanguage(lang, ctx.options.languages)),
    ...lang,
  };
}

/** `GET /api/agent/resource/{id}`: the localized read of one public resource. */
export function resourceRoute(options: ResolvedOptions) {
  return facadeRoute({
    path: PATHS.resource,
    params: resourcePath,
    query: resourceQuery(options),
    response: { kind: 'envelope', result: resourceRead },
    policy: CONTENT_READ,
    doc: {
      operationId: 'readResource',
      summary: 'Read one resource',
      description:
        'The localized read: Markdown content, citation page URL (and one per language), entity URI, dates, license, attribution, medium, authors, tags and word count. Missing, private and unpublished resources are all 404.',
      tags: ['content'],
      errors: [400, 404, 413, 503, 504],
    },
    tool: {
      name: 'read_resource',
      title: 'Read one resource',
      description:
        'One public resource as Markdown (with its citation front matter when the site adds one), plus the fields to cite it: page_url and page_urls, uri, language fields, license, attribution, medium. ' +
        `Missing, private and unpublished resources are all "resource not found". ${TOOL_READ_ONLY}`,
      listed: 2,
      text: PATHS.markdown,
      omit: ['content'],
    },
    async handler({ ctx, call, params, query, req }) {
      const read = await readComposableResource(ctx, params.id);
      if (!read) throw notFound();
      if (req) markResourceRead(req, read.row.id);
      return resourceReadResult(ctx, call.base, read.row, read.key, query.language);
    },
  });
}
