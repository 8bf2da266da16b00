import type { Router } from 'express';
import { effectiveSettings } from '../settings/effective-settings.js';
import { z } from 'zod';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { advertisedLanguage, chooseLanguage, localize, type LanguageFields } from '../content/language.js';
import { readVisibleResource, type ResourceRow } from '../content/resource.js';
import { resolveCategory, searchPosition, searchResources, type SearchSort } from '../content/search.js';
import { categoryReference, entityUri, pageUrl, summaryItem, toIso, type ItemContext } from '../content/summaries.js';
import { categoryPage, predicateConstraints, predicatePage, type VocabularyRow } from '../content/vocabulary.js';
import { agentRoute, methodNotAllowed } from './agent-route.js';
import { badRequest, notFound } from './errors.js';
import type { OperationSpec } from './operations.js';
import { pagedResult as pagedEnvelope, pageScope, pageWindow } from './paging.js';
import {
  calendarDate,
  dayStart,
  idOrName,
  languageParam,
  pagingShape,
  parsePairs,
  parseValues,
  resourceRef,
  withCandidateBound,
} from './parameters.js';
import { PATHS, absoluteUrl, resolveOnBase } from './paths.js';
import {
  categoryItem,
  pagedResult,
  predicateItem,
  resourceRead,
  resourceSummary,
} from './result-schemas.js';
import { composeResourceContent } from './resource-content.js';
import { callFromRequest, type FacadeCall } from './facade-call.js';

const MAX_TEXT_BYTES = 512;
const MAX_CONSTRAINTS = 100;

/** The parameter schemas of the facade's routes: they validate requests and feed OpenAPI. */
export function facadeSchemas(options: ResolvedOptions) {
  const language = languageParam(options.languages, options.defaultLanguage);
  return {
    search: z
      .object({
        text: z
          .string()
          .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_TEXT_BYTES, `must be at most ${MAX_TEXT_BYTES} bytes of UTF-8`)
          .optional()
          .describe('Full-text query (websearch syntax), at most 512 bytes of UTF-8.'),
        cat: idOrName('category')
          .optional()
          .describe('Category id or name; subcategories are included.'),
        sort: z
          .enum(['id', 'newest', 'oldest', 'modified'], { error: 'expected one of id, newest, oldest, modified' })
          .optional()
          .default('id')
          .describe('id (ascending), newest / oldest (publication start), modified (descending); ties by id ascending.'),
        publication_after: calendarDate.optional().describe('YYYY-MM-DD, inclusive, UTC, on publication start.'),
        publication_before: calendarDate.optional().describe('YYYY-MM-DD, inclusive (the whole day), UTC.'),
        language,
        ...pagingShape,
      })
      .strict(),
    resource: z.object({ language }).strict(),
    schema: z
      .object({
        kind: z
          .enum(['category', 'predicate'], { error: 'expected category or predicate' })
          .optional()
          .default('category')
          .describe('Which vocabulary to list.'),
        language,
        ...pagingShape,
      })
      .strict(),
    idPath: z.object({ id: resourceRef }),
  };
}

/** The facade's documented operations (the registry OpenAPI and API help are built from). */
export function facadeOperations(options: ResolvedOptions): OperationSpec[] {
  const s = facadeSchemas(options);
  return [
    {
      operationId: 'searchResources',
      path: PATHS.search,
      summary: 'Browse or full-text search public resources',
      description:
        'Localized summaries of anonymous-visible, indexable resources. Follow next_url until next is false; pages carry no totals.',
      tags: ['content'],
      query: s.search,
      response: { kind: 'envelope', result: pagedResult(resourceSummary) },
      errors: [400, 413, 503, 504],
      example: 'sort=newest&pagelen=5',
    },
    {
      operationId: 'readResource',
      path: '/api/agent/resource/{id}',
      summary: 'Read one resource',
      description:
        'The localized read: Markdown content, citation page URL (and one per language), entity URI, dates, license, attribution and medium. Missing, private and unpublished resources are all 404.',
      tags: ['content'],
      pathParams: s.idPath,
      query: s.resource,
      response: { kind: 'envelope', result: resourceRead },
      errors: [400, 404, 413, 503, 504],
    },
    {
      operationId: 'listVocabulary',
      path: PATHS.schema,
      summary: 'List public categories or predicates',
      description: 'Public vocabulary only: names, localized titles and descriptions, URIs; predicates with up to 100 category constraints.',
      tags: ['content'],
      query: s.schema,
      response: { kind: 'envelope', result: pagedResult(z.union([categoryItem, predicateItem])) },
      errors: [400, 413, 503, 504],
      example: 'kind=predicate',
    },
  ];
}

