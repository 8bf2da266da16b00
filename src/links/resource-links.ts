import { markResourceRead } from '../traffic/traffic-mark.js';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AgentContext } from '../context.js';
import type { ResolvedOptions } from '../options.js';
import { resourceExposure, type PageExposure } from '../content/visibility.js';
import { withBudget } from '../http/budget.js';
import { classifyError } from '../http/errors.js';
import { fellBackOnStall } from '../http/markdown-error.js';
import { parseResourceRef } from '../content/resource-ref.js';
import { reportUnexpected } from '../http/route-errors.js';
import { formatAgentLink, type AgentLink } from './link-format.js';
import { homeMarkdownAlternate, resourceAlternates, siteLinks, translationLinks } from './site-links.js';
import { requestTarget } from '../http/request-target.js';
import { pageUrlOf } from '../content/page-url.js';
import { isLanguageTag } from '../content/language.js';
import { siteNoindexForQuery } from '../settings/effective-settings.js';

/** What a host says about the page it serves. */
export interface PageOptions {
  /** The page's language; one of the site's `languages`, else the site's default language is used. */
  language?: string;
}

/** The route parameters `resourceLinks` reads: the resource reference and, optionally, the page's language. */
export interface ResourceLinksParams {
  /** Route parameter holding the resource reference (default `id`). */
  id?: string;
  /** Route parameter holding the page's language (default: none, the site's default language). */
  language?: string;
}

/** A resource reference as the facade routes accept it (numeric id or unique name), else undefined. */
export function normalizeResourceRef(id: unknown): number | string | undefined {
  return parseResourceRef(id);
}

/**
 * The language a page is advertised and negotiated in: the given one when it is a site language,
 * else the site's default (a URL the facade would answer with 400 is never advertised).
 */
function pageLanguage(options: ResolvedOptions, requested: unknown): string {
  return typeof requested === 'string' && options.languages.includes(requested) ? requested : options.defaultLanguage;
}

/** The page language resolved for a request, so `headLinks` agrees with the Link header by default. */
const resolvedLanguages = new WeakMap<Request, string>();

/** The page language for this request: the one given, else the one resolved earlier for it, else the default. */
export function requestPageLanguage(options: ResolvedOptions, req: Request, requested: unknown): string {
  if (requested === undefined) requested = resolvedLanguages.get(req);
  const language = pageLanguage(options, requested);
  resolvedLanguages.set(req, language);
  return language;
}

/**
 * The links of a page: the site-level set, plus the JSON and Markdown alternates in the page's
 * language when the resource is anonymous-visible and indexable. Decided as an anonymous visitor: the
 * request's session is never consulted. A database that is down or slow, or any other failure,
 * costs the alternates, never the page.
 */
export async function pageLinks(ctx: AgentContext, req: Request, id: unknown, language: string): Promise<AgentLink[]> {
  let base: string;
  try {
    base = ctx.baseUrl(req);
  } catch {
    return [];
  }
  const links = siteLinks(base, ctx.options.mcp ? ctx.options.mcp.path : undefined);
  if (id === undefined || id === null) {
    if (ctx.options.markdownHome && requestTarget(req).path === '/') links.push(homeMarkdownAlternate(base));
    return links;
  }
  const ref = normalizeResourceRef(id);
  if (ref === undefined) return links;
  try {
    const exposure = await withBudget(ctx.options.budgetMs, async () => resourceExposure(ctx.db, ref, await siteNoindexForQuery(ctx)));
    if (exposure?.visible && typeof ref === 'number') markResourceRead(req, ref);
    if (exposure?.visible && exposure.indexable) {
      links.push(...translationLinks(base, languageVersions(ctx.options, exposure)), ...resourceAlternates(base, ref, language));
    }
  } catch (error) {
    // The page is the host's: a failure here costs the alternates, never the page; an unexpected one
    // is reported through `onError`.
    if (!classifyError(error)) reportUnexpected(ctx, req, error);
  }
  return links;
}

/**
 * The human page of a resource in each of its languages that the site serves (stored codes that are
 * not well-formed language tags are skipped), each from the stored `page_url` or the `pageUrl` option.
 */
