import { z } from 'zod';
import { siteNoindexForQuery } from '../settings/effective-settings.js';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { PATHS } from '../paths.js';
import { chooseLanguage, localize, type LanguageFields } from '../content/language.js';
import { categoryPage, predicateConstraints, predicatePage, type CategoryRow, type VocabularyRow } from '../content/vocabulary.js';
import { buildPagedResult, pageScope, pageWindow } from '../http/paging.js';
import { languageParam, pagingShape, withCandidateBound } from '../http/parameters.js';
import { API_READ } from '../http/route.js';
import { facadeRoute, TOOL_PAGED, TOOL_READ_ONLY } from './facade-route.js';
import { categoryItem, pagedResult, predicateItem } from '../representations/result-schemas.js';
import { entityUri } from '../representations/summary-item.js';

const MAX_CONSTRAINTS = 100;

/** The query of the vocabulary read: it validates requests, feeds OpenAPI and is the MCP tool's input. */
export function schemaQuery(options: ResolvedOptions) {
  return z
    .object({
      kind: z
        .enum(['category', 'predicate'], { error: 'expected category or predicate' })
        .optional()
        .default('category')
        .describe('Which vocabulary to list.'),
      language: languageParam(options.languages, options.defaultLanguage),
      ...pagingShape,
    })
    .strict();
}

export const schemaResult = pagedResult(z.union([categoryItem, predicateItem]));

type CategoryItem = z.input<typeof categoryItem>;
type PredicateItem = z.input<typeof predicateItem>;

/** What vocabulary items are read with: the base, the requested language and the site's default. */
interface VocabularyContext {
  base: string;
  requested: string;
  siteDefault: string;
}

/** What categories and predicates share: the vocabulary resource, localized, with its language fields. */
function vocabularyFields(v: VocabularyContext, r: VocabularyRow, lang: LanguageFields) {
  return {
    id: r.id,
    name: r.name,
    uri: entityUri(v.base, r.id, r.uri),
    title: localize(r.title, lang.language, v.siteDefault),
    description: localize(r.summary, lang.language, v.siteDefault),
    ...lang,
  };
}

function categoryItemOf(v: VocabularyContext, r: CategoryRow): CategoryItem {
  const lang = chooseLanguage(r.language, v.requested, v.siteDefault);
  return {
    ...vocabularyFields(v, r, lang),
    parent: r.parent_id === null ? null : { id: r.parent_id, name: r.parent_name, title: localize(r.parent_title, lang.language, v.siteDefault) },
  };
}

/** The public predicates of a page with up to 100 category constraints each. */
async function predicateItems(ctx: AgentContext, v: VocabularyContext, rows: readonly VocabularyRow[]): Promise<PredicateItem[]> {
  const ids = rows.map((r) => r.id);
  const constraints = await predicateConstraints(ctx.db, ids, { siteNoindex: (await siteNoindexForQuery(ctx)), perPredicate: MAX_CONSTRAINTS + 1 });
  return rows.map((r) => {
    const lang = chooseLanguage(r.language, v.requested, v.siteDefault);
    const own = constraints.filter((c) => c.predicate_id === r.id);
    return {
      ...vocabularyFields(v, r, lang),
      constraints: own.slice(0, MAX_CONSTRAINTS).map((c) => ({
        side: c.is_subject ? ('subject' as const) : ('object' as const),
        category: { id: c.category_id, name: c.category_name, title: localize(c.category_title, lang.language, v.siteDefault) },
      })),
      constraints_truncated: own.length > MAX_CONSTRAINTS,
    };
  });
}

/** `GET /api/agent/schema`: the public categories or predicates, by id. */
export function schemaRoute(options: ResolvedOptions) {
  return facadeRoute({
    path: PATHS.schema,
    params: undefined,
    query: withCandidateBound(schemaQuery(options)),
    response: { kind: 'envelope', result: schemaResult },
    policy: API_READ,
    doc: {
      operationId: 'listVocabulary',
      summary: 'List public categories or predicates',
      description: 'Public vocabulary only: names, localized titles and descriptions, URIs; predicates with up to 100 category constraints.',
      tags: ['content'],
      errors: [400, 413, 503, 504],
      example: 'kind=predicate',
    },
    tool: {
      name: 'schema',
      title: 'List the public vocabulary',
      description: `The public categories (kind=category, default; use a name as cat in search) or relationship predicates (kind=predicate). ${TOOL_PAGED} ${TOOL_READ_ONLY}`,
      listed: 4,
      paged: true,
    },
    async handler({ ctx, call, query: params }) {
      const scope = pageScope(PATHS.schema.template, params);
      const window = pageWindow(ctx, params, scope, 1);
      const afterId = window.after?.[0];
      const q = { siteNoindex: (await siteNoindexForQuery(ctx)), offset: window.offset, limit: window.fetch, ...(afterId !== undefined ? { afterId } : {}) };
      const v: VocabularyContext = { base: call.base, requested: params.language, siteDefault: ctx.options.defaultLanguage };
      const finish = <T>(rows: readonly { id: number }[], items: T[]) => {
        const lastId = rows.slice(0, params.pagelen).at(-1)?.id;
        return buildPagedResult(ctx, call, params, scope, {
          items,
          hasMore: rows.length > params.pagelen,
          lastPosition: lastId === undefined ? undefined : [lastId],
        });
      };
      if (params.kind === 'category') {
        const rows = await categoryPage(ctx.db, q);
        return finish(rows, rows.slice(0, params.pagelen).map((r) => categoryItemOf(v, r)));
      }
      const rows = await predicatePage(ctx.db, q);
      return finish(rows, await predicateItems(ctx, v, rows.slice(0, params.pagelen)));
    },
  });
}
