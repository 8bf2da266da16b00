import type { Request } from 'express';
import { sql, type SqlBool } from 'kysely';
import type { AgentContext } from '../context.js';
import { advertisedLanguage, chooseLanguage, localize } from '../content/language.js';
import { explainExposure, noindexCategoryChain, notMeta, type ExposureReason } from '../content/visibility.js';
import { formatAgentLink } from '../discovery/link-format.js';
import { renderHeadLinks } from '../discovery/head-links.js';
import { pageLinks } from '../discovery/resource-links.js';
import { markdownRepresentation } from '../facade/markdown-route.js';
import { PATHS } from '../paths.js';
import { absoluteUrl } from '../http/urls.js';
import type { EffectiveSettings } from '../settings/effective-settings.js';

/** The stored facts an explanation quotes (not a rule: the verdicts come from `explainExposure`). */
async function resourceFacts(ctx: AgentContext, ref: number | string) {
  return ctx.db
    .selectFrom('rsc as r')
    .leftJoin('rsc as cat', 'cat.id', 'r.category_id')
    .select([
      'r.id',
      'r.name',
      'r.title',
      'r.language',
      'r.visibility',
      'r.publication_start',
      'r.publication_end',
      'r.category_id',
      'cat.name as category_name',
      notMeta('r').as('not_meta'),
    ])
    .where(typeof ref === 'number' ? sql<SqlBool>`r.id = ${ref}` : sql<SqlBool>`r.name = ${ref}`)
    .executeTakeFirst();
}

const categoryLabel = (c: { id: number; name: string | null }) => (c.name ? `"${c.name}" (${c.id})` : `#${c.id}`);

/** Markers the composition leaves where it omitted content (`[Omitted: …]`, `[Content truncated: …]`). */
const MARKER_LINE = /^\[(?:Omitted|Content truncated|Content simplified): [^\n]*\]$/gm;

/**
 * Everything the inspector shows for one resource, as an anonymous agent meets it: both verdicts
 * with the reasons behind them, the links a page of it advertises, and its Markdown.
 */
export async function inspectResource(ctx: AgentContext, req: Request, base: string, ref: number | string, requested: string, settings: EffectiveSettings) {
  const facts = await resourceFacts(ctx, ref);
  const exposure = await explainExposure(ctx.db, ref, settings.noindex);
  if (!facts || !exposure) return undefined;
  const d = ctx.options.defaultLanguage;
  const chain = exposure.notIndexableBecause.includes('category_noindex') ? await noindexCategoryChain(ctx.db, facts.category_id) : [];
  const own = { id: facts.category_id, name: facts.category_name };
  const why: Record<ExposureReason, () => string> = {
    unpublished: () => 'not published',
    private: () => `private: its visibility is "${facts.visibility}", not "public"`,
    not_yet_started: () => `before its window: publication starts ${new Date(facts.publication_start).toISOString()}`,
    ended: () => `after its window: publication ended ${facts.publication_end ? new Date(facts.publication_end).toISOString() : ''}`,
    site_noindex: () => `site noindex: the whole site is noindex (setting from ${settings.source.noindex})`,
    resource_noindex: () => 'resource noindex: the resource itself is marked noindex (seo_noindex)',
    category_noindex: () => {
      const first = chain[0];
      if (!first || first.id === own.id) return `category noindex: its category ${categoryLabel(own)} is noindex`;
      return `category noindex: its category ${categoryLabel(own)} is below the noindex category ${categoryLabel(first)}`;
    },
  };
  const lang = chooseLanguage(facts.language, requested, d);
  const readLanguage = advertisedLanguage(lang, ctx.options.languages);
  const links = await pageLinks(ctx, req, facts.id, lang.language);
  const markdown = exposure.visible ? await markdownRepresentation(ctx, facts.id, lang.language, base) : undefined;
  const complete = markdown ? /^content_complete: (true|false)$/m.exec(markdown.body.split(/\n---\n/)[0] ?? '')?.[1] : undefined;
  return {
    id: facts.id,
    name: facts.name,
    title: localize(facts.title, lang.language, d) || `#${facts.id}`,
    category: categoryLabel(own),
    language: lang.language,
    languages: lang.available_languages,
    visible: exposure.visible,
    indexable: exposure.indexable,
    listed: exposure.visible && exposure.indexable && Boolean(facts.not_meta),
    vocabulary: !facts.not_meta,
    notVisibleBecause: exposure.notVisibleBecause.map((r) => why[r]()),
    notIndexableBecause: exposure.notIndexableBecause.map((r) => why[r]()),
    links: links.map((l) => ({ ...l, header: formatAgentLink(l) })),
    headHtml: renderHeadLinks(links),
    markdown: markdown
      ? { body: markdown.body, language: markdown.language, contentComplete: complete ?? 'unknown', omissions: markdown.body.match(MARKER_LINE) ?? [] }
      : undefined,
    reads: {
      json: absoluteUrl(base, PATHS.resource.url({ id: facts.id }), { language: readLanguage }),
      markdown: absoluteUrl(base, PATHS.markdown.url({ id: facts.id }), { language: readLanguage }),
    },
  };
}

export type Inspection = NonNullable<Awaited<ReturnType<typeof inspectResource>>>;
