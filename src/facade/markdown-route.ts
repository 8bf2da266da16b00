import { markResourceRead } from '../traffic/traffic-mark.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { notFound } from '../http/errors.js';
import { MARKDOWN_CONTENT_TYPE } from '../http/representation.js';
import { CONTENT_READ } from '../http/route.js';
import { facadeRoute } from './facade-route.js';
import { markdownRepresentation } from '../representations/resource-markdown.js';
import { resourcePath, resourceQuery } from './resource-route.js';

/** `GET /agent/resource/{id}/markdown`: the composed Markdown of one public resource. */
export function markdownRoute(options: ResolvedOptions) {
  return facadeRoute({
    path: PATHS.markdown,
    params: resourcePath,
    query: resourceQuery(options),
    response: { kind: 'text', contentType: MARKDOWN_CONTENT_TYPE, markdownTokens: true },
    policy: CONTENT_READ,
    doc: {
      operationId: 'readResourceMarkdown',
      summary: 'Read one resource as Markdown',
      description:
        'The composed Markdown (text/markdown) in the language actually used (Content-Language): a YAML front matter block (title, url of the human page, language, published (the publication start), modified, description (the summary), categories, authors and tags (titles of the public resources that the author and tag predicates named by the site lead to), word_count, license (the licence of the resource, else the name of the site licence), license_url (the link of the site licence, when that applies), attribution, copyright (of the site, with the site licence), content_complete; empty ones left out), the content, and an "API access" section at the end. Same 404 rules as the JSON read; 503 while templates cannot render.',
      tags: ['content'],
      errors: [400, 404, 413, 503, 504],
    },
    async handler({ ctx, call, params, query, req }) {
      const markdown = await markdownRepresentation(ctx, params.id, query.language, call.base);
      if (!markdown) throw notFound();
      if (req) markResourceRead(req, markdown.id);
      return { body: markdown.body, headers: { 'Content-Language': markdown.language } };
    },
  });
}
