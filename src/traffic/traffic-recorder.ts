import type { Request, Response } from 'express';
import type { Kysely } from 'kysely';
import { createRequire } from 'node:module';
import type { Database } from '../db/schema.js';
import type { ResolvedTraffic } from '../options.js';
import { effectiveSettings, type SettingsReader } from '../settings/effective-settings.js';
import { identifiedRequest, type AgentIdentifier, type AgentIdentity } from './agent-identity.js';
import { createReferralMatcher, landingPath } from './ai-referrals.js';
import { TrafficCounts, type CountsBatch } from './traffic-counts.js';
import { addCounts, foldRareKeys, pruneCounts, rollUpDays } from './traffic-store.js';
import { trafficMark, type TrafficSurface } from './traffic-mark.js';
import { createTrafficMetrics, type TrafficMetrics } from './traffic-metrics.js';

/** The counting of agent traffic of one plugin instance (with the `traffic` option). */
export interface TrafficRecorder {
  /**
   * Counts a request once it is answered, as the agent gate identified it (the gate calls this once per
   * request). A signed request whose key directory was not cached yet is identified again, patiently, first.
   */
  count(req: Request, res: Response, identity: AgentIdentity, time: number): void;
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
 * Creates the recorder: the in-memory counts and their flush timer, the referral matcher, the metrics.
 * Reads the settings once first (the switch and the crawler rules). Who asked comes from the agent gate.
 */
export async function createTrafficRecorder(
  ctx: SettingsReader & { readonly db: Kysely<Database> },
  traffic: ResolvedTraffic,
  identifier: AgentIdentifier,
): Promise<TrafficRecorder> {
  const referrer = createReferralMatcher();
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

  function violates(req: Request, purpose: string, surface: TrafficSurface): boolean {
    if (!rules || purpose === 'browser' || purpose === 'unknown' || surface === 'robots-txt') return false;
    const target = targetOf(req);
    if (target.length > MAX_ROBOTS_URL_CHARS || !target.startsWith('/')) return false;
    return rules.robots.isDisallowed(`http://robots.invalid${target}`, 'agent') === true;
  }

  function add(req: Request, res: Response, who: AgentIdentity, time: number): void {
    const mark = trafficMark(req);
    const surface = res.statusCode === 404 && !mark?.surface ? 'not-found' : (mark?.surface ?? answeredSurface(res));
    counts.addRequest({
      time,
      agent: who.agent,
      operator: who.operator,
      purpose: who.purpose,
      verdict: who.verification,
      method: who.method ?? '',
      reason: who.reason ?? '',
      outcome: mark?.outcome ?? 'served',
      surface,
      tool: mark?.tool ?? '',
      status: res.statusCode,
      robotsViolation: violates(req, who.purpose, surface),
      resourceId: mark?.resourceId,
    });
    if (who.purpose === 'browser' && surface === 'page-html' && res.statusCode < 300) {
      const query = targetOf(req).split('?')[1] ?? '';
      const assistant = referrer(header(req, 'referer'), query);
      if (assistant) counts.addReferral(time, assistant, landingPath(req.path));
    }
  }

  /**
   * The MCP client names of recent sessions: the endpoint is stateless (no session id), and only `initialize`
   * names the client, so its name is kept for the calls that follow from the same address and user agent
   * (in memory only, 30 minutes, at most 2,000; the map is emptied when full).
   */
  const mcpSessions = new Map<string, { name: string; until: number }>();
  function mcpClientOf(req: Request, time: number): string | undefined {
    const mark = trafficMark(req);
    if (mark?.surface !== 'mcp') return mark?.mcpClient;
    const key = `${req.ip ?? ''}\u0001${(header(req, 'user-agent') ?? '').slice(0, 256)}`;
    if (mark.mcpClient) {
      if (mcpSessions.size >= 2000) mcpSessions.clear();
      mcpSessions.set(key, { name: mark.mcpClient, until: time + 30 * 60_000 });
      return mark.mcpClient;
    }
    const session = mcpSessions.get(key);
    return session && session.until > time ? session.name : undefined;
  }

  function count(req: Request, res: Response, identity: AgentIdentity, time: number): void {
    if (!enabled || trafficMark(req)?.skip) return;
    const mcpClient = identity.known ? undefined : mcpClientOf(req, time);
    if (identity.reason !== 'not-cached' && !mcpClient) return add(req, res, identity, time);
    // Off the request path: the count waits for the key directory (bounded by the verifier's timeout), or
    // takes the MCP client's name into account.
    const request = identifiedRequest(req, mcpClient);
    const pending = identifier.identifyPatiently(request).then(
      (who) => add(req, res, who, time),
      () => add(req, res, identity, time),
    );
    inFlight.add(pending);
    void pending.finally(() => inFlight.delete(pending));
  }

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
          await foldRareKeys(ctx.db);
          await rollUpDays(ctx.db);
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
    count,
    pending: () => ({ batch: counts.peek(), requests: counts.pending }),
    flush,
    active: () => enabled,
    refresh: refreshSettings,
    metrics,
    async close() {
      clearInterval(timer);
      await Promise.allSettled([...inFlight]);
      await flush();
    },
  });
}
