import LinkHeader from 'http-link-header';
import type { SiteResponse } from './site-client.js';

/** One advertised link, from a `Link` header or a `<link>` element, with an absolute `href`. */
export interface SeenLink {
  readonly href: string;
  /** The relation types, lower case. */
  readonly rels: readonly string[];
  readonly type?: string;
  readonly hreflang?: string;
}

/** What an agent sees of an HTML page: its links, metas and language. */
export interface PageView {
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly headerLinks: readonly SeenLink[];
  readonly headLinks: readonly SeenLink[];
  /** `<meta name content>` of `<head>`. */
  readonly metas: ReadonlyMap<string, string>;
  /** `<html lang>`, else `Content-Language`, lower case. */
  readonly language?: string;
  readonly vary: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };
const decode = (s: string): string => s.replace(/&(amp|lt|gt|quot|apos|#39);/g, (_, e: string) => ENTITIES[e]!);

/** The attributes of one start tag, names lower case. */
function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    out[m[1]!.toLowerCase()] = decode(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return out;
}

const absolute = (href: string, base: string): string | undefined => {
  try {
    return new URL(href, base).toString();
  } catch {
    return undefined;
  }
};

const relTokens = (rel: unknown): string[] => (typeof rel === 'string' ? rel.toLowerCase().split(/\s+/).filter(Boolean) : []);

const optional = (name: 'type' | 'hreflang', value: unknown) => (typeof value === 'string' && value ? { [name]: value } : {});

/** Every link-value of a `Link` header (RFC 8288), resolved against `base`; unreadable values are dropped. */
function parseLinkHeader(value: string | null, base: string): SeenLink[] {
  if (!value) return [];
  let refs: Array<Record<string, unknown> & { uri: string }>;
  try {
    refs = LinkHeader.parse(value).refs as Array<Record<string, unknown> & { uri: string }>;
  } catch {
    return [];
  }
  return refs.flatMap((ref) => {
    const href = absolute(ref.uri, base);
    return href ? [{ href, rels: relTokens(ref.rel), ...optional('type', ref.type), ...optional('hreflang', ref.hreflang) }] : [];
  });
}

/** Reads the Link header and `<head>` of an HTML response. */
export function readPage(res: SiteResponse & { status: number }): PageView {
  const html = res.body;
  const head = /<head\b[^>]*>([\s\S]*?)<\/head>/i.exec(html)?.[1] ?? '';
  const headLinks = [...head.matchAll(/<link\b[^>]*>/gi)].flatMap((m) => {
    const a = attributes(m[0]);
    const href = a.href === undefined ? undefined : absolute(a.href, res.url);
    return href ? [{ href, rels: relTokens(a.rel), ...optional('type', a.type), ...optional('hreflang', a.hreflang) }] : [];
  });
  const metas = new Map<string, string>();
  for (const m of head.matchAll(/<meta\b[^>]*>/gi)) {
    const a = attributes(m[0]);
    if (a.name && a.content !== undefined) metas.set(a.name.toLowerCase(), a.content);
  }
  const htmlTag = /<html\b[^>]*>/i.exec(html)?.[0];
  const language = (htmlTag ? attributes(htmlTag).lang : undefined) || res.headers.get('content-language')?.split(',')[0]?.trim() || undefined;
  return {
    url: res.url,
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    headerLinks: parseLinkHeader(res.headers.get('link'), res.url),
    headLinks,
    metas,
    ...(language ? { language: language.toLowerCase() } : {}),
    vary: res.headers.get('vary') ?? '',
  };
}

/** The links with relation `rel` (and, when given, a media type starting with `type`). */
export function linksWith(links: readonly SeenLink[], rel: string, type?: string): SeenLink[] {
  return links.filter((l) => l.rels.includes(rel) && (type === undefined || (l.type ?? '').toLowerCase().startsWith(type)));
}

/** True when a `Vary` value names `Accept` (or is `*`). */
export const variesOnAccept = (vary: string): boolean => vary.split(',').some((v) => ['accept', '*'].includes(v.trim().toLowerCase()));
