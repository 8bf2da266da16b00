import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Kysely } from 'kysely';
import { createRequire } from 'node:module';
import type { Database } from '../db/schema.js';
import type { AgentEntryInput, ResolvedTraffic } from '../options.js';
import { effectiveSettings, type SettingsReader } from '../settings/effective-settings.js';
import { loadAgentCatalogue, type AgentEntry } from './agent-catalogue.js';
import { createRequestClassifier, type AgentClassification } from './classify-request.js';
import { createBotVerifier, DEFAULT_SIGNATURE_AGENT_ORIGINS, type BotVerdict } from './web-bot-auth.js';
import { createReferralMatcher, landingPath } from './ai-referrals.js';
import { createRateLimiter } from './rate-limit.js';
import { TrafficCounts, type CountsBatch } from './traffic-counts.js';
import { addCounts, pruneCounts } from './traffic-store.js';
import { startMark, trafficMark, type TrafficSurface } from './traffic-mark.js';
import { createTrafficMetrics, type TrafficMetrics } from './traffic-metrics.js';

/** The counting of agent traffic of one plugin instance (with the `traffic` option). */
export interface TrafficRecorder {
  /** Counts the request once (whichever of the plugin's middleware sees it first) and applies the rate limits. */
  readonly tap: RequestHandler;
  /** The counts not yet flushed (copies). */
  pending(): { batch: CountsBatch; requests: number };
  /** Writes the counts so far (also every `flushIntervalMs`). */
  flush(): Promise<void>;
  /** Whether counting is on now (the Settings switch). */
  active(): boolean;
  /** Reads the settings again now (the switch, the crawler rules): the admin's Settings form calls it after a save. */
  refresh(): Promise<void>;
  readonly metrics: TrafficMetrics;
  /** Stops the timer, waits for verifications in flight, flushes. */
  close(): Promise<void>;
}

/** The robots.txt parser (RFC 9309 matching: longest rule wins, `*` and `$`), typed structurally. */
interface RobotsRules {
  isDisallowed(url: string, userAgent?: string): boolean | undefined;
}
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => RobotsRules;

const HOUR_MS = 3_600_000;
const MAX_ROBOTS_URL_CHARS = 2048;

/** The surface of a response no route marked: a host page, by what it answered. */
function answeredSurface(res: Response): TrafficSurface {
  if (res.statusCode === 404) return 'not-found';
  const type = String(res.getHeader('Content-Type') ?? '');
  if (type.startsWith('text/markdown')) return 'page-markdown';
  if (type.startsWith('text/html')) return 'page-html';
  return 'other';
}

const header = (req: Request, name: string): string | undefined => {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
};

/** The path and query of a request, as robots.txt rules match it (query included, per RFC 9309). */
const targetOf = (req: Request): string => req.originalUrl ?? req.url;

/**
 * Creates the recorder: the catalogue (the package's and `traffic.agents`), the Web Bot Auth verifier
 * (the default origins and `traffic.signatureAgents`), the rate limits, the in-memory counts and their
 * flush timer. Reads the settings once first (the switch and the crawler rules).
 */
