import express, { type Request, type Response, type Router } from 'express';
import { markSurface } from '../traffic/traffic-mark.js';
import type { AgentContext } from '../context.js';
import { PATHS } from '../paths.js';
import { preferredMediaType } from '../http/accept.js';
import { withBudget } from '../http/budget.js';
import { setPublicCorsHeaders, publicPreflightFor } from '../http/cors.js';
import { badRequest, HttpError } from '../http/errors.js';
import { rawQueryPairs } from '../http/parameters.js';
import { markPluginResponse } from '../http/plugin-response.js';
import { API_ROBOTS, JSON_CONTENT_TYPE, sendErrorEnvelope, setNoSniff } from '../http/representation.js';
import { runRoute } from '../http/responder.js';
import type { Route } from '../http/route.js';
import { answerRouteError } from '../http/route-errors.js';
import { ASK_RESULTS, askEvents, askRequestOfQuery, askResponse, parseAskRequest, type AskAnswer, type AskRequest } from './nlweb-ask.js';

/** The largest `POST /ask` body accepted: an `AskRequest` with its context is a few kilobytes. */
export const MAX_ASK_BODY_BYTES = 16 * 1024;

/** The search's first page, as the ask answers from it. */
type SearchPage = { items: AskAnswer['items']; next_url: string | null };

/** Whether the client takes the streaming form (Server-Sent Events); a client that accepts only JSON gets JSON. */
const acceptsEventStream = (req: Request) => preferredMediaType(req, ['text/event-stream']) !== undefined;

/**
 * Answers one `AskRequest` in list mode from the facade's search (the route of the table itself, its
 * first page of `ASK_RESULTS`, in `return_response.lang` when it is a site language): JSON, or the
 * streaming form when `return_response.streaming` is true (the protocol's default) and the client
 * accepts `text/event-stream`.
 */
async function answerAsk(ctx: AgentContext, search: Route<AgentContext>, req: Request, res: Response, request: AskRequest): Promise<void> {
  const base = ctx.baseUrl(req);
  const lang = request.return_response?.lang;
  const language = lang !== undefined && ctx.options.languages.includes(lang) ? lang : ctx.options.defaultLanguage;
  const text = request.query.text;
  const query: [string, string][] = [['text', text], ['pagelen', String(ASK_RESULTS)], ['language', language]];
  const page = (await withBudget(ctx.options.budgetMs, () => runRoute(search, ctx, { base, path: PATHS.search.url(), query }, {}))) as SearchPage;
  const answer: AskAnswer = {
    siteTitle: ctx.options.siteTitle,
    request,
    items: page.items,
    more: page.next_url,
  };
  res.removeHeader('Set-Cookie');
  setNoSniff(res);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Language', language);
  if ((request.return_response?.streaming ?? true) && acceptsEventStream(req)) {
    res.status(200).setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    if (req.method === 'HEAD') return void res.end();
    for (const event of askEvents(answer)) res.write(event);
    return void res.end();
  }
  const body = Buffer.from(JSON.stringify(askResponse(answer)));
  res.status(200).setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', String(body.length));
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * Mounts NLWeb's `/ask` (the `nlweb` option) in list mode: `POST /ask` with a JSON `AskRequest`, and
 * `GET /ask?query=…` with the same request as a query string. Every answer is the plugin's
 * (`X-Robots-Tag: noindex, nofollow`, `no-store`, never a cookie; with `cors`, the public CORS headers
 * and a preflight that allows `POST` with `Content-Type`). Bad input is the facade's 400 naming the
 * field (`query.text`: empty, or over 512 bytes; `body`: not JSON), a body over 16 KiB a 413, other
 * methods a 405.
 */
export function mountNlwebAsk(router: Router, ctx: AgentContext, search: Route<AgentContext>): void {
  const path = PATHS.ask.expressPath;
  const parseJson = express.json({ limit: MAX_ASK_BODY_BYTES });
  const prepare = (req: Request, res: Response) => {
    markPluginResponse(res);
    markSurface(req, 'listing');
    res.setHeader('X-Robots-Tag', API_ROBOTS);
    if (ctx.options.cors) setPublicCorsHeaders(res);
  };
  const run = (req: Request, res: Response, request: () => AskRequest) =>
    Promise.resolve()
      .then(() => answerAsk(ctx, search, req, res, request()))
      .catch((error: unknown) => answerRouteError(ctx, req, res, error));
  if (ctx.options.cors) router.options(path, publicPreflightFor('GET, HEAD, POST, OPTIONS', 'Accept, Accept-Language, Content-Type'));
  router.get(path, function nlwebAskQuery(req: Request, res: Response) {
    prepare(req, res);
    void run(req, res, () => askRequestOfQuery(rawQueryPairs(req)));
  });
  router.post(path, function nlwebAskBody(req: Request, res: Response) {
    prepare(req, res);
    parseJson(req, res, (error?: unknown) => {
      if (error) {
        const tooLarge = (error as { type?: string }).type === 'entity.too.large';
        return sendErrorEnvelope(res, tooLarge ? new HttpError(413, 'payload_too_large', `the request body is over ${MAX_ASK_BODY_BYTES} bytes`) : badRequest('body', 'not valid JSON'));
      }
      if (!req.is('application/json')) return sendErrorEnvelope(res, badRequest('body', 'expected a JSON AskRequest (Content-Type: application/json)'));
      void run(req, res, () => parseAskRequest(req.body));
    });
  });
  router.all(path, function nlwebAskMethod(_req: Request, res: Response) {
    markPluginResponse(res);
    sendErrorEnvelope(res, new HttpError(405, 'method_not_allowed', 'GET, HEAD and POST only'), { Allow: 'GET, HEAD, POST' });
  });
}
