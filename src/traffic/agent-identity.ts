import type { AgentCatalogue, AgentPurpose } from './agent-catalogue.js';
import type { AgentRanges } from './agent-ranges.js';
import { createRequestClassifier, type AgentClassification, type RequestSignals } from './classify-request.js';
import { parseAddress, rangeListHas } from './ip-ranges.js';
import type { DnsVerifier } from './reverse-dns.js';
import type { BotCheck, BotVerifier, ClaimReason, SignedRequestLike } from './web-bot-auth.js';

/** What is known of a request's claim: checked and true, checked and false, or nothing to check yet. */
export const VERIFICATION_STATES = ['verified', 'spoofed', 'unverified'] as const;
export type Verification = (typeof VERIFICATION_STATES)[number];
/** How a `verified` request was verified. */
export type VerificationMethod = 'signature' | 'ranges' | 'dns';

/**
 * Who sent a request, as far as it can be checked now. A `spoofed` request is counted, limited and decided
 * as `spoofed:<agent>`, never as the agent it names; its purpose stays the one it claims (a forged training
 * crawler is still a training crawler to a rule on purposes).
 */
export interface AgentIdentity {
  /** The key counts and decisions use: a catalogue key, a class (`browser`), or `spoofed:<key>`. */
  readonly agent: string;
  /** The catalogue key or class the request names. */
  readonly claimed: string;
  readonly operator: string | null;
  readonly purpose: AgentPurpose;
  /** True when a catalogue entry named the agent. */
  readonly known: boolean;
  readonly verification: Verification;
  readonly method: VerificationMethod | null;
  /** Why a signature did not verify (signed requests only). */
  readonly reason: ClaimReason | null;
}

/** What identification reads of a request: its signals, its address (Express's `req.ip`) and what a signature covers. */
export interface IdentifiedRequest extends RequestSignals {
  readonly ip: string | undefined;
  readonly signed: SignedRequestLike | undefined;
}

export interface AgentIdentifier {
  /** What the user agent, Accept and MCP client name say (no verification). */
  classify(signals: RequestSignals): AgentClassification;
  /**
   * Identifies a request with what is known now: ranges (in memory), a signature checked against cached
   * keys only, reverse DNS from the cache (a check is started when none is cached). Never waits on the network.
   */
  identify(request: IdentifiedRequest, classification?: AgentClassification): Promise<AgentIdentity>;
  /** `identify` without a promise, for an unsigned request (nothing to await); `undefined` for a signed one. */
  identifyNow(request: IdentifiedRequest): AgentIdentity | undefined;
  /** As `identify`, but a signature may wait for its key directory (bounded by the verifier's timeout): for counts, after the answer. */
  identifyPatiently(request: IdentifiedRequest, classification?: AgentClassification): Promise<AgentIdentity>;
}

export interface AgentIdentifierParts {
  readonly catalogue: AgentCatalogue;
  readonly ranges: () => AgentRanges;
  readonly dns: DnsVerifier | undefined;
  readonly signatures: BotVerifier;
}

/** What identification reads of an Express request: `req.ip` (the host's `trust proxy` decides it), the headers. */
export function identifiedRequest(
  req: { readonly ip?: string | undefined; readonly method: string; readonly protocol: string; readonly originalUrl?: string; readonly url: string; readonly headers: Readonly<Record<string, string | string[] | undefined>> },
  mcpClient?: string,
): IdentifiedRequest {
  const one = (name: string) => {
    const v = req.headers[name];
    return typeof v === 'string' ? v : undefined;
  };
  const signed = req.headers['signature'] !== undefined || req.headers['signature-input'] !== undefined;
  return {
    userAgent: one('user-agent'),
    accept: one('accept'),
    mcpClient,
    ip: req.ip,
    signed: signed ? { method: req.method, url: `${req.protocol}://${one('host') ?? 'invalid'}${req.originalUrl ?? req.url}`, headers: req.headers } : undefined,
  };
}

/** Builds the one identification of requests every surface uses (traffic counts, rate limits, the agent policy). */
export function createAgentIdentifier(parts: AgentIdentifierParts): AgentIdentifier {
  const classify = createRequestClassifier(parts.catalogue);
  const signingOrigin = new Map(parts.catalogue.agents.filter((a) => a.signatureAgent).map((a) => [a.key, new URL(a.signatureAgent!).origin]));
  const agentOfOrigin = new Map([...signingOrigin].map(([key, origin]) => [origin, key]));
  const byKey = new Map(parts.catalogue.agents.map((a) => [a.key, a]));

  function identity(c: AgentClassification, verification: Verification, method: VerificationMethod | null, reason: ClaimReason | null): AgentIdentity {
    const agent = verification === 'spoofed' ? `spoofed:${c.agent}` : c.agent;
    return Object.freeze({ agent, claimed: c.agent, operator: verification === 'spoofed' ? null : c.operator, purpose: c.purpose, known: c.known, verification, method, reason });
  }

  async function run(request: IdentifiedRequest, given: AgentClassification | undefined, cachedOnly: boolean): Promise<AgentIdentity> {
    let c = given ?? classify(request);
    let check: BotCheck | undefined;
    if (request.signed) {
      check = await parts.signatures.verify(request.signed, { cachedOnly });
      if (check.verdict === 'verified') {
        // A verified signature names its operator's agent even under another user agent.
        const signer = check.origin ? agentOfOrigin.get(check.origin) : undefined;
        const entry = signer && !c.known ? byKey.get(signer) : undefined;
        if (entry) c = { agent: entry.key, operator: entry.operator, purpose: entry.purpose, known: true };
        return identity(c, 'verified', 'signature', null);
      }
    }
    return settle(request, c, check?.reason ?? null);
  }

  /** What the address says of a classified request (ranges, cached DNS), after its signature (if any) did not verify. */
  function settle(request: IdentifiedRequest, c: AgentClassification, reason: ClaimReason | null): AgentIdentity {
    if (!c.known) return identity(c, 'unverified', null, reason);
    const ranges = parts.ranges();
    const lists = ranges.lists.get(c.agent);
    const address = parseAddress(request.ip);
    // No address to check (a socket gone, a value that is not an address): nothing is known either way.
    if (!address) return identity(c, 'unverified', null, reason);
    if (lists && lists.some((list) => rangeListHas(list, address))) return identity(c, 'verified', 'ranges', null);
    const suffixes = ranges.dns.get(c.agent);
    let dnsSays: boolean | undefined;
    if (suffixes && request.ip) {
      dnsSays = parts.dns?.known(request.ip, suffixes);
      if (dnsSays === true) return identity(c, 'verified', 'dns', null);
      if (dnsSays === undefined) parts.dns?.lookup(request.ip);
    }
    // Not yet known from the signature's keys: neither verified nor spoofed until they are.
    if (reason === 'not-cached') return identity(c, 'unverified', null, reason);
    const checkable = lists !== undefined || signingOrigin.has(c.agent) || (suffixes !== undefined && dnsSays === false);
    return identity(c, checkable ? 'spoofed' : 'unverified', null, reason);
  }

  return {
    classify,
    identifyNow: (request) => (request.signed ? undefined : settle(request, classify(request), null)),
    identify: (request, classification) => run(request, classification, true),
    identifyPatiently: (request, classification) => run(request, classification, false),
  };
}
