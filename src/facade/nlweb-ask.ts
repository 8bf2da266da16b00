import { z } from 'zod';
import { plainLine } from '../content/display-text.js';
import { badRequest } from '../http/errors.js';
import type { resourceSummary } from '../representations/result-schemas.js';

/** The NLWeb protocol version the answers speak (`_meta.version`). */
export const NLWEB_VERSION = '0.5';
/** The most bytes of UTF-8 `query.text` may have: the search's own bound of `text`. */
export const MAX_ASK_TEXT_BYTES = 512;
/** Results one answer lists (a first page of the search). */
export const ASK_RESULTS = 10;
/** The mode that needs no language model: a list of results. */
export const LIST_MODE = 'list';

const askText = z
  .string({ error: 'expected a string' })
  .refine((v) => v.trim() !== '', 'must not be empty')
  .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_ASK_TEXT_BYTES, `must be at most ${MAX_ASK_TEXT_BYTES} bytes of UTF-8`);

/**
 * An NLWeb `AskRequest` (the protocol's TypeSpec, `main.tsp`): `query` (its `text` required; `site`,
 * `type` and other filters allowed), `context`, `return_response` (`streaming`, `mode`, `lang`, …) and
 * `meta` (`conversation_id`, …). Members the TypeSpec allows beyond these are accepted and not used.
 */
export const askRequest = z.looseObject({
  query: z.looseObject({
    text: askText,
    site: z.union([z.string(), z.array(z.string())]).optional(),
    type: z.string().optional(),
  }),
  context: z.looseObject({ prev: z.array(z.string()).optional(), text: z.string().optional(), memory: z.array(z.string()).optional() }).optional(),
  return_response: z
    .looseObject({
      streaming: z.boolean().optional(),
      format: z.string().optional(),
      mode: z.string().optional(),
      lang: z.string().optional(),
      client_type: z.enum(['mobile', 'desktop', 'tablet', 'web']).optional(),
    })
    .optional(),
  meta: z.looseObject({ conversation_id: z.string().optional(), api_version: z.string().optional(), request_id: z.string().optional() }).optional(),
});

export type AskRequest = z.output<typeof askRequest>;

/** A request body as an `AskRequest`, else a 400 naming the field (`query.text`) and why. */
export function parseAskRequest(body: unknown): AskRequest {
  const parsed = askRequest.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw badRequest(issue.path.length ? issue.path.join('.') : 'body', issue.message);
}

/** The parameters of `GET /ask` (the same request as a query string) and what they mean in an `AskRequest`. */
const GET_PARAMETERS = new Set(['query', 'site', 'type', 'mode', 'lang', 'streaming', 'conversation_id']);

/**
 * `GET /ask?query=…&mode=list&streaming=false` as an `AskRequest`. Every parameter at most once, none
 * other (a 400 naming it); `streaming` is `true` or `false`.
 */
export function askRequestOfQuery(pairs: readonly (readonly [string, string])[]): AskRequest {
  const seen = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (!GET_PARAMETERS.has(name)) throw badRequest(name, `unknown parameter; expected ${[...GET_PARAMETERS].join(', ')}`);
    if (seen.has(name)) throw badRequest(name, 'given more than once');
    seen.set(name, value);
  }
  const streaming = seen.get('streaming');
  if (streaming !== undefined && streaming !== 'true' && streaming !== 'false') throw badRequest('streaming', 'expected true or false');
  const get = (name: string) => seen.get(name);
  return parseAskRequest({
    query: { text: get('query') ?? '', ...(get('site') ? { site: get('site') } : {}), ...(get('type') ? { type: get('type') } : {}) },
    return_response: {
      ...(streaming !== undefined ? { streaming: streaming === 'true' } : {}),
      ...(get('mode') ? { mode: get('mode') } : {}),
      ...(get('lang') ? { lang: get('lang') } : {}),
    },
    ...(get('conversation_id') ? { meta: { conversation_id: get('conversation_id') } } : {}),
  });
}

type SearchItem = z.output<typeof resourceSummary>;

/** A search item as the schema.org object an NLWeb client shows: its page URL first, its Markdown as an encoding. */
export function schemaOrgItem(item: SearchItem): Record<string, unknown> {
  return {
    '@context': 'https://schema.org',
    '@type': 'CreativeWork',
    '@id': item.uri,
    name: item.title,
    ...(item.summary ? { description: item.summary } : {}),
    url: item.page_url,
    inLanguage: item.language,
    ...(item.publication_start ? { datePublished: item.publication_start } : {}),
    ...(item.modified ? { dateModified: item.modified } : {}),
    ...(item.category ? { genre: item.category.title ?? item.category.name } : {}),
    encoding: { '@type': 'MediaObject', encodingFormat: 'text/markdown', contentUrl: item.markdown_url },
  };
}

/** What an answer is made of: the site, the request, the search's first page and where it goes on. */
export interface AskAnswer {
  siteTitle: string;
  request: AskRequest;
  items: readonly SearchItem[];
  /** The search's next page (`next_url`), when there are more results than listed. */
  more: string | null;
}

/** The `_meta` of an answer: an `Answer` of protocol version 0.5, the mode served, the conversation echoed. */
export function answerMeta(request: AskRequest): Record<string, unknown> {
  const conversation = request.meta?.conversation_id;
  return { response_type: 'Answer', version: NLWEB_VERSION, mode: LIST_MODE, ...(conversation !== undefined ? { conversation_id: conversation } : {}) };
}

/**
 * The answer's text: how many results for the query, where more are, and, for a mode other than
 * `list` (`summarize`, `generate`…), that it needs a language model this site does not run, so the
 * list is the answer.
 */
export function answerText(a: AskAnswer): string {
  const mode = a.request.return_response?.mode;
  const query = plainLine(a.request.query.text);
  const site = plainLine(a.siteTitle);
  const note =
    mode !== undefined && mode !== LIST_MODE
      ? `The mode "${plainLine(mode)}" needs a language model, which ${site} does not run here: this is the list of results instead. `
      : '';
  const found = a.items.length ? `${a.items.length} result${a.items.length === 1 ? '' : 's'} on ${site} for "${query}"` : `No results on ${site} for "${query}"`;
  return `${note}${found}${a.more ? `; more: ${a.more}` : ''}. Cite each result by its url.`;
}

/** The whole `AskResponse` (JSON): `_meta`, one text content, then one resource content per result. */
export function askResponse(a: AskAnswer): Record<string, unknown> {
  return {
    _meta: answerMeta(a.request),
    content: [{ type: 'text', text: answerText(a) }, ...a.items.map((item) => ({ type: 'resource', resource: { data: schemaOrgItem(item) } }))],
  };
}

/**
 * The streaming form (Server-Sent Events, one JSON message per `data:` line): the `_meta`, the text,
 * each result as a resource content, then `{"type":"done"}`.
 */
export function askEvents(a: AskAnswer): string[] {
  const messages: unknown[] = [
    { _meta: answerMeta(a.request) },
    { content: [{ type: 'text', text: answerText(a) }] },
    ...a.items.map((item) => ({ content: [{ type: 'resource', resource: { data: schemaOrgItem(item) } }] })),
    { type: 'done' },
  ];
  return messages.map((m) => `data: ${JSON.stringify(m)}\n\n`);
}
