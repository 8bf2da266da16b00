import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AgentIdentifier, AgentIdentity } from '../traffic/agent-identity.js';
import { identifiedRequest } from '../traffic/agent-identity.js';
import type { TrafficRecorder } from '../traffic/traffic-recorder.js';
import { markOutcome, startMark, type TrafficOutcome } from '../traffic/traffic-mark.js';
import { PATHS } from '../paths.js';
import { priceHeader, priceMicros, type CompiledPolicy } from './agent-policy.js';
import { answerFormat, sendPolicyAnswer, type PolicyAnswer, type PolicyPlaces } from './policy-answers.js';
import type { ChargeLedger } from '../traffic/charge-ledger.js';

/** What the gate decided for one request. */
export interface AgentDecision {
  /** `allow` also covers a charged request that offered enough (`charged` says so). */
  readonly action: 'allow' | 'block' | 'limit' | 'charge';
  /** The status the plugin answers with: 200 (served), 403, 429 or 402. */
  readonly status: 200 | 402 | 403 | 429;
  readonly identity: AgentIdentity;
  /** The index of the policy rule that decided, `null` for the default (or a per-purpose rate limit). */
  readonly rule: number | null;
  /** The price asked (402) or charged, in USD (`"0.002"`). */
  readonly price?: string;
  /** True when the request is served and charged `price`. */
  readonly charged?: boolean;
  /** Seconds until a token is there (429). */
  readonly retryAfter?: number;
  readonly outcome: TrafficOutcome;
  /** The refusal to send (403, 429, 402). */
  readonly answer?: PolicyAnswer;
}

export interface AgentGateParts {
  readonly identifier: AgentIdentifier;
  readonly policy: () => CompiledPolicy;
  /** Per-purpose limits of the `traffic.rateLimits` option (never browsers, never verified agents). */
  readonly purposeLimits: Readonly<Partial<Record<string, { requests: number; perSeconds: number }>>>;
  readonly traffic: TrafficRecorder | undefined;
  readonly ledger: ChargeLedger;
  readonly mcpPath: string | null;
  readonly places: () => PolicyPlaces;
}

export interface AgentGate {
  /** The one decision point: mounted first in the plugin's router and in `linkHeaders`; runs once per request. */
  readonly middleware: RequestHandler;
  /** The decision for a request the plugin does not route (`agent.decide(req)`); counts nothing, sends nothing. */
  decide(req: Request): Promise<AgentDecision>;
}

const GATED = Symbol('express-agent-discovery.gate');
const MAX_BUCKETS = 10_000;

interface Bucket {
  tokens: number;
  updated: number;
}

/** Token buckets keyed by rule and by who asks (a verified agent's bucket apart from the claims of its name). */
function createBuckets() {
  let buckets = new Map<string, Bucket>();
  return function take(key: string, capacity: number, perMs: number, now: number): number {
    let bucket = buckets.get(key);
    if (!bucket) {
      if (buckets.size >= MAX_BUCKETS) buckets = new Map();
      bucket = { tokens: capacity, updated: now };
      buckets.set(key, bucket);
    }
    const rate = capacity / perMs;
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.updated) * rate);
    bucket.updated = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000));
  };
}

/**
 * Who a bucket belongs to: a verified agent has its own; an unverified or spoofed claim of a name shares one
 * with the other claims of that name, so forgers cannot drain the real agent's.
 */
const bucketOf = (who: AgentIdentity): string => (who.verification === 'verified' ? `v\u0001${who.agent}` : `c\u0001${who.claimed}`);

const OFFER = /^\s*(?:USD\s+)?(\d{1,4}(?:\.\d{1,6})?)\s*$/i;

/** A price offer header as millionths of a dollar; anything but one well-formed value is no offer. */
function offerMicros(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string' || value.includes(',')) return undefined;
  const m = OFFER.exec(value);
  return m ? priceMicros(m[1]!) : undefined;
}

/** Whether the request offers the price (Cloudflare's pay per crawl: `crawler-exact-price` equal, or `crawler-max-price` at least). */
export function offersPrice(req: Pick<Request, 'headers'>, price: string): boolean {
  const asked = priceMicros(price);
  const exact = offerMicros(req.headers['crawler-exact-price']);
  const max = offerMicros(req.headers['crawler-max-price']);
  return exact === asked || (max !== undefined && max >= asked);
}

