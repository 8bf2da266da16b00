/** What the YAML front matter of a resource's Markdown representation says about it. */
export interface FrontMatter {
  title: string;
  /** The human page URL, absolute, in the language actually used. */
  url: string;
  language: string;
  /** The publication start, as an ISO-8601 UTC timestamp. */
  published?: Date;
  /** The last modification, as an ISO-8601 UTC timestamp. */
  modified: Date;
  /** The summary; left out when empty. */
  description?: string;
  /** The titles of the resource's (visible) categories; left out when empty. */
  categories?: readonly string[];
  /** The titles of its authors; left out when empty. */
  authors?: readonly string[];
  /** The titles of its tags; left out when empty. */
  tags?: readonly string[];
  /** Words of the content. */
  word_count?: number;
  /** The resource's own licence, else the site's (see `citationTerms`); left out when empty. */
  license?: string;
  /** The link of the site licence, when that is the licence; left out when empty. */
  license_url?: string;
  /** Left out when empty. */
  attribution?: string;
  /** The site's copyright line, with the site licence; left out when empty. */
  copyright?: string;
  content_complete: boolean;
}

/** YAML 1.2 escapes with a short form; every other character that needs one gets `\uXXXX`. */
const SHORT_ESCAPES: Record<string, string> = {
  '\0': '\\0',
  '\x07': '\\a',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\v': '\\v',
  '\f': '\\f',
  '\r': '\\r',
  '\x1b': '\\e',
  '"': '\\"',
  '\\': '\\\\',
  '\x85': '\\N',
  '\u2028': '\\L',
  '\u2029': '\\P',
};

/**
 * Characters escaped in a double-quoted scalar: the quote and backslash, control characters (C0,
 * DEL, C1), format characters (bidi overrides, zero-width, BOM), the line and paragraph separators
 * and the non-characters U+FFFE/U+FFFF. Everything else is printable in YAML.
 */
const NEEDS_ESCAPE = /["\\\p{Cc}\p{Cf}\u2028\u2029\ufffe\uffff]/gu;

/** A UTF-16 surrogate without its pair (a JavaScript string may hold one; no YAML document can). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `\uXXXX`, or `\UXXXXXXXX` beyond the Basic Multilingual Plane. */
const hexEscape = (cp: number): string =>
  cp > 0xffff ? `\\U${cp.toString(16).toUpperCase().padStart(8, '0')}` : `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * A YAML double-quoted scalar on one line that any YAML 1.1 or 1.2 parser reads back as exactly
 * `text` (lone surrogates, which no YAML document can carry, become U+FFFD).
 *
 * ```ts
 * yamlString('Re: "#1"\n- ok') // '"Re: \\"#1\\"\\n- ok"'
 * ```
 */
export function yamlString(text: string): string {
  const escaped = text.replace(LONE_SURROGATE, '\uFFFD').replace(NEEDS_ESCAPE, (c) => SHORT_ESCAPES[c] ?? hexEscape(c.codePointAt(0)!));
  return `"${escaped}"`;
}

/**
 * The front matter block that opens a resource's Markdown representation: `---`, one `key: value`
 * line per field (strings double-quoted, lists as flow sequences of them, `word_count` an integer,
 * `content_complete` a boolean; empty optional fields left out), `---`, a blank line.
 *
 * ```ts
 * renderFrontMatter({ title: 'Harbour', url: 'https://example.org/en/page/7', language: 'en',
 *   modified: new Date(0), content_complete: true })
 * // ---\ntitle: "Harbour"\nurl: "https://example.org/en/page/7"\nlanguage: "en"\n
 * // modified: "1970-01-01T00:00:00.000Z"\ncontent_complete: true\n---\n\n
 * ```
 */
export function renderFrontMatter(fm: FrontMatter): string {
  const list = (key: string, items: readonly string[] | undefined) => (items?.length ? [`${key}: [${items.map(yamlString).join(', ')}]`] : []);
  const lines = [
    `title: ${yamlString(fm.title)}`,
    `url: ${yamlString(fm.url)}`,
    `language: ${yamlString(fm.language)}`,
    ...(fm.published ? [`published: ${yamlString(fm.published.toISOString())}`] : []),
    `modified: ${yamlString(fm.modified.toISOString())}`,
    ...(fm.description ? [`description: ${yamlString(fm.description)}`] : []),
    ...list('categories', fm.categories),
    ...list('authors', fm.authors),
    ...list('tags', fm.tags),
    ...(fm.word_count !== undefined ? [`word_count: ${fm.word_count}`] : []),
    ...(fm.license ? [`license: ${yamlString(fm.license)}`] : []),
    ...(fm.license_url ? [`license_url: ${yamlString(fm.license_url)}`] : []),
    ...(fm.attribution ? [`attribution: ${yamlString(fm.attribution)}`] : []),
    ...(fm.copyright ? [`copyright: ${yamlString(fm.copyright)}`] : []),
    `content_complete: ${fm.content_complete ? 'true' : 'false'}`,
  ];
  return `---\n${lines.join('\n')}\n---\n\n`;
}
