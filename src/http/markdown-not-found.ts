import type { Request, Response } from 'express';
import { preferredMediaType } from './accept.js';
import { PATHS } from '../paths.js';

/** JSON and HTML are offered first: only a request that really prefers Markdown gets it. */
const NOT_FOUND_OFFER = ['application/json', 'text/html', 'text/markdown'] as const;

/** Whether a request prefers `text/markdown` over JSON and HTML (an agent that asked for Markdown). */
function wantsMarkdownAnswer(req: Request): boolean {
  return preferredMediaType(req, NOT_FOUND_OFFER) === 'text/markdown';
}

/**
 * The Markdown body of a 404 for an agent that asked for Markdown: where to look instead. Links are
 * root-relative (they resolve against the URL that was asked), so no `Host` header is copied.
 *
 * ```markdown
 * # Not found
 *
 * Nothing public is at this address.
 *
 * - [Search this site](/api/agent/search?text=…): …
 * - [llms.txt](/llms.txt): …
 * ```
 */
function markdownNotFoundBody(): string {
  return [
    '# Not found',
    '',
    'Nothing public is at this address: it may have moved, or it is not published.',
    '',
    `- [Search this site](${PATHS.search.url()}): full-text search over the public content (add \`?text=…\`); every result links its Markdown`,
    `- [llms.txt](${PATHS.llmsTxt.url()}): what this site offers and how to read it`,
    '',
  ].join('\n');
}

/**
 * Answers a 404 with the Markdown body when the request prefers Markdown; `false` (nothing sent) for
 * every other request. The plugin's own 404s use it; a host can too, for its own 404 pages:
 * `if (!agent.sendMarkdownNotFound(req, res)) res.status(404).render('404')`.
 */
export function sendMarkdownNotFound(req: Request, res: Response): boolean {
  if (res.headersSent || !wantsMarkdownAnswer(req)) return false;
  const body = Buffer.from(markdownNotFoundBody());
  res.status(404);
  res.setHeader('Content-Type', 'text/markdown; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Vary', 'Accept');
  res.setHeader('Content-Length', String(body.length));
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
