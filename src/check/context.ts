import type { ReferenceLlmsFile } from './llms-txt-reference.js';
import type { PageView, SeenLink } from './page-view.js';
import type { SiteClient, SiteResponse } from './site-client.js';

/** Accept headers the checks send, as the clients they stand for do. */
export const ACCEPT = {
  /** An agent-side fetcher that lists HTML first: it must get HTML. */
  fetcher: 'text/html, text/markdown, text/plain, */*;q=0.8',
  browser: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  /** Coding agents that prefer Markdown on a page URL. */
  markdownAgent: 'text/markdown, text/html, */*',
  json: 'application/json',
  markdown: 'text/markdown',
  document: 'application/json, */*;q=0.8',
} as const;

/** What the checks learned so far; each check reads what earlier ones found. */
export interface CheckContext {
  readonly origin: string;
  /** The home page URL (`<origin>/`). */
  readonly homeUrl: string;
  readonly client: SiteClient;
  /** `--page`: the page to check instead of one found on the site. */
  readonly pageUrl?: string;
  home?: PageView;
  /** The HEAD answers of the conventional paths, by path. */
  probes?: ReadonlyMap<string, SiteResponse>;
  llms?: { url: string; text: string; parsed?: ReferenceLlmsFile };
  page?: { view: PageView; via: string };
  /** The API catalog's `service-desc` targets. */
  catalogServiceDescs?: readonly string[];
  /** The lines of robots.txt as `[field, value]`, field lower case. */
  robots?: ReadonlyArray<[string, string]>;
  /** The MCP endpoint the card or `rel="mcp"` names (same origin). */
  mcpEndpoint?: string;
}

/** The first link with relation `rel` on the home page (header first, then head). */
export function homeLink(ctx: CheckContext, rel: string): SeenLink | undefined {
  const links = [...(ctx.home?.headerLinks ?? []), ...(ctx.home?.headLinks ?? [])];
  return links.find((l) => l.rels.includes(rel));
}

/** The links of llms.txt, with their section. */
export function llmsLinks(ctx: CheckContext): Array<{ section: string; title: string; url: string }> {
  const sections = ctx.llms?.parsed?.sections ?? {};
  return Object.entries(sections).flatMap(([section, links]) => links.map((l) => ({ section, title: l.title, url: resolve(l.url, ctx.llms!.url) ?? l.url })));
}

/** `href` made absolute against `base`, or undefined when it is not a URL. */
export function resolve(href: string, base: string): string | undefined {
  try {
    return new URL(href, base).toString();
  } catch {
    return undefined;
  }
}

/** A URL shortened to its path when it is on the checked origin (for messages). */
export function short(url: string, origin: string): string {
  return url.startsWith(`${origin}/`) ? url.slice(origin.length) : url;
}

/** Parses JSON, or undefined. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** True for a plain JSON object. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
