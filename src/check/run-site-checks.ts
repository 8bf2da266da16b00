import { isIP } from 'node:net';
import { checkName, checkWeight, type CheckId } from './check-catalog.js';
import { ACCEPT, type CheckContext } from './context.js';
import { checkChangeFeed, checkMarkdownNotFound, checkMarkdownTwins, checkPageMarkdownCors, checkSitemap, checkSkillsIndex } from './checks/agent-web.js';
import { checkApiCatalog } from './checks/api-catalog.js';
import { checkArd } from './checks/ard.js';
import { checkCors } from './checks/cors.js';
import { checkDiscoveryDocuments } from './checks/discovery-documents.js';
import { findPage } from './checks/find-page.js';
import { checkHomeMarkdown } from './checks/home-markdown.js';
import { checkLlmsTxt } from './checks/llms-txt.js';
import { checkMcpCard } from './checks/mcp-card.js';
import { checkMcpProtocol } from './checks/mcp-protocol.js';
import { checkNegotiation } from './checks/negotiation.js';
import { checkNotAdvertised, type HiddenRef } from './checks/not-advertised.js';
import { checkOauthMetadata } from './checks/oauth-metadata.js';
import { checkOpenApi } from './checks/openapi.js';
import { checkProbes } from './checks/probes.js';
import { checkLanguage, checkResourceRead } from './checks/resource-read.js';
import { checkContentSignals, checkLicensePolicy, checkRobotsTxt } from './checks/robots-txt.js';
import { checkHome, checkPage } from './checks/site-links.js';
import { checkTranslations } from './checks/translations.js';
import { linksWith } from './page-view.js';
import { blocked, readinessScore, skip, type CheckOutcome, type CheckReport } from './report.js';
import { createSiteClient, sameOrigin } from './site-client.js';

export type { HiddenRef, HiddenKind } from './checks/not-advertised.js';

/** Options of `runSiteChecks`; every one has a default. */
export interface SiteCheckOptions {
  /** The resource page to check (same origin). Default: one found in llms.txt, the sitemap or a search result. */
  readonly page?: string;
  /** Resources to confirm are not advertised (`--private`, `--noindex`): page URLs, or ids or names. */
  readonly hidden?: readonly HiddenRef[];
  /** Per request, in milliseconds. Default 5000. */
  readonly timeoutMs?: number;
  /** The most requests one run makes. Default 60. */
  readonly maxRequests?: number;
  /** A response body is read up to this many bytes. Default 2 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * An IP address to connect to instead of looking the URL's host name up (curl's `--resolve`): checks
   * a staging server or a local process under the site's public name. Default: the host name's address.
   */
  readonly connectTo?: string;
}

/** Nothing answered at the site's address: the one error a run reports instead of its checks. */
export class SiteUnreachableError extends Error {
  constructor(readonly url: string, readonly reason: string) {
    super(`cannot connect to ${url} (${reason})`);
    this.name = 'SiteUnreachableError';
  }
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_REQUESTS = 80;
/** The largest response body `check` reads (the plugin's own `maxBodyBytes` option, 1 MiB by default, is another limit). */
export const CHECK_MAX_BODY_BYTES = 2 * 1024 * 1024;
/** The most `hidden` resources one run checks (each costs a few requests). */
export const MAX_HIDDEN = 8;

/** `127.0.0.1:3822`, `localhost:3000/x`, `example.com`: the http(s) URL a scheme-less argument most likely means. */
export function schemeHint(arg: string): string | undefined {
  const m = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?(\/\S*)?$/i.exec(arg.trim());
  if (!m || (!m[2] && !m[1]!.includes('.') && m[1] !== 'localhost')) return undefined;
  const local = /^(?:localhost|127\.|\[::1\]|10\.|192\.168\.)/i.test(m[1]!) || m[2] !== undefined;
  try {
    return new URL(`${local ? 'http' : 'https'}://${arg.trim()}`).toString();
  } catch {
    return undefined;
  }
}

/** Why `url` or `options` cannot be used, or undefined. Errors name the option. */
export function siteCheckUsageError(url: string, options: SiteCheckOptions = {}): string | undefined {
  let origin: string;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      const guess = schemeHint(url);
      return guess ? `not a URL: ${JSON.stringify(url)} (did you mean ${guess}?)` : `the URL must be http or https, got ${u.protocol}`;
    }
    origin = u.origin;
  } catch {
    const guess = schemeHint(url);
    return `not a URL: ${JSON.stringify(url)}${guess ? ` (did you mean ${guess}?)` : ''}`;
  }
  if (options.page !== undefined && !sameOrigin(new URL(options.page, `${origin}/`).toString(), origin)) return `page must be on ${origin}`;
  for (const [name, value, min, max] of [
    ['timeoutMs', options.timeoutMs, 1, 60_000],
    ['maxRequests', options.maxRequests, 1, 1000],
    ['maxBodyBytes', options.maxBodyBytes, 1024, 64 * 1024 * 1024],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < min || value > max)) return `${name} must be an integer from ${min} to ${max}`;
  }
  if (options.connectTo !== undefined && !isIP(options.connectTo)) return `connectTo must be an IP address, got ${JSON.stringify(options.connectTo)}`;
  if ((options.hidden?.length ?? 0) > MAX_HIDDEN) return `at most ${MAX_HIDDEN} private or noindex resources per run`;
  for (const h of options.hidden ?? []) {
    if (!h.ref) return `an empty ${h.kind} reference`;
    if (/^https?:\/\//i.test(h.ref) && !sameOrigin(h.ref, origin)) return `${h.kind} ${h.ref} is not on ${origin}`;
  }
  return undefined;
}

