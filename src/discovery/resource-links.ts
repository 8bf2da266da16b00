import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AgentContext } from '../context.js';
import { resourceExposure } from '../content/visibility.js';
import { withBudget } from '../http/budget.js';
import { classifyError } from '../http/errors.js';
import { resourceRef } from '../http/parameters.js';
import { reportUnexpected } from '../http/route-errors.js';
import { formatAgentLink, type AgentLink } from './link-format.js';
import { resourceAlternates, siteLinks } from './site-links.js';

/** A resource reference as the facade routes accept it (numeric id or unique name), else undefined. */
export function normalizeResourceRef(id: unknown): number | string | undefined {
  if (typeof id === 'number') return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  if (typeof id !== 'string') return undefined;
  const parsed = resourceRef.safeParse(id);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The links of a page: the site-level set, plus the Markdown and JSON alternates when the resource is
 * anonymous-visible and indexable. Decided as an anonymous visitor: the request's session is never
 * consulted. A database that is down or slow, or any other failure, costs the alternates, never the page.
 */
export async function pageLinks(ctx: AgentContext, req: Request, id?: unknown): Promise<AgentLink[]> {
  let base: string;
  try {
    base = ctx.baseUrl(req);
  } catch {
    return [];
  }
  const links = siteLinks(base);
  if (id === undefined || id === null) return links;
  const ref = normalizeResourceRef(id);
  if (ref === undefined) return links;
  try {
    const exposure = await withBudget(ctx.options.budgetMs, () => resourceExposure(ctx.db, ref, ctx.options.noindex));
    if (exposure?.visible && exposure.indexable) links.push(...resourceAlternates(base, ref));
  } catch (error) {
    // The page is the host's: a failure here costs the alternates, never the page; an unexpected one
    // is reported through `onError`.
    if (!classifyError(error)) reportUnexpected(ctx, req, error);
  }
  return links;
}

/** `setResourceHeaders(req, res, id)` for custom controllers: appends the page's links to `Link`. */
export function createSetResourceHeaders(ctx: AgentContext): (req: Request, res: Response, id: number | string) => Promise<void> {
  return async function setResourceHeaders(req: Request, res: Response, id: number | string): Promise<void> {
    const links = await pageLinks(ctx, req, id);
    if (links.length && !res.headersSent) res.append('Link', links.map(formatAgentLink));
  };
}

/**
 * Route-level middleware for the host's standard resource route: `app.get('/page/:id', agent.resourceLinks('id'), render)`.
 * The resource reference is read from `req.params[param]`.
 */
export function createResourceLinks(ctx: AgentContext): (param?: string) => RequestHandler {
  const setResourceHeaders = createSetResourceHeaders(ctx);
  return function resourceLinks(param = 'id'): RequestHandler {
    if (typeof param !== 'string' || param === '') {
      throw new TypeError('express-agent-discovery: resourceLinks(param): param must be a non-empty route parameter name');
    }
    return function resourceLinkHeaders(req: Request, res: Response, next: NextFunction) {
      setResourceHeaders(req, res, req.params[param] as string).then(() => next(), next);
    };
  };
}
