import type { Request, Response } from 'express';
import { prefersMarkdown } from '../http/accept.js';
import { PATHS } from '../paths.js';

/** How a refusal is said: the facade's JSON, MCP's JSON-RPC, Markdown for Markdown clients, else HTML. */
export type AnswerFormat = 'json' | 'json-rpc' | 'markdown' | 'html';

/** The refusals and offers of the agent policy, with their status. */
export type PolicyAnswer =
  | { readonly kind: 'blocked'; readonly why: string }
  | { readonly kind: 'limited'; readonly retryAfter: number }
  | { readonly kind: 'payment-required'; readonly price: string };

/** Where the site publishes what it allows (robots.txt, the RSL licence), for the bodies of refusals. */
export interface PolicyPlaces {
  readonly robotsTxt: string;
  readonly license: string | null;
}

/** The format of a refusal for this request (never on anything but the path, the method and Accept). */
export function answerFormat(req: Request, mcpPath: string | null): AnswerFormat {
  if (mcpPath && req.path === mcpPath) return 'json-rpc';
  if (req.path === PATHS.apiRoot.template || req.path.startsWith(`${PATHS.apiRoot.template}/`)) return 'json';
  if (req.path.endsWith('.md') || req.path.endsWith('/markdown') || req.path.endsWith('.txt') || prefersMarkdown(req)) return 'markdown';
  if (req.path.endsWith('.json')) return 'json';
  return 'html';
}

const STATUS = { blocked: 403, limited: 429, 'payment-required': 402 } as const;
const CODE = { blocked: 'forbidden', limited: 'too_many_requests', 'payment-required': 'payment_required' } as const;

function sentence(answer: PolicyAnswer, places: PolicyPlaces): string {
  const where = `This site's agent policy is published in ${places.robotsTxt}${places.license ? ` and ${places.license}` : ''}.`;
  if (answer.kind === 'blocked') return `This site's policy refuses this agent (${answer.why}). ${where}`;
  if (answer.kind === 'limited') return `Too many requests from this agent: retry after ${answer.retryAfter} s. ${where}`;
  return `This site charges ${answer.price} USD per request for this agent: send crawler-exact-price or crawler-max-price to accept. ${where}`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Sends a refusal: `Cache-Control: no-store`, `Vary: Accept` (the format follows it), the status, the
 * pay-per-crawl or `Retry-After` header, a short body in the request's format. A HEAD gets the headers only.
 */
export function sendPolicyAnswer(req: Request, res: Response, answer: PolicyAnswer, format: AnswerFormat, places: PolicyPlaces): void {
  const status = STATUS[answer.kind];
  const text = sentence(answer, places);
  let type: string;
  let body: string;
  switch (format) {
    case 'json-rpc':
      type = 'application/json';
      body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: text, data: { status } } });
      break;
    case 'json':
      type = 'application/json; charset=utf-8';
      body = JSON.stringify({ status: 'error', error: CODE[answer.kind], message: text });
      break;
    case 'markdown':
      type = 'text/markdown; charset=utf-8';
      body = `# ${status === 403 ? 'Refused' : status === 429 ? 'Too many requests' : 'Payment required'}\n\n${text}\n`;
      break;
    default:
      type = 'text/html; charset=utf-8';
      body = `<!doctype html><html><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${status}</title></head><body><p>${escapeHtml(text)}</p></body></html>\n`;
  }
  const bytes = Buffer.from(body);
  res.status(status);
  res.removeHeader('ETag');
  res.removeHeader('Last-Modified');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Accept');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (answer.kind === 'limited') res.setHeader('Retry-After', String(answer.retryAfter));
  if (answer.kind === 'payment-required') res.setHeader('crawler-price', `USD ${answer.price}`);
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', String(bytes.length));
  res.end(req.method === 'HEAD' ? undefined : bytes);
}
