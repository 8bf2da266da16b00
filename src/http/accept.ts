import type { Request } from 'express';
import Negotiator from 'negotiator';

/**
 * The media type a request prefers among `offered`, by RFC 9110 q-values (`negotiator`): a higher q
 * wins, then the more specific range, then the range listed first in `Accept`, then the type offered
 * first. Media-type parameters other than `q` (`text/markdown; charset=utf-8`) do not change the
 * choice. No `Accept` is `*\/*`. `undefined` when nothing offered is acceptable.
 *
 * ```ts
 * preferredMediaType(req, ['text/html', 'text/markdown'])
 * // 'text/markdown, text/html, *\/*'                    → 'text/markdown' (listed first)
 * // 'text/html, text/markdown, text/plain, *\/*;q=0.8'  → 'text/html'
 * // '*\/*' or none                                      → 'text/html' (offered first)
 * ```
 */
export function preferredMediaType<T extends string>(req: Request, offered: readonly T[]): T | undefined {
  const accept = (req.get('accept') ?? '*/*')
    .split(',')
    .map((range) => range.split(';').filter((part, i) => i === 0 || /^\s*q\s*=/i.test(part)).join(';'))
    .join(',');
  return new Negotiator({ headers: { accept } }).mediaType([...offered]) as T | undefined;
}

/** HTML is offered first, so equal preference (`*\/*`, no Accept, `text/html, text/markdown`) means HTML. */
const PAGE_OFFER = ['text/html', 'text/markdown'] as const;

/**
 * Whether a request on a page URL prefers `text/markdown` over `text/html` (Claude Code's
 * `text/markdown, text/html, *\/*`, Cursor's `text/markdown;q=1.0, text/html;q=0.8`), as opposed to a
 * browser's or FetchKit's (HTML first or equal).
 */
export function prefersMarkdown(req: Request): boolean {
  return preferredMediaType(req, PAGE_OFFER) === 'text/markdown';
}
