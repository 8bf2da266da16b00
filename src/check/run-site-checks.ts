import type { CheckContext } from './context.js';
import { checkApiCatalog } from './checks/api-catalog.js';
import { checkArd } from './checks/ard.js';
import { findPage } from './checks/find-page.js';
import { checkLlmsTxt } from './checks/llms-txt.js';
import { checkMcpCard } from './checks/mcp-card.js';
import { checkNegotiation } from './checks/negotiation.js';
import { checkNotAdvertised, type HiddenRef } from './checks/not-advertised.js';
import { checkOpenApi } from './checks/openapi.js';
import { checkProbes } from './checks/probes.js';
import { checkLanguage, checkResourceRead } from './checks/resource-read.js';
import { checkHome, checkPage } from './checks/site-links.js';
import type { CheckReport, CheckResult } from './report.js';
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
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_REQUESTS = 60;
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;
/** The most `hidden` resources one run checks (each costs a few requests). */
export const MAX_HIDDEN = 8;

/** Why `url` or `options` cannot be used, or undefined. Errors name the option. */
export function siteCheckUsageError(url: string, options: SiteCheckOptions = {}): string | undefined {
  let origin: string;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return `the URL must be http or https, got ${u.protocol}`;
    origin = u.origin;
  } catch {
    return `not a URL: ${JSON.stringify(url)}`;
  }
  if (options.page !== undefined && !sameOrigin(new URL(options.page, `${origin}/`).toString(), origin)) return `page must be on ${origin}`;
  for (const [name, value, min, max] of [
    ['timeoutMs', options.timeoutMs, 1, 60_000],
    ['maxRequests', options.maxRequests, 1, 1000],
    ['maxBodyBytes', options.maxBodyBytes, 1024, 64 * 1024 * 1024],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < min || value > max)) return `${name} must be an integer from ${min} to ${max}`;
  }
  if ((options.hidden?.length ?? 0) > MAX_HIDDEN) return `at most ${MAX_HIDDEN} private or noindex resources per run`;
  for (const h of options.hidden ?? []) {
    if (!h.ref) return `an empty ${h.kind} reference`;
    if (/^https?:\/\//i.test(h.ref) && !sameOrigin(h.ref, origin)) return `${h.kind} ${h.ref} is not on ${origin}`;
  }
  return undefined;
}

/**
 * Checks a site from outside as agents see it, with a bounded number of same-origin requests, and
 * resolves to the report (it throws only on a bad `url` or option).
 *
 * ```ts
 * const report = await runSiteChecks('https://example.com/', { hidden: [{ kind: 'private', ref: '42' }] });
 * report.ok; // true when every check passed
 * report.checks.filter((c) => !c.ok).map((c) => c.fix);
 * ```
 */
export async function runSiteChecks(url: string, options: SiteCheckOptions = {}): Promise<CheckReport> {
  const problem = siteCheckUsageError(url, options);
  if (problem) throw new Error(`express-agent-discovery: ${problem}`);
  const origin = new URL(url).origin;
  const client = createSiteClient(origin, {
    maxRequests: options.maxRequests ?? DEFAULT_MAX_REQUESTS,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  });
  const ctx: CheckContext = {
    origin,
    homeUrl: `${origin}/`,
    client,
    ...(options.page !== undefined ? { pageUrl: new URL(options.page, `${origin}/`).toString() } : {}),
  };
  const checks: CheckResult[] = [];
  checks.push(...(await checkHome(ctx)));
  checks.push(...(await checkProbes(ctx)));
  checks.push(await checkLlmsTxt(ctx));
  checks.push(...(await checkPage(ctx, await findPage(ctx))));
  checks.push(await checkNegotiation(ctx));
  const { result: readResult, read } = await checkResourceRead(ctx);
  checks.push(readResult, await checkLanguage(ctx, read));
  checks.push(...(await checkApiCatalog(ctx)));
  checks.push(await checkOpenApi(ctx));
  checks.push(await checkArd(ctx));
  checks.push(await checkMcpCard(ctx));
  for (const hidden of options.hidden ?? []) checks.push(await checkNotAdvertised(ctx, hidden));
  return { url: ctx.homeUrl, ok: checks.every((c) => c.ok), requests: client.requests, checks };
}
