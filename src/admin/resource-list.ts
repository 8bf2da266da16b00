import type { AgentContext } from '../context.js';
import { searchResources } from '../content/search.js';
import { summaryItem } from '../representations/summary-item.js';
import { adminDate } from './admin-format.js';

/** Resources per page of the inspector's list. */
const RESOURCE_LIST_PAGE_SIZE = 20;

/** The deepest page of the list (500 × 20 = the newest 10,000 resources); a search finds the rest. */
export const MAX_RESOURCE_LIST_PAGE = 500;

/** The longest search text the list takes (what the search API takes is longer; an admin types words). */
export const MAX_RESOURCE_LIST_TEXT = 200;

/** One page of the inspector's list: what it shows, and whether a next page exists. */
export interface ResourceListPage {
  readonly text: string;
  readonly page: number;
  readonly more: boolean;
  readonly items: readonly { id: number; name: string | null; title: string; pageUrl: string; published: string; languages: readonly string[] }[];
}

/**
 * A page of the resources agents can find (public, indexable, not vocabulary), newest first, or
 * those matching `text`: the same search, with the same rules, as the public search API, so the list
 * shows nothing that is not public. Private and noindex resources are inspected by id, name or URL.
 */
export async function listResources(ctx: AgentContext, base: string, siteNoindex: boolean, text: string, page: number): Promise<ResourceListPage> {
  const rows = await searchResources(ctx.db, {
    sort: 'newest',
    text: text || undefined,
    siteNoindex,
    offset: (page - 1) * RESOURCE_LIST_PAGE_SIZE,
    limit: RESOURCE_LIST_PAGE_SIZE + 1,
  });
  const ic = { base, options: ctx.options, requestedLanguage: ctx.options.defaultLanguage };
  const items = rows.slice(0, RESOURCE_LIST_PAGE_SIZE).map((row) => {
    const item = summaryItem(ic, row);
    return { id: item.id, name: row.name, title: item.title || `#${item.id}`, pageUrl: item.page_url, published: adminDate(item.publication_start), languages: item.available_languages };
  });
  return { text, page, more: rows.length > RESOURCE_LIST_PAGE_SIZE, items };
}
