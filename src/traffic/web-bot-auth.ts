// Web Bot Auth (HTTP Message Signatures, RFC 9421, with `Signature-Agent` and the operator's key directory):
// tells a signed request whose signature checks against a directory on an allowed origin (`verified`) from
// one that only claims to be signed (`claimed`) and one that is not signed at all (`unsigned`). The verdict
// labels a traffic count; it never changes an answer. Signatures are checked by `web-bot-auth`, Cloudflare's
// reference library; this module chooses the signature, the origin and the key, and keeps the directories.
import { helpers, jwkToKeyID, verify as verifyWebBotAuth, type VerificationParams } from 'web-bot-auth';
import { verifierFromJWK } from 'web-bot-auth/crypto';
import { isInnerList, parseDictionary, parseItem, serializeInnerList, serializeItem, Token, type InnerList, type Item } from 'structured-headers';
import { deadlineSignal } from '../http/deadline.js';

/**
 * Operators that sign their agents' requests and publish a key directory at
 * `<origin>/.well-known/http-message-signatures-directory` (checked 2026-12-02):
 *
 * - `https://chatgpt.com`: OpenAI's ChatGPT agent sends `Signature-Agent: "https://chatgpt.com"`
 *   (https://help.openai.com/en/articles/11845367-chatgpt-agent-allowlisting).
 * - `https://agent.bot.goog`: Google-Agent (an experiment) sends `Signature-Agent: g="https://agent.bot.goog"`
 *   (https://developers.google.com/crawling/docs/crawlers-fetchers/allow-google-agent).
 * - `https://web-bot-auth.cloudflare-browser-rendering-085.workers.dev`: Cloudflare Browser Rendering
 *   (https://developers.cloudflare.com/browser-rendering/reference/automatic-request-headers/).
 *
 * Cloudflare's research demo (`https://http-message-signatures-example.research.cloudflare.com`) is left out
 * on purpose: its directory publishes the RFC 9421 test key, whose private half is printed in the RFC, so
 * anyone can sign as it. Such keys are refused in every directory (see `RFC_9421_TEST_KEYS`).
 *
 * ```ts
 * createBotVerifier({ allowedOrigins: [...DEFAULT_SIGNATURE_AGENT_ORIGINS, 'https://agent.example'] })
 * ```
 */
export const DEFAULT_SIGNATURE_AGENT_ORIGINS: readonly string[] = Object.freeze([
  'https://chatgpt.com',
  'https://agent.bot.goog',
  'https://web-bot-auth.cloudflare-browser-rendering-085.workers.dev',
]);

export interface BotVerifierOptions {
  /**
   * Origins whose key directories may be fetched (`https://chatgpt.com` …). Only https origins, and http
   * ones on a loopback host (`127.0.0.1`, `::1`, `localhost`) for tests. No other origin is ever fetched,
   * whatever a request's `Signature-Agent` says.
   */
  readonly allowedOrigins: readonly string[];
  /** Milliseconds a key directory fetch may take, body included. Defaults to 2000. */
  readonly timeoutMs?: number;
  /** Bytes of a key directory read at most (after content decoding); a bigger answer is refused. Defaults to 64 KiB. */
  readonly maxDirectoryBytes?: number;
  /** The fetch used for key directories. Defaults to the global `fetch`. */
  readonly fetch?: typeof globalThis.fetch;
  /** The clock (milliseconds since the epoch) for expiry and cache checks. Defaults to `Date.now`. */
  readonly now?: () => number;
}

/** `verified`: checks against an allowed directory; `claimed`: signed, not verified; `unsigned`: no signature. */
export type BotVerdict = 'verified' | 'claimed' | 'unsigned';

/**
 * Why a signed request is only `claimed`: `no-directory` (no usable `Signature-Agent` member covered by the
 * signature), `origin-not-allowed` (its directory is not on the allowed list), `wrong-host` (the signature
 * does not bind the request's authority), `expired` (outside `created`..`expires`, or no key id),
 * `key-not-found` (the directory has no such key, or could not be fetched), `not-cached` (only with
 * `cachedOnly`: the directory is not in the cache yet; a fetch has started), `bad-signature`.
 */