function itemContext(ctx: AgentContext, base: string, language: string): ItemContext {
  return { base, options: ctx.options, requestedLanguage: language };
}

/**
 * The facade's reads as functions of a `FacadeCall`: the HTTP routes and the MCP tools both run
 * them, so parameters, limits, errors and results cannot drift apart. Each returns the result
 * before its documented schema strips it.
 */
export function facadeReads(ctx: AgentContext) {
  const s = facadeSchemas(ctx.options);
  return {
    async search(call: FacadeCall) {
      const { noindex: siteNoindex } = await effectiveSettings(ctx);
      const params = parsePairs(call.query, withCandidateBound(s.search));
      let publishedFrom: Date | undefined;
      let publishedUntil: Date | undefined;
      if (params.publication_after) publishedFrom = dayStart(params.publication_after);
      // The before date includes its whole day: up to the start of the next day (none after 9999-12-31).
      if (params.publication_before) publishedUntil = dayStart(params.publication_before, 1);
      if (params.publication_after && params.publication_before && params.publication_after > params.publication_before) {
        throw badRequest('publication_after', 'is later than publication_before');
      }
      let categoryIds: number[] | undefined;
      if (params.cat !== undefined) {
        const id = await resolveCategory(ctx.db, params.cat, siteNoindex);
        if (id === undefined) throw badRequest('cat', 'unknown category');
        categoryIds = [id];
      }
      const scope = pageScope(PATHS.search, params);
      const window = pageWindow(ctx, params, scope, params.sort === 'id' ? 1 : 3);
      const after = window.after;
      const rows = await searchResources(ctx.db, {
        ...(params.text !== undefined ? { text: params.text } : {}),
        ...(categoryIds ? { categoryIds } : {}),
        sort: params.sort as SearchSort,
        ...(publishedFrom ? { publishedFrom } : {}),
        ...(publishedUntil ? { publishedUntil } : {}),
        siteNoindex,
        ...(after ? { after } : {}),
        offset: window.offset,
        limit: window.fetch,
      });
      const pageRows = rows.slice(0, params.pagelen);
      const ic = itemContext(ctx, call.base, params.language);
      const last = pageRows.at(-1);
      return pagedEnvelope(ctx, call, params, scope, {
        items: pageRows.map((row) => summaryItem(ic, row)),
        hasMore: rows.length > params.pagelen,
        lastPosition: last ? searchPosition(params.sort as SearchSort, last) : undefined,
      });
    },

    /** `id` is the raw path parameter (id or unique name). */
    async resource(call: FacadeCall, rawId: string) {
      const { id } = parseValues(s.idPath, { id: rawId });
      const params = parsePairs(call.query, s.resource);
      const row = await readVisibleResource(ctx.db, id);
      if (!row) throw notFound();
      return resourceReadResult(ctx, call.base, row, params.language);
    },

    async schema(call: FacadeCall) {
      const { noindex: siteNoindex } = await effectiveSettings(ctx);
      const params = parsePairs(call.query, withCandidateBound(s.schema));
      const base = call.base;
      const scope = pageScope(PATHS.schema, params);
      const window = pageWindow(ctx, params, scope, 1);
      const afterId = window.after?.[0];
      const query = { siteNoindex, offset: window.offset, limit: window.fetch, ...(afterId !== undefined ? { afterId } : {}) };
      const l = (available: string[]) => chooseLanguage(available, params.language, ctx.options.defaultLanguage);
      const d = ctx.options.defaultLanguage;
      // What categories and predicates share: the vocabulary resource, localized, with its language fields.
      const vocabularyFields = (r: VocabularyRow, lang: LanguageFields) => ({
        id: r.id,
        name: r.name,
        uri: entityUri(base, r.id, r.uri),
        title: localize(r.title, lang.language, d),
        description: localize(r.summary, lang.language, d),
        ...lang,
      });
      let items: unknown[];
      let ids: number[];
      let hasMore: boolean;
      if (params.kind === 'category') {
        const rows = await categoryPage(ctx.db, query);
        hasMore = rows.length > params.pagelen;
        const page = rows.slice(0, params.pagelen);
        ids = page.map((r) => r.id);
        items = page.map((r) => {
          const lang = l(r.language);
          return {
            ...vocabularyFields(r, lang),
            parent: r.parent_id === null ? null : { id: r.parent_id, name: r.parent_name, title: localize(r.parent_title, lang.language, d) },
          };
        });
      } else {
        const rows = await predicatePage(ctx.db, query);
        hasMore = rows.length > params.pagelen;
        const page = rows.slice(0, params.pagelen);
        ids = page.map((r) => r.id);
        const constraints = await predicateConstraints(ctx.db, ids, { siteNoindex, perPredicate: MAX_CONSTRAINTS + 1 });
        items = page.map((r) => {
          const lang = l(r.language);
          const own = constraints.filter((c) => c.predicate_id === r.id);
          return {
            ...vocabularyFields(r, lang),
            constraints: own.slice(0, MAX_CONSTRAINTS).map((c) => ({
              side: c.is_subject ? 'subject' : 'object',
              category: { id: c.category_id, name: c.category_name, title: localize(c.category_title, lang.language, d) },
            })),
            constraints_truncated: own.length > MAX_CONSTRAINTS,
          };
        });
      }
      const lastId = ids.at(-1);
      return pagedEnvelope(ctx, call, params, scope, { items, hasMore, lastPosition: lastId === undefined ? undefined : [lastId] });
    },
  };
}