/**
 * Checks a site from outside as agents see it, with a bounded number of same-origin requests, and
 * resolves to the report with its readiness score. It rejects on a bad `url` or option, and with a
 * `SiteUnreachableError` when nothing answers at the site's address (one error, not a failed check
 * per document).
 *
 * ```ts
 * const report = await runSiteChecks('https://example.com/', { hidden: [{ kind: 'private', ref: '42' }] });
 * report.score; // 0 to 100
 * report.checks.filter((c) => c.status === 'failed').map((c) => c.fix);
 * ```
 */
export async function runSiteChecks(url: string, options: SiteCheckOptions = {}): Promise<CheckReport> {
  const problem = siteCheckUsageError(url, options);
  if (problem) throw new Error(`express-agent-discovery: ${problem}`);
  const ranAt = new Date().toISOString();
  const origin = new URL(url).origin;
  const client = createSiteClient(origin, {
    maxRequests: options.maxRequests ?? DEFAULT_MAX_REQUESTS,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBodyBytes: options.maxBodyBytes ?? CHECK_MAX_BODY_BYTES,
    ...(options.connectTo ? { connectTo: options.connectTo } : {}),
  });
  const ctx: CheckContext = {
    origin,
    homeUrl: `${origin}/`,
    client,
    ...(options.page !== undefined ? { pageUrl: new URL(options.page, `${origin}/`).toString() } : {}),
  };
  try {
    const first = await client.fetch(ctx.homeUrl, { accept: ACCEPT.fetcher });
    if (first.error !== undefined && first.unreachable) throw new SiteUnreachableError(ctx.homeUrl, first.error);
    const outcomes = await siteOutcomes(ctx);
    for (const hidden of options.hidden ?? []) outcomes.push(await checkNotAdvertised(ctx, hidden));
    const checks = outcomes.map((c) => ({ ...c, weight: checkWeight(c.id) }));
    return { url: ctx.homeUrl, ok: checks.every((c) => c.status !== 'failed'), score: readinessScore(checks), ranAt, requests: client.requests, checks };
  } finally {
    client.close();
  }
}

/** The results so far, by id, and how a check that needs others runs. */
interface Outcomes {
  readonly results: Map<string, CheckOutcome>;
  add(...outcomes: CheckOutcome[]): void;
  /** The first of `ids` that failed or was itself skipped because of a failure. */
  rootOf(...ids: CheckId[]): CheckOutcome | undefined;
  /** Runs `check`, or skips `id` because of the first of `needs` that failed. */
  run(id: CheckId, needs: CheckId[], check: () => CheckOutcome | Promise<CheckOutcome>): Promise<void>;
}

function outcomes(): Outcomes {
  const results = new Map<string, CheckOutcome>();
  const add = (...list: CheckOutcome[]) => list.forEach((o) => results.set(o.id, o));
  const rootOf = (...ids: CheckId[]) => ids.map((id) => results.get(id)).find((r) => r && (r.status === 'failed' || r.because !== null));
  return {
    results,
    add,
    rootOf,
    async run(id, needs, check) {
      const root = rootOf(...needs);
      add(root ? blocked(id, checkName(id), root) : await check());
    },
  };
}

/**
 * Every check of `CHECK_CATALOG`, in its order. A check whose prerequisite failed is not run: it is
 * skipped `because` of that check (or of that check's own root cause), so one cause is reported once.
 */
