import type { Request } from 'express';
import type { AgentContext } from '../context.js';
import { advertisedLanguage, chooseLanguage, localize, storedLanguages } from '../content/language.js';
import { isPageUrlRef, pagePathKey, pageUrlOf, pageUrlSegments } from '../content/page-url.js';
import { byRef, parseResourceRef, type ResourceRef } from '../content/resource-ref.js';
import { explainExposure, noindexCategoryChain, notMeta, type ExposureReason } from '../content/visibility.js';
import { formatAgentLink } from '../links/link-format.js';
import { renderHeadLinks } from '../links/head-links.js';
import { pageLinks } from '../links/resource-links.js';
import { markdownRepresentation } from '../representations/resource-markdown.js';
import { PATHS } from '../paths.js';
import { absoluteUrl, resolveOnBase } from '../http/urls.js';
import type { EffectiveSettings } from '../settings/effective-settings.js';
import { adminDate } from './admin-format.js';

/** The stored facts an explanation quotes (not a rule: the verdicts come from `explainExposure`). */
async function resourceFacts(ctx: AgentContext, ref: ResourceRef) {
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
      'r.page_url',
      'cat.name as category_name',
      notMeta('r').as('not_meta'),
    ])
    .where(byRef('r', ref))
    .executeTakeFirst();
}

type Facts = NonNullable<Awaited<ReturnType<typeof resourceFacts>>>;

/** The resource's human page in `language`, absolute: the same URL its reads and links cite. */
const humanPage = (ctx: AgentContext, base: string, f: Facts, language: string): string =>
  resolveOnBase(base, pageUrlOf(ctx.options.pageUrl, f, language, f.category_name));

/** A page URL of this site's shape (the `pageUrl` option's, for id 12), to show what the inspector takes. */
function examplePage(ctx: AgentContext, base: string): string {
  try {
    return resolveOnBase(base, ctx.options.pageUrl({ id: 12, name: null, language: ctx.options.defaultLanguage, category: null }));
  } catch {
    return `${new URL(base).origin}/…`;
  }
}

/** What the admin typed, resolved: a resource (with the language of its page URL), or why not. */
export type InspectTarget =
  | { readonly ref: ResourceRef; readonly language?: string; readonly note?: string }
  | { readonly problem: string; readonly status: 400 | 404 };

/** The most path segments of a page URL looked up as ids or names. */
const MAX_URL_CANDIDATES = 8;

/**
 * Reads the inspector's input: an id, a name, or a page URL of the site (absolute or root-relative,
 * the forms Verify takes). A URL is the page of the resource whose page URL, in one of its languages,
 * has the same path; failing that, of the resource whose id or name is a segment of it (such as
 * `/id/12`), said in a note.
 */
export async function resolveInspectTarget(ctx: AgentContext, base: string, text: string): Promise<InspectTarget> {
  const origin = new URL(base).origin;
  if (!isPageUrlRef(text)) {
    const ref = parseResourceRef(text);
    if (ref !== undefined) return { ref };
    return { problem: `"${text}" is not a resource id, name or page URL: enter a number, a name such as about_us, or a page URL such as ${examplePage(ctx, base)}.`, status: 400 };
  }
  let url: URL;
  try {
    url = new URL(text, `${origin}/`);
  } catch {
    return { problem: `"${text}" is not a URL.`, status: 400 };
  }
  if (url.origin !== origin) return { problem: `${url.href} is not a page of this site: its pages are on ${origin}.`, status: 400 };
  const key = pagePathKey(url);
  let bySegment: { ref: number; segment: string } | undefined;
  for (const segment of pageUrlSegments(url).slice(0, MAX_URL_CANDIDATES)) {
    const ref = parseResourceRef(segment);
    const facts = ref === undefined ? undefined : await resourceFacts(ctx, ref);
    if (!facts) continue;
    for (const language of new Set([...storedLanguages(facts.language), ...ctx.options.languages])) {
      if (pagePathKey(new URL(humanPage(ctx, base, facts, language))) === key) return { ref: facts.id, language };
    }
    bySegment ??= { ref: facts.id, segment };
  }
  if (bySegment) return { ref: bySegment.ref, note: `No resource has exactly this page URL; "${bySegment.segment}" in it names the resource shown.` };
  return { problem: `No resource has the page URL ${url.href}, and no id or name of a resource is part of it.`, status: 404 };
}

const categoryLabel = (c: { id: number; name: string | null }) => (c.name ? `"${c.name}" (${c.id})` : `#${c.id}`);

/** Markers the composition leaves where it omitted content (`[Omitted: …]`, `[Content truncated: …]`). */
const MARKER_LINE = /^\[(?:Omitted|Content truncated|Content simplified): [^\n]*\]$/gm;

/**
 * Everything the inspector shows for one resource, as an anonymous agent meets it: both verdicts
 * with the reasons behind them, the links a page of it advertises, and its Markdown.
 */
export async function inspectResource(ctx: AgentContext, req: Request, base: string, ref: ResourceRef, requested: string, settings: EffectiveSettings) {
  const facts = await resourceFacts(ctx, ref);
  const exposure = await explainExposure(ctx.db, ref, settings.noindex);
  if (!facts || !exposure) return undefined;
  const d = ctx.options.defaultLanguage;
  const chain = exposure.notIndexableBecause.includes('category_noindex') ? await noindexCategoryChain(ctx.db, facts.category_id) : [];
  const own = { id: facts.category_id, name: facts.category_name };
  const why: Record<ExposureReason, () => string> = {
    unpublished: () => 'not published',
    private: () => `private: its visibility is "${facts.visibility}", not "public"`,
    not_yet_started: () => `before its window: publication starts ${adminDate(facts.publication_start)}`,
    ended: () => `after its window: publication ended ${adminDate(facts.publication_end)}`,
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
    /** Said, never a silent switch: the language asked for is not one the resource has. */
    languageNote: lang.is_fallback ? `This resource has no ${requested} version; showing ${lang.language}.` : undefined,
    pageUrl: humanPage(ctx, base, facts, lang.language),
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