export function createAgentGate(parts: AgentGateParts): AgentGate {
  const take = createBuckets();

  /** The decision for a request once it is identified (synchronous: a decision never waits). */
  function decideFor(req: Request, identity: AgentIdentity): AgentDecision {
    const served = (rule: number | null = null): AgentDecision => ({ action: 'allow', status: 200, identity, rule, outcome: 'served' });
    // robots.txt is everyone's: it is where the policy is read.
    if (req.path === PATHS.robotsTxt.template) return served();
    const policy = parts.policy();
    const d = policy.active ? policy.decide(identity, req.path) : { action: 'allow' as const, rule: null };
    const now = Date.now();
    switch (d.action) {
      case 'block':
        return { action: 'block', status: 403, identity, rule: d.rule, outcome: 'blocked', answer: { kind: 'blocked', why: `rule ${d.rule! + 1}` } };
      case 'limit': {
        const wait = take(`${d.rule}\u0001${bucketOf(identity)}`, d.perMinute!, 60_000, now);
        if (wait === 0) return served(d.rule);
        return { action: 'limit', status: 429, identity, rule: d.rule, retryAfter: wait, outcome: 'limited', answer: { kind: 'limited', retryAfter: wait } };
      }
      case 'charge': {
        const price = d.price!;
        if (identity.verification !== 'verified') {
          const why = `rule ${d.rule! + 1} charges for this agent and only a verified agent can be charged`;
          return { action: 'block', status: 403, identity, rule: d.rule, price, outcome: 'blocked', answer: { kind: 'blocked', why } };
        }
        if (offersPrice(req, price)) return { action: 'allow', status: 200, identity, rule: d.rule, price, charged: true, outcome: 'charged' };
        return { action: 'charge', status: 402, identity, rule: d.rule, price, outcome: 'payment-required', answer: { kind: 'payment-required', price } };
      }
    }
    const limit = parts.purposeLimits[identity.purpose];
    if (limit && identity.purpose !== 'browser' && identity.verification !== 'verified') {
      const wait = take(`p\u0001${identity.purpose}\u0001${bucketOf(identity)}`, limit.requests, limit.perSeconds * 1000, now);
      if (wait > 0) return { action: 'limit', status: 429, identity, rule: null, retryAfter: wait, outcome: 'limited', answer: { kind: 'limited', retryAfter: wait } };
    }
    return served(d.rule);
  }

  /** Identifies and decides: at once for an unsigned request, after the cached-key check for a signed one. */
  function evaluate(req: Request): AgentDecision | Promise<AgentDecision> {
    const request = identifiedRequest(req);
    const now = parts.identifier.identifyNow(request);
    return now ? decideFor(req, now) : parts.identifier.identify(request).then((identity) => decideFor(req, identity));
  }

  const counting = () => parts.traffic !== undefined && parts.traffic.active();
  const deciding = () => parts.policy().active || Object.keys(parts.purposeLimits).length > 0;

  const middleware: RequestHandler = function agentGate(req: Request, res: Response, next: NextFunction) {
    const holder = req as { [GATED]?: true };
    if (holder[GATED]) return next();
    holder[GATED] = true;
    const count = counting();
    if (!count && !deciding()) return next();
    if (count) startMark(req);
    const time = Date.now();
    const act = (decision: AgentDecision) => {
      if (count) res.once('finish', () => parts.traffic!.count(req, res, decision.identity, time));
      if (decision.outcome !== 'served') markOutcome(req, decision.outcome);
      if (decision.answer) return sendPolicyAnswer(req, res, decision.answer, answerFormat(req, parts.mcpPath), parts.places());
      if (decision.charged) {
        res.setHeader('crawler-charged', priceHeader(decision.price!));
        // Errors are not billed: the ledger records what was answered 2xx or 3xx.
        res.once('finish', () => {
          if (res.statusCode < 400) parts.ledger.add(time, decision.identity.agent, priceMicros(decision.price!));
        });
      }
      next();
    };
    // An unsigned request is decided at once, in this tick (no promise between the request and the route).
    let decided: AgentDecision | Promise<AgentDecision>;
    try {
      decided = evaluate(req);
    } catch (error) {
      return next(error);
    }
    if (decided instanceof Promise) decided.then(act, next);
    else act(decided);
  };

  return {
    middleware,
    async decide(req) {
      const { answer: _answer, ...decision } = await evaluate(req);
      return decision;
    },
  };
}