export type ClaimReason = 'no-directory' | 'origin-not-allowed' | 'wrong-host' | 'expired' | 'key-not-found' | 'not-cached' | 'bad-signature';

/** A verdict with the origin it was verified against and, when only claimed, why. */
export interface BotCheck {
  readonly verdict: BotVerdict;
  readonly origin: string | null;
  readonly reason: ClaimReason | null;
}

/** What a request is checked on: its method, its absolute URL (built from the `Host` it arrived with) and its headers. */
export interface SignedRequestLike {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface BotVerifier {
  /**
   * Resolves the verdict of one request, and the allowed origin it was verified against (else `null`).
   * Never rejects; may wait for a key directory (up to `timeoutMs`), so callers await it after answering.
   */
  verify(request: SignedRequestLike, mode?: { cachedOnly?: boolean }): Promise<BotCheck>;
  /** Aborts directory fetches in flight and forgets the cache; later signed requests are `claimed`. */
  close(): void;
}

/** The directory path every Signature-Agent origin is resolved at. */
export const SIGNATURES_DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';
const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';
const DEFAULT_TIMEOUT_MS = 2000;
const DEFAULT_MAX_DIRECTORY_BYTES = 64 * 1024;
/** `Signature`, `Signature-Input` and `Signature-Agent` longer than this are not parsed (`claimed`). */
const MAX_FIELD_CHARS = 4096;
/** Web Bot Auth signatures tried per request (a request may carry several). */
const MAX_SIGNATURES = 4;
const MAX_COMPONENTS = 16;
/** A directory with more keys is refused. */
const MAX_DIRECTORY_KEYS = 100;
const MIN_LIFETIME_MS = 60_000;
const MAX_LIFETIME_MS = 24 * 3600_000;
const DEFAULT_LIFETIME_MS = 3600_000;
/** After a failed fetch, no new fetch of that origin before this. */
const RETRY_AFTER_FAILURE_MS = 60_000;
/** A directory that fails to refresh keeps verifying with its last good keys this long past their lifetime. */
const MAX_STALE_MS = 24 * 3600_000;
/** Published test keys (RFC 9421 Appendix B.1.4): anyone holds the private half. */
const RFC_9421_TEST_KEYS = new Set(['JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs']);
const TAG = 'web-bot-auth';
/** The label the chosen signature is given for the library (labels are not signed: RFC 9421 section 7.2.5). */
const LABEL = 'sig1';

type SignatureCheck = (data: string, signature: Uint8Array, params: VerificationParams) => Promise<void>;
interface DirectoryKey {
  readonly check: SignatureCheck;
  readonly notBefore: number | undefined;
  readonly expires: number | undefined;
}
type DirectoryKeys = ReadonlyMap<string, DirectoryKey>;

/**
 * Builds a verifier over a fixed list of allowed origins; its key directory cache holds one entry per allowed
 * origin at most.
 *
 * ```ts
 * const bots = createBotVerifier({ allowedOrigins: DEFAULT_SIGNATURE_AGENT_ORIGINS })
 * res.on('finish', async () => {
 *   const { verdict, origin } = await bots.verify({ method: req.method, url: `https://${req.get('host')}${req.originalUrl}`, headers: req.headers })
 *   count(verdict, origin) // 'verified' 'https://chatgpt.com'
 * })
 * ```
 */
export function createBotVerifier(options: BotVerifierOptions): BotVerifier {
  const allowed = new Set(options.allowedOrigins.map((value, index) => allowedOrigin(value, index)));
  const now = options.now ?? Date.now;
  const directories = createDirectoryCache({
    fetch: options.fetch ?? globalThis.fetch,
    timeoutMs: positiveInteger(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs'),
    maxBytes: positiveInteger(options.maxDirectoryBytes, DEFAULT_MAX_DIRECTORY_BYTES, 'maxDirectoryBytes'),
    now,
  });
  return {
    async verify(request, mode) {
      try {
        const fields = signatureFields(request.headers);
        if (!fields) return { verdict: 'unsigned', origin: null, reason: null };
        const keysFor = mode?.cachedOnly ? directories.cachedKeysFor : directories.keysFor;
        const result = await verifySignatures(request, fields, { allowed, now, keysFor });
        return typeof result === 'string' ? { verdict: 'verified', origin: result, reason: null } : { verdict: 'claimed', origin: null, reason: result.reason };
      } catch {
        return { verdict: 'claimed', origin: null, reason: 'bad-signature' };
      }
    },
    close() {
      directories.close();
    },
  };
}

function allowedOrigin(value: string, index: number): string {
  const origin = typeof value === 'string' ? directoryOrigin(value) : null;
  if (!origin) {
    throw new TypeError(
      `express-agent-discovery: allowedOrigins[${index}] must be an https origin (http only on a loopback host), got ${JSON.stringify(value)}`,
    );
  }
  return origin;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`express-agent-discovery: ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/**
 * The ASCII origin of a URL that names an origin only (path `/` at most, no query, fragment or credentials),
 * as the `directory` type requires: https, or http on a loopback host (for tests; such an origin is only ever
 * fetched when the allowed list names it).
 */
function directoryOrigin(value: string): string | null {
  if (!URL.canParse(value) || value.includes('?') || value.includes('#')) return null;
  const url = new URL(value);
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  const schemeOk = url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
  const originOnly = url.pathname === '/' && !url.username && !url.password;
  return schemeOk && originOnly ? url.origin : null;
}

interface SignatureFields {
  readonly signature: string;
  readonly input: string;
  readonly agent: string;
}

/** The three fields as strings (repeated lines joined), `null` when the request carries no signature at all. */
function signatureFields(headers: SignedRequestLike['headers']): SignatureFields | null {
  const field = (name: string): string | undefined => {
    const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const signature = field('signature');
  const input = field('signature-input');
  if (signature === undefined && input === undefined) return null;
  return { signature: signature ?? '', input: input ?? '', agent: field('signature-agent') ?? '' };
}

interface VerifyContext {
  readonly allowed: ReadonlySet<string>;
  readonly now: () => number;
  readonly keysFor: (origin: string) => Promise<DirectoryKeys | null | 'not-cached'>;
}

/** The most telling reason among a request's signatures (the one that got furthest). */
const REASON_ORDER: readonly ClaimReason[] = ['no-directory', 'origin-not-allowed', 'wrong-host', 'expired', 'not-cached', 'key-not-found', 'bad-signature'];

/** The allowed origin the first Web Bot Auth signature that checks was verified against, else why none did. */
async function verifySignatures(request: SignedRequestLike, fields: SignatureFields, context: VerifyContext): Promise<string | { reason: ClaimReason }> {
  const { signature, input, agent } = fields;
  if (!agent || Math.max(signature.length, input.length, agent.length) > MAX_FIELD_CHARS) return { reason: 'no-directory' };
  let reason: ClaimReason = 'bad-signature';
  let furthest = -1;
  for (const candidate of webBotAuthSignatures(input, signature)) {
    const result = await verifyCandidate(request, candidate, agent, context).catch((): { reason: ClaimReason } => ({ reason: 'bad-signature' }));
    if (typeof result === 'string') return result;
    const rank = REASON_ORDER.indexOf(result.reason);
    if (rank > furthest) [furthest, reason] = [rank, result.reason];
  }
  return { reason: furthest < 0 ? 'bad-signature' : reason };
}

interface Candidate {
  readonly label: string;
  readonly input: InnerList;
  readonly signature: ArrayBuffer;
}

/** The signatures tagged `web-bot-auth` that have a 64-byte value (Ed25519), at most `MAX_SIGNATURES`. */
function webBotAuthSignatures(input: string, signature: string): Candidate[] {
  const inputs = parseDictionary(input);
  const values = parseDictionary(signature);
  const candidates: Candidate[] = [];
  for (const [label, member] of inputs) {
    const value = values.get(label);
    if (!isInnerList(member) || member[1].get('tag') !== TAG || !value || isInnerList(value)) continue;
    if (!(value[0] instanceof ArrayBuffer) || value[0].byteLength !== 64 || value[1].size) continue;
    candidates.push({ label, input: member, signature: value[0] });
    if (candidates.length === MAX_SIGNATURES) break;
  }
  return candidates;
}

async function verifyCandidate(request: SignedRequestLike, candidate: Candidate, agentField: string, context: VerifyContext): Promise<string | { reason: ClaimReason }> {
  const covered = coveredComponents(candidate.input);
  if (!covered) return { reason: 'wrong-host' };
  const agent = signatureAgent(covered, candidate.label, agentField, context.allowed);
  if (agent === null) return { reason: 'no-directory' };
  if (agent === 'not-allowed') return { reason: 'origin-not-allowed' };
  const keyid = checkedKeyid(candidate.input[1], context.now());
  if (!keyid) return { reason: 'expired' };
  const keys = await context.keysFor(agent.origin);
  if (keys === 'not-cached') return { reason: 'not-cached' };
  const key = usableKey(keys, keyid, context.now());
  if (!key) return { reason: 'key-not-found' };
  await verifyWebBotAuth(messageFor(request, candidate, agent.componentValue), key.check);
  return agent.origin;
}

/** The directory key with this thumbprint, unless the JWK's own `nbf` / `exp` (seconds) rule it out at `nowMs`. */
function usableKey(keys: DirectoryKeys | null, keyid: string, nowMs: number): DirectoryKey | null {
  const key = keys?.get(keyid);
  if (!key || (key.notBefore !== undefined && nowMs < key.notBefore * 1000)) return null;
  return key.expires !== undefined && nowMs > key.expires * 1000 ? null : key;
}

/**
 * The request as the library reads it: header names in lower case, and the chosen signature alone under one
 * label, with the `Signature-Agent` component value worked out here (the library's 0.1 line reads a `;key=`
 * component as the whole field, where RFC 9421 section 2.1.2 signs the one dictionary member).
 */
function messageFor(request: SignedRequestLike, candidate: Candidate, agentValue: string) {
  const headers: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  headers['signature-input'] = `${LABEL}=${serializeInnerList(candidate.input)}`;
  headers['signature'] = `${LABEL}=:${Buffer.from(candidate.signature).toString('base64')}:`;
  headers['signature-agent'] = agentValue;
  return { method: request.method, url: request.url, headers };
}

/** The covered component identifiers, when they bind the request's authority; `null` otherwise. */
function coveredComponents(input: InnerList): Item[] | null {
  const items = input[0];
  if (items.length > MAX_COMPONENTS || items.some(([name]) => typeof name !== 'string' || name !== name.toLowerCase())) return null;
  return items.some(([name]) => name === '@authority' || name === '@target-uri') ? items : null;
}

/**
 * The allowed origin a signature's covered `Signature-Agent` member names, and that component's value as
 * RFC 9421 computes it (section 2.1.2: the serialized dictionary member for `;key=`, the whole field for the
 * legacy String form). `null` when the member is not covered, not a directory origin, or not allowed.
 */
function signatureAgent(
  covered: Item[],
  label: string,
  field: string,
  allowed: ReadonlySet<string>,
): { origin: string; componentValue: string } | 'not-allowed' | null {
  const agents = covered.filter(([name]) => name === 'signature-agent');
  const chosen = agents.length === 1 ? agents[0] : agents.find(([, params]) => params.get('key') === label);
  if (!chosen) return null;
  const key = chosen[1].get('key');
  if ([...chosen[1].keys()].some((name) => name !== 'key')) return null;
  let member: Item;
  let componentValue = field;
  if (key === undefined) {
    // The legacy form: the whole field is one String (a dictionary here names no directory without `;key=`).
    try {
      member = parseItem(field);
    } catch {
      return null;
    }
  } else {
    const found = typeof key === 'string' ? parseDictionary(field).get(key) : undefined;
    if (!found || isInnerList(found)) return null;
    member = found;
    componentValue = serializeItem(found);
  }
  const type = member[1].get('type');
  const directoryType = type === undefined || ((type instanceof Token || typeof type === 'string') && ['directory', 'jwks_uri'].includes(String(type)));
  const origin = typeof member[0] === 'string' && directoryType ? directoryOrigin(directoryUrlOf(member)) : null;
  if (!origin) return null;
  return allowed.has(origin) ? { origin, componentValue } : 'not-allowed';
}

/**
 * The directory a `Signature-Agent` member names: the member's value (a bare string, or `type=directory`),
 * or, for `type=jwks_uri`, the origin of that URI (the keys are looked up on the allowed origin's directory
 * all the same: an origin's keys are one set, keyed by (directory URL, key id)).
 */
function directoryUrlOf(member: Item): string {
  const value = member[0] as string;
  const type = member[1].get('type');
  if (type !== undefined && String(type) === 'jwks_uri' && URL.canParse(value)) return `${new URL(value).origin}/`;
  return value;
}

/** The `keyid` of signature parameters that are current at `nowMs` (created, not expired, Ed25519), else `null`. */
function checkedKeyid(params: InnerList[1], nowMs: number): string | null {
  const created = params.get('created');
  const expires = params.get('expires');
  const keyid = params.get('keyid');
  const alg = params.get('alg');
  if (typeof created !== 'number' || typeof expires !== 'number' || !Number.isInteger(created) || !Number.isInteger(expires)) return null;
  if (created * 1000 > nowMs || expires * 1000 < nowMs || created > expires) return null;
  if (alg !== undefined && alg !== 'ed25519') return null;
  return typeof keyid === 'string' && keyid.length <= 128 ? keyid : null;
}

interface DirectoryCacheOptions {
  readonly fetch: typeof globalThis.fetch;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly now: () => number;
}

interface DirectoryEntry {
  keys: DirectoryKeys | null;
  freshUntil: number;
  retryAt: number;
  pending: Promise<void> | null;
}

/**
 * Key directories by origin (the allowed ones only, so the cache is as long as the list): fresh for the
 * directory's `Cache-Control: max-age` (60 s to 24 h, 1 h without one); one fetch at a time per origin, shared
 * by the verifications waiting for it; a failed fetch is not tried again for 60 s, and does not evict the last
 * good keys, which keep verifying up to 24 h past their lifetime (an operator's outage is no revocation).
 */
function createDirectoryCache(options: DirectoryCacheOptions) {
  const entries = new Map<string, DirectoryEntry>();
  const aborts = new AbortController();

  async function refresh(origin: string, entry: DirectoryEntry): Promise<void> {
    try {
      const { keys, lifetimeMs } = await fetchDirectory(origin, options, aborts.signal);
      entry.keys = keys;
      entry.freshUntil = options.now() + lifetimeMs;
    } catch {
      entry.retryAt = options.now() + RETRY_AFTER_FAILURE_MS;
    }
  }

  const cache = {
    async keysFor(origin: string): Promise<DirectoryKeys | null> {
      const entry = entries.get(origin) ?? { keys: null, freshUntil: 0, retryAt: 0, pending: null };
      entries.set(origin, entry);
      if (entry.keys && options.now() < entry.freshUntil) return entry.keys;
      if (!entry.pending && options.now() >= entry.retryAt && !aborts.signal.aborted) {
        entry.pending = refresh(origin, entry).finally(() => (entry.pending = null));
      }
      if (entry.pending) await entry.pending;
      return entry.keys && options.now() < entry.freshUntil + MAX_STALE_MS ? entry.keys : null;
    },
    /** The cached keys only: never waits on the network (a fetch is started when none is fresh). */
    async cachedKeysFor(origin: string): Promise<DirectoryKeys | null | 'not-cached'> {
      const entry = entries.get(origin);
      if (entry?.keys && options.now() < entry.freshUntil + MAX_STALE_MS) {
        if (options.now() >= entry.freshUntil) void cache.keysFor(origin);
        return entry.keys;
      }
      void cache.keysFor(origin);
      return entry && !entry.pending && options.now() < entry.retryAt ? null : 'not-cached';
    },
    close(): void {
      aborts.abort();
      entries.clear();
    },
  };
  return cache;
}

/** Fetches and parses one directory: status 200 only, no redirect, within the timeout and the byte limit. */
async function fetchDirectory(
  origin: string,
  options: DirectoryCacheOptions,
  closed: AbortSignal,
): Promise<{ keys: DirectoryKeys; lifetimeMs: number }> {
  // The deadline covers the body too; it holds its timer (see deadlineSignal: not AbortSignal.any + timeout).
  const deadline = deadlineSignal(options.timeoutMs, closed);
  try {
    const response = await options.fetch(`${origin}${SIGNATURES_DIRECTORY_PATH}`, {
      signal: deadline.signal,
      redirect: 'manual',
      headers: { accept: `${DIRECTORY_MEDIA_TYPE}, application/json;q=0.9` },
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`directory answered ${response.status}`);
    }
    const text = await readBounded(response, options.maxBytes);
    return { keys: await parseDirectory(text), lifetimeMs: directoryLifetimeMs(response.headers) };
  } finally {
    deadline.clear();
  }
}

/** The body as UTF-8, read chunk by chunk and abandoned as soon as it passes `maxBytes`. */
async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const tooBig = new Error(`directory larger than ${maxBytes} bytes`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooBig;
  }
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
    size += read.value.byteLength;
    if (size > maxBytes) {
      await reader?.cancel().catch(() => undefined);
      throw tooBig;
    }
    chunks.push(read.value);
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
}

/**
 * The Ed25519 keys of a JWKS, by JWK thumbprint (RFC 7638, the `keyid` signers use). Keys of other types, with
 * a `kid` that is not their thumbprint, for another `use`, or published test keys are left out; a document
 * that is not a JWKS, or has more than `MAX_DIRECTORY_KEYS` keys, is refused.
 */
async function parseDirectory(text: string): Promise<DirectoryKeys> {
  const document: unknown = JSON.parse(text);
  const keys = typeof document === 'object' && document !== null ? (document as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys) || keys.length > MAX_DIRECTORY_KEYS) throw new Error('not a key directory');
  const found = new Map<string, DirectoryKey>();
  for (const jwk of keys) {
    if (typeof jwk !== 'object' || jwk === null) continue;
    const { kty, crv, x, kid, use, nbf, exp } = jwk as Record<string, unknown>;
    if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(x) || RFC_9421_TEST_KEYS.has(x)) continue;
    if (use !== undefined && use !== 'sig') continue;
    const publicKey = { kty, crv, x };
    const thumbprint = await jwkToKeyID(publicKey, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE);
    if (kid !== undefined && kid !== thumbprint) continue;
    const check = (await verifierFromJWK(publicKey)) as SignatureCheck;
    found.set(thumbprint, { check, notBefore: typeof nbf === 'number' ? nbf : undefined, expires: typeof exp === 'number' ? exp : undefined });
  }
  return found;
}

/** How long a directory answer stays fresh: its `max-age` less its `Age`, within 60 s and 24 h; 1 h without. */
function directoryLifetimeMs(headers: Headers): number {
  const cacheControl = headers.get('cache-control') ?? '';
  if (/(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)/i.test(cacheControl)) return MIN_LIFETIME_MS;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d{1,10})"?\s*(?:,|$)/i.exec(cacheControl);
  if (!maxAge) return DEFAULT_LIFETIME_MS;
  const age = Number(/^\s*(\d{1,10})\s*$/.exec(headers.get('age') ?? '')?.[1] ?? 0);
  return Math.min(MAX_LIFETIME_MS, Math.max(MIN_LIFETIME_MS, (Number(maxAge[1]) - age) * 1000));
}