export async function createTrafficRecorder(ctx: SettingsReader & { readonly db: Kysely<Database> }, traffic: ResolvedTraffic): Promise<TrafficRecorder> {
  const classify = createRequestClassifier(loadAgentCatalogue(traffic.agents as readonly AgentEntryInput[] as readonly AgentEntry[]));
  const verifier = createBotVerifier({ allowedOrigins: [...new Set([...DEFAULT_SIGNATURE_AGENT_ORIGINS, ...traffic.signatureAgents])] });
  const referrer = createReferralMatcher();
  const limiter = createRateLimiter(traffic.rateLimits);
  const counts = new TrafficCounts(traffic.maxKeys);
  const metrics = createTrafficMetrics(() => counts.peek());
  const robotsOn = ctx.options.robotsTxt;
  let enabled = true;
  let rules: { text: string; robots: RobotsRules } | undefined;
  const inFlight = new Set<Promise<void>>();
  let flushing: Promise<void> | undefined;
  let lastPrune = 0;
  let failedFlushes = 0;

  async function refreshSettings(): Promise<void> {
    try {
      const s = await effectiveSettings(ctx);
      enabled = s.traffic;
      if (robotsOn && rules?.text !== s.crawlerRules) rules = { text: s.crawlerRules, robots: robotsParser('http://robots.invalid/robots.txt', `User-agent: *\n${s.crawlerRules}\n`) };
    } catch {
      // The database is away: keep what was known; the next tick tries again.
    }
  }

  function violates(req: Request, c: AgentClassification, surface: TrafficSurface): boolean {
    if (!rules || c.purpose === 'browser' || c.purpose === 'unknown' || surface === 'robots-txt') return false;
    const target = targetOf(req);
    if (target.length > MAX_ROBOTS_URL_CHARS || !target.startsWith('/')) return false;
    return rules.robots.isDisallowed(`http://robots.invalid${target}`, 'agent') === true;
  }

  const signed = (req: Request) => req.headers['signature'] !== undefined || req.headers['signature-input'] !== undefined;

  function verify(req: Request): Promise<BotVerdict> {
    const url = `${req.protocol}://${header(req, 'host') ?? 'invalid'}${targetOf(req)}`;
    return verifier.verify({ method: req.method, url, headers: req.headers }).then((v) => v.verdict);
  }

  function record(req: Request, res: Response, byUserAgent: AgentClassification, time: number): void {
    const mark = trafficMark(req);
    if (mark?.skip) return;
    const c = mark?.mcpClient ? classify({ userAgent: header(req, 'user-agent'), accept: header(req, 'accept'), mcpClient: mark.mcpClient }) : byUserAgent;
    const surface = res.statusCode === 404 && !mark?.surface ? 'not-found' : (mark?.surface ?? answeredSurface(res));
    const violation = violates(req, c, surface);
    const add = (verdict: BotVerdict) => {
      counts.addRequest({
        time,
        agent: c.agent,
        operator: c.operator,
        purpose: c.purpose,
        verdict,
        surface,
        tool: mark?.tool ?? '',
        status: res.statusCode,
        robotsViolation: violation,
        resourceId: mark?.resourceId,
      });
    };
    if (c.purpose === 'browser' && surface === 'page-html' && res.statusCode < 300) {
      const query = targetOf(req).split('?')[1] ?? '';
      const assistant = referrer(header(req, 'referer'), query);
      if (assistant) {
        counts.addReferral(time, assistant, landingPath(req.path));
      }
    }
    if (!signed(req)) return add('unsigned');
    // Off the request path: the count waits for the verdict (bounded by the verifier's timeout).
    const pending = verify(req).then(add, () => add('claimed'));
    inFlight.add(pending);
    void pending.finally(() => inFlight.delete(pending));
  }

  async function limited(req: Request, c: AgentClassification): Promise<number> {
    if (c.purpose === 'browser' || !limiter.limits(c.purpose)) return 0;
    const wait = limiter.take(c.purpose, c.agent, Date.now());
    if (wait === 0) return 0;
    // Over the limit: a request that verifies is never limited (only then is the verifier asked).
    return signed(req) && (await verify(req)) === 'verified' ? 0 : wait;
  }

  const tap: RequestHandler = function countAgentTraffic(req: Request, res: Response, next: NextFunction) {
    if (!enabled || !startMark(req)) return next();
    const time = Date.now();
    const c = classify({ userAgent: header(req, 'user-agent'), accept: header(req, 'accept') });
    res.once('finish', () => record(req, res, c, time));
    if (!limiter.limits(c.purpose)) return next();
    limited(req, c).then(
      (wait) => {
        if (wait === 0) return next();
        res.status(429).setHeader('Retry-After', String(wait));
        res.setHeader('Cache-Control', 'no-store');
        res.type('text/plain').send(`Too many requests from ${c.purpose} agents: retry after ${wait} s. This site's robots.txt and Content Signals say what it allows.\n`);
      },
      next,
    );
  };

  async function flush(): Promise<void> {
    if (flushing) return flushing;
    flushing = (async () => {
      const batch = counts.take();
      metrics.add(batch);
      // Nothing counted: no statement at all (an idle site's database is left alone).
      if (!batch.requests.length && !batch.resources.length && !batch.referrals.length) return;
      try {
        await addCounts(ctx.db, batch);
        failedFlushes = 0;
        if (Date.now() - lastPrune > HOUR_MS) {
          lastPrune = Date.now();
          await pruneCounts(ctx.db, traffic.retentionDays);
        }
      } catch (error) {
        // A lost flush loses its counts, never a response; said once until a flush succeeds again.
        if (failedFlushes++ === 0) {
          const text = error instanceof Error ? error.message : String(error);
          process.emitWarning(`express-agent-discovery: agent traffic counts could not be written (they are dropped): ${text.slice(0, 300)}`, {
            type: 'ExpressAgentDiscoveryWarning',
            code: 'EAD_TRAFFIC_FLUSH',
          });
        }
      }
    })().finally(() => (flushing = undefined));
    return flushing;
  }

  await refreshSettings();
  const timer = setInterval(() => void refreshSettings().then(flush), traffic.flushIntervalMs);
  timer.unref();

  return Object.freeze({
    tap,
    pending: () => ({ batch: counts.peek(), requests: counts.pending }),
    flush,
    active: () => enabled,
    refresh: refreshSettings,
    metrics,
    async close() {
      clearInterval(timer);
      await Promise.allSettled([...inFlight]);
      verifier.close();
      await flush();
    },
  });
}