async function siteOutcomes(ctx: CheckContext): Promise<CheckOutcome[]> {
  const o = outcomes();
  o.add(...(await checkHome(ctx)));
  o.add(...(await checkProbes(ctx)));
  o.add(await checkDiscoveryDocuments(ctx));
  // The Markdown home page comes with the discovery documents (the plugin's router serves both).
  await o.run('home-markdown', ['discovery-documents'], () => (ctx.home ? checkHomeMarkdown(ctx) : blocked('home-markdown', checkName('home-markdown'), o.results.get('home-link-header')!)));
  await o.run('llms-txt', ['discovery-documents'], () => checkLlmsTxt(ctx));
  await pageOutcomes(ctx, o);
  const noDiscovery = o.rootOf('discovery-documents');
  if (noDiscovery) o.add(blocked('api-catalog', checkName('api-catalog'), noDiscovery), blocked('api-catalog-links', checkName('api-catalog-links'), noDiscovery));
  else o.add(...(await checkApiCatalog(ctx)));
  await o.run('openapi', ['discovery-documents'], () => checkOpenApi(ctx));
  await o.run('ard', ['discovery-documents'], () => checkArd(ctx));
  o.add(await checkMcpCard(ctx));
  if (ctx.mcpEndpoint) o.add(await checkMcpProtocol(ctx));
  else await o.run('mcp-protocol', ['mcp-card'], () => skip('mcp-protocol', checkName('mcp-protocol'), 'the card names no MCP endpoint on this origin'));
  o.add(await checkRobotsTxt(ctx));
  await o.run('content-signals', ['robots-txt'], () => checkContentSignals(ctx));
  await o.run('license-policy', ['robots-txt'], () => checkLicensePolicy(ctx));
  o.add(await checkSitemap(ctx));
  await o.run('cors', ['discovery-documents'], () => checkCors(ctx));
  await o.run('cors-page-markdown', ['cors', 'markdown-negotiation'], () => checkPageMarkdownCors(ctx));
  await o.run('change-feed', ['discovery-documents'], () => checkChangeFeed(ctx));
  o.add(await checkSkillsIndex(ctx));
  o.add(await checkOauthMetadata(ctx));
  return [...o.results.values()];
}

/** The checks of one resource page: its links, negotiation, its alternates' reads, language and translations. */
async function pageOutcomes(ctx: CheckContext, o: Outcomes): Promise<void> {
  const found = await findPage(ctx);
  const noDiscovery = o.rootOf('discovery-documents');
  if ('problem' in found && noDiscovery) for (const id of ['page', 'page-link-header', 'page-head'] as const) o.add(blocked(id, checkName(id), noDiscovery));
  else o.add(...(await checkPage(ctx, found)));
  await o.run('markdown-negotiation', ['page'], () => checkNegotiation(ctx));
  const view = ctx.page?.view;
  const alternates = view ? linksWith([...view.headerLinks, ...view.headLinks], 'alternate').filter((l) => /^(?:application\/json|text\/markdown)/i.test(l.type ?? '')) : [];
  /** A check of the alternates: with none advertised, skipped because of the page's links (or with nothing to check). */
  const ofAlternates = (id: CheckId, check: () => Promise<CheckOutcome>) =>
    o.run(id, ['page'], () => {
      if (alternates.length) return check();
      const root = o.rootOf('page-link-header', 'page-head');
      return root ? blocked(id, checkName(id), root) : skip(id, checkName(id), 'the page advertises no alternates: nothing to check');
    });
  let read: Awaited<ReturnType<typeof checkResourceRead>>['read'];
  await ofAlternates('resource-read', async () => {
    const r = await checkResourceRead(ctx);
    read = r.read;
    return r.result;
  });
  await ofAlternates('resource-language', () => checkLanguage(ctx, read));
  // The language versions come from the JSON read: a read that answered is enough, whatever the Markdown did.
  await o.run('translations', ['page'], () => {
    if (read) return checkTranslations(ctx, read.result?.page_urls);
    const root = o.rootOf('resource-read');
    return root ? blocked('translations', checkName('translations'), root) : skip('translations', checkName('translations'), 'no JSON read of the page: no language versions to compare');
  });
  await o.run('md-twins', ['markdown-negotiation'], () => checkMarkdownTwins(ctx));
  await o.run('markdown-404', ['page'], () => checkMarkdownNotFound(ctx));
}