/** The result schemas of the facade's reads (what the routes and the MCP tools pass results through). */
export const facadeResults = {
  search: pagedResult(resourceSummary),
  resource: resourceRead,
  schema: pagedResult(z.union([categoryItem, predicateItem])),
};

/** Mounts search, resource and schema reads on the router. */
export function mountFacade(router: Router, ctx: AgentContext): void {
  const reads = facadeReads(ctx);

  router.get(
    PATHS.search,
    agentRoute(ctx, facadeResults.search, async ({ req, base }) => ({ kind: 'json', result: await reads.search(callFromRequest(req, base)) })),
  );
  router.all(PATHS.search, methodNotAllowed);

  router.get(
    '/api/agent/resource/:id',
    agentRoute(ctx, facadeResults.resource, async ({ req, base }) => ({
      kind: 'json',
      result: await reads.resource(callFromRequest(req, base), String(req.params.id)),
    })),
  );
  router.all('/api/agent/resource/:id', methodNotAllowed);

  router.get(
    PATHS.schema,
    agentRoute(ctx, facadeResults.schema, async ({ req, base }) => ({ kind: 'json', result: await reads.schema(callFromRequest(req, base)) })),
  );
  router.all(PATHS.schema, methodNotAllowed);
}

/** Builds the JSON read of a visible resource in the requested language (with fallback). */
async function resourceReadResult(ctx: AgentContext, base: string, row: ResourceRow, requested: string) {
  const d = ctx.options.defaultLanguage;
  const ic = itemContext(ctx, base, requested);
  const lang = chooseLanguage(row.language, requested, d);
  const l = lang.language;
  const urlLanguage = advertisedLanguage(lang, ctx.options.languages);
  const content = await composeResourceContent(ctx, row, l, base);
  const page_urls = Object.fromEntries(lang.available_languages.map((code) => [code, pageUrl(ic, row, code)]));
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
    page_url: pageUrl(ic, row, l),
    page_urls,
    publication_start: toIso(row.publication_start),
    publication_end: row.publication_end ? toIso(row.publication_end) : null,
    created: toIso(row.created),
    modified: toIso(row.modified),
    ...(license ? { license } : {}),
    ...(attribution ? { attribution } : {}),
    ...(row.medium_mime && row.medium_filename
      ? {
          medium: {
            mime: row.medium_mime,
            width: row.medium_width,
            height: row.medium_height,
            size: row.medium_size,
            download_url: resolveOnBase(base, ctx.options.mediaUrl({ id: row.id, filename: row.medium_filename, mime: row.medium_mime })),
          },
        }
      : {}),
    links: {
      json: absoluteUrl(base, PATHS.resource(row.id), { language: urlLanguage }),
      markdown: absoluteUrl(base, PATHS.markdown(row.id), { language: urlLanguage }),
      related_out: absoluteUrl(base, PATHS.related(row.id), { language: urlLanguage }),
      related_in: absoluteUrl(base, PATHS.related(row.id), { direction: 'in', language: urlLanguage }),
    },
    ...lang,
  };
}