function languageVersions(options: ResolvedOptions, r: PageExposure): { language: string; url: string }[] {
  const stored = Array.isArray(r.languages) ? r.languages : [];
  const languages = [...new Set(stored.filter((l): l is string => typeof l === 'string' && isLanguageTag(l) && options.languages.includes(l)))];
  return languages.map((language) => ({ language, url: pageUrlOf(options.pageUrl, r, language, r.category) }));
}

/**
 * The `Content-Usage` value of a page (the operator's AI usage preferences, read now), or undefined
 * when none is set. Like the links, a failure costs the header, never the page.
 */
export async function pageContentUsage(ctx: AgentContext, req: Request): Promise<string | undefined> {
  try {
    return await withBudget(ctx.options.budgetMs, () => ctx.contentUsage());
  } catch (error) {
    if (!classifyError(error)) reportUnexpected(ctx, req, error);
    return undefined;
  }
}

export type SetResourceHeaders = (req: Request, res: Response, id: number | string, page?: PageOptions) => Promise<void>;
export type SendMarkdownIfPreferred = (req: Request, res: Response, id: number | string, page?: PageOptions) => Promise<boolean>;

/**
 * `setResourceHeaders(req, res, id, { language })` for custom controllers: appends the page's links
 * to `Link`, and sets `Content-Usage` when the operator set AI usage preferences.
 */
export function createSetResourceHeaders(ctx: AgentContext): SetResourceHeaders {
  return async function setResourceHeaders(req: Request, res: Response, id: number | string, page: PageOptions = {}): Promise<void> {
    const [links, usage] = await Promise.all([pageLinks(ctx, req, id, requestPageLanguage(ctx.options, req, page.language)), pageContentUsage(ctx, req)]);
    if (res.headersSent) return;
    if (links.length) res.append('Link', links.map(formatAgentLink));
    if (usage) res.setHeader('Content-Usage', usage);
  };
}

function routeParamName(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`express-agent-discovery: resourceLinks: ${what} must be a non-empty route parameter name`);
  }
  return value;
}

/**
 * Route-level middleware for the host's standard resource route:
 * `app.get('/:lang/page/:id', agent.resourceLinks({ id: 'id', language: 'lang' }), render)`
 * (`resourceLinks('id')` still works). A request preferring Markdown gets the resource's Markdown
 * when it is anonymous-visible; every other request gets the page's Link values and goes on to the
 * host's handler. Every response carries `Vary: Accept`.
 */
export function createResourceLinks(
  ctx: AgentContext,
  sendMarkdownIfPreferred: SendMarkdownIfPreferred,
): (params?: string | ResourceLinksParams) => RequestHandler {
  const setResourceHeaders = createSetResourceHeaders(ctx);
  return function resourceLinks(params: string | ResourceLinksParams = 'id'): RequestHandler {
    const spec = typeof params === 'string' ? { id: params } : params;
    if (typeof spec !== 'object' || spec === null) {
      throw new TypeError('express-agent-discovery: resourceLinks: expected a route parameter name or { id, language }');
    }
    const unknown = Object.keys(spec).filter((k) => k !== 'id' && k !== 'language');
    if (unknown.length) throw new TypeError(`express-agent-discovery: resourceLinks: unknown key "${unknown[0]}" (expected id, language)`);
    const idParam = routeParamName(spec.id ?? 'id', 'id');
    const languageParam = spec.language === undefined ? undefined : routeParamName(spec.language, 'language');
    return function resourceLinkHeaders(req: Request, res: Response, next: NextFunction) {
      const id = req.params[idParam] as string;
      // A language parameter that names no site language falls back to the default, like an absent one.
      const raw = languageParam === undefined ? undefined : req.params[languageParam];
      const page = { language: typeof raw === 'string' ? raw : ctx.options.defaultLanguage };
      sendMarkdownIfPreferred(req, res, id, page)
        .then(async (answered) => {
          if (answered) return;
          // The Markdown read found the database stalled: the page goes out without waiting for it again.
          if (fellBackOnStall(res)) return next();
          await setResourceHeaders(req, res, id, page);
          next();
        })
        .catch(next);
    };
  };
}
